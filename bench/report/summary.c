#include "report/summary.h"

#include "base/msgpath.h"

#include "base/self.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/quantile.h"
#include "config.h"
#include "report/hostinfo.h"

/* What a ratio is when code placements rotate per round (paired_ratio). */
#define ROTATING_RATIO "median over blocks of 8 rounds (every code placement once) of each block's geometric mean"

struct stats {
    double median, q1, q3, bpn;
    size_t n;
};

/* The ratio of variant vi to variant 0 (mfb_samples_log_estimate). */
static double paired_ratio(const struct mfb_samples *all, int nvars, int process, unsigned cls, int vi,
                           bool rotating, double *buf)
{
    return exp(mfb_samples_log_estimate(all, nvars, process, cls, vi, rotating, buf));
}

/* Whether a sample is of a process the table leaves out (a starved one whose slot ran again). */
static bool left_out(const struct mfb_summary_view *v, const struct mfb_sample *x)
{
    return v->left_out && x->process < v->processes && v->left_out[x->process];
}

/* Variant vi's time per call over every measured batch of the whole distribution (every process
 * the table keeps): median and quartiles, and the median bytes per ns. */
static struct stats variant_stats(const struct mfb_samples *all, const struct mfb_summary_view *v, int vi, double *ns,
                                  double *bpn)
{
    struct stats s = {0};
    for (size_t i = 0; i < all->n; i++) {
        const struct mfb_sample *x = &all->s[i];
        if ((int)x->variant != vi || x->warmup || x->calls == 0 || x->size_class != 0 || !mfb_sample_main(x) ||
            left_out(v, x))
            continue;
        ns[s.n] = x->ns / x->calls;
        bpn[s.n] = x->ns > 0 ? (double)x->bytes / x->ns : 0;
        s.n++;
    }
    mfb_quantile_sort(ns, s.n);
    s.median = mfb_quantile_of_sorted(ns, s.n, 0.5);
    s.q1 = mfb_quantile_of_sorted(ns, s.n, 0.25);
    s.q3 = mfb_quantile_of_sorted(ns, s.n, 0.75);
    s.bpn = mfb_quantile_median(bpn, s.n);
    return s;
}

/* Rows of a sweep's terminal table: the file has every point. */
#define SWEEP_ROWS 40

void mfb_summary_print_sweep(FILE *out, const struct mfb_samples *all, const char *const *names, int nvars,
                             const uint64_t *lo, const uint64_t *hi, int npoints, bool rotating,
                             const char *output_path)
{
    double *buf = malloc((all->n + 1) * sizeof *buf);
    if (!buf)
        return;
    fprintf(out, "\nmemfbench: sweep of %d sizes; ns/call per variant (ratio to %s)\n  %-15s", npoints, names[0],
            "size");
    for (int v = 0; v < nvars; v++)
        fprintf(out, " %20.20s", names[v]);
    fprintf(out, "\n");
    int step = npoints > SWEEP_ROWS ? (npoints + SWEEP_ROWS - 1) / SWEEP_ROWS : 1;
    for (int k = 0; k < npoints; k += step) {
        char label[48];
        if (lo[k] == hi[k])
            snprintf(label, sizeof label, "%llu", (unsigned long long)lo[k]);
        else
            snprintf(label, sizeof label, "%llu-%llu", (unsigned long long)lo[k], (unsigned long long)hi[k]);
        fprintf(out, "  %-15s", label);
        for (int v = 0; v < nvars; v++) {
            size_t n = 0;
            for (size_t i = 0; i < all->n; i++) {
                const struct mfb_sample *x = &all->s[i];
                if ((int)x->variant == v && !x->warmup && x->size_class == (unsigned)(k + 1) && x->calls &&
                    mfb_sample_main(x))
                    buf[n++] = x->ns / x->calls;
            }
            double med = mfb_quantile_median(buf, n);
            if (v == 0)
                fprintf(out, " %20.3f", med);
            else
                fprintf(out, " %11.3f (%6.3f)", med, paired_ratio(all, nvars, -1, (unsigned)(k + 1), v, rotating, buf));
        }
        fprintf(out, "\n");
    }
    if (step > 1)
        fprintf(out, "  (every %d%s point shown; the file holds all %d)\n", step,
                step == 2 ? "nd" : step == 3 ? "rd" : "th",
                npoints);
    /* thread 0's batches carry thread 0 only in a run of several threads */
    bool threaded = false;
    for (size_t i = 0; i < all->n && !threaded; i++)
        threaded = all->s[i].thread >= 0;
    if (threaded)
        fprintf(out, "  Several timing threads: the table is thread 0's batches beside the others\n");
    fprintf(out, "  Intervals, bytes/ns and the plot: ");
    mfb_summary_analysis_command(out, output_path);
    free(buf);
}

/* --threads: thread 0's batch time beside the other threads over its alone batch of the same
 * variant and round (whole distribution, measured rounds), appended to buf from nb batches beside
 * and na alone ones of one process. Both are in round order, so one walk pairs them. */
static size_t alone_pairs(const struct mfb_sample *beside, size_t nb, const struct mfb_sample *alone, size_t na,
                          int vi, double *buf)
{
    size_t k = 0, j = 0;
    for (size_t i = 0; i < nb; i++) {
        const struct mfb_sample *x = &beside[i];
        if ((int)x->variant != vi || x->warmup || x->size_class != 0)
            continue;
        while (j < na && alone[j].round < x->round)
            j++;
        for (size_t a = j; a < na && alone[a].round == x->round; a++)
            if ((int)alone[a].variant == vi && alone[a].size_class == 0 && alone[a].ns > 0) {
                buf[k++] = x->ns / alone[a].ns;
                break;
            }
    }
    return k;
}

/* The same over a merged file's processes: each process's batches are its thread 0's beside the
 * others, then its alone ones, then the other threads' (measure/team.c). */
static size_t alone_pairs_merged(const struct mfb_samples *all, int vi, double *buf)
{
    size_t k = 0, i = 0;
    while (i < all->n) {
        size_t main_end = i, alone_end;
        while (main_end < all->n && all->s[main_end].process == all->s[i].process && mfb_sample_main(&all->s[main_end]))
            main_end++;
        for (alone_end = main_end; alone_end < all->n && all->s[alone_end].process == all->s[i].process &&
                                   all->s[alone_end].alone > 0; alone_end++)
            ;
        k += alone_pairs(all->s + i, main_end - i, all->s + main_end, alone_end - main_end, vi, buf + k);
        size_t next = alone_end;
        while (next < all->n && all->s[next].process == all->s[i].process)
            next++;
        i = next > i ? next : i + 1;
    }
    return k;
}

/* --threads: one line of each variant's median slowdown beside the other threads. */
static void print_slowdowns(FILE *out, const char *const *names, int nvars, const struct mfb_samples *beside,
                            const struct mfb_samples *alone, double *buf)
{
    fprintf(out, "   ");
    for (int v = 0; v < nvars; v++) {
        size_t k = alone ? alone_pairs(beside->s, beside->n, alone->s, alone->n, v, buf)
                         : alone_pairs_merged(beside, v, buf);
        if (k)
            fprintf(out, " %s %+.2f %%%s", names[v], 100 * (mfb_quantile_median(buf, k) - 1), v + 1 < nvars ? "," : "");
        else
            fprintf(out, " %s n/a (no measured round)%s", names[v], v + 1 < nvars ? "," : "");
    }
    fprintf(out, "\n");
}

/* The threads' and the stressor's lines under the table; buf NULL: a sweep (no whole-distribution
 * batches to pair), which the sweep table has already said is thread 0's. */
static void print_neighbours(FILE *out, const struct mfb_run *r, double *buf)
{
    const struct mfb_team *t = r->runtime.team;
    if (t && t->n > 1 && buf) {
        fprintf(out, "  %d timing threads on CPUs", t->n);
        for (int k = 0; k < t->n; k++)
            fprintf(out, "%s%d", k ? "," : " ", t->place[k].cpu);
        fprintf(out, "; the table is thread 0's batches beside the others. Its slowdown beside them (median over "
                     "rounds of each batch over its alone batch):\n");
        const char *names[MFB_MAX_VARIANTS];
        for (int v = 0; v < r->config.nvars; v++)
            names[v] = r->config.vars[v].v->name;
        print_slowdowns(out, names, r->config.nvars, &r->res.samples, &t->alone_samples, buf);
    }
    const struct mfb_background *b = r->runtime.background;
    if (b) {
        fprintf(out, "  background %s on %d CPU%s for %.1f s", mfb_choice_name(MFB_SET_STRESSOR, b->kind), b->n,
                b->n == 1 ? "" : "s",
                b->seconds);
        if (b->kind == MFB_STRESS_BANDWIDTH && b->seconds > 0)
            fprintf(out, ": copied %.2f bytes/ns", (double)b->bytes / (b->seconds * 1e9));
        fprintf(out, "\n");
    }
}

/* The variants' table and its notes, one printer for a single run and a merged file: ns/call,
 * IQR and bytes/ns over every measured batch, and the paired ratio to the baseline; over several
 * processes the ratio is the median of the per-process ratios, with their range (how much one
 * layout can move it). between() prints the lines that go under the table (threads, stressors). */
static void print_table(FILE *out, const struct mfb_samples *all, const struct mfb_summary_view *v,
                        void (*between)(FILE *, const void *, double *), const void *ctx, const char *output_path)
{
    size_t np = (size_t)v->processes;
    double *ns = malloc((all->n + 1) * sizeof *ns), *bpn = malloc((all->n + 1) * sizeof *bpn);
    double *ratios = malloc((np + 1) * sizeof *ratios);
    if (!ns || !bpn || !ratios)
        goto done;
    bool merged = np > 1;
    fprintf(out, "\nmemfbench: %s on %s | %s | clock %s\n", v->function, v->distribution, v->cpu_model, v->clock);
    fprintf(out, "  %s\n", v->shape);
    /* the processes' lowest and highest ratio in columns of their own, not in brackets: an
     * interval is the analysis's to print (one estimator, one number), and this span is none */
    fprintf(out, "  %-15s %10s %21s %9s %9s%s\n", "variant", "ns/call", "IQR", "bytes/ns", "ratio",
            merged ? "    lowest   highest" : "");
    for (int vi = 0; vi < v->nvars; vi++) {
        struct stats s = variant_stats(all, v, vi, ns, bpn);
        fprintf(out, "  %-15s %10.3f   [%8.3f, %8.3f] %9.2f", v->names[vi], s.median, s.q1, s.q3, s.bpn);
        if (!merged) {
            fprintf(out, " %9.3f\n", paired_ratio(all, v->nvars, -1, 0, vi, v->rotating, ns));
            continue;
        }
        size_t k = 0;
        for (size_t p = 0; p < np; p++) {
            if (v->left_out && v->left_out[p])
                continue;
            double r = paired_ratio(all, v->nvars, (int)p, 0, vi, v->rotating, ns);
            if (!isnan(r))
                ratios[k++] = r;
        }
        mfb_quantile_sort(ratios, k);
        fprintf(out, " %9.3f %9.3f %9.3f\n", mfb_quantile_of_sorted(ratios, k, 0.5), k ? ratios[0] : NAN,
                k ? ratios[k - 1] : NAN);
    }
    between(out, ctx, ns);
    if (v->sentinel)
        fprintf(out, "  %s: added as the layout sentinel, run from every code placement: the plugins have one code "
                     "layout each, and the analysis says beside their verdicts how far identical code moves with its "
                     "placement here.\n", v->sentinel);
    const char *rule = v->rotating ? ROTATING_RATIO : "median over rounds";
    if (merged)
        fprintf(out, "  ns/call and bytes/ns: medians over every measured batch of the processes counted above. ratio: "
                     "per process, the %s of the "
                     "batch time over '%s' in the same round; shown, the median over processes, the lowest and "
                     "the highest (below 1: faster). Neither is the verdict's ratio or interval (the mean over "
                     "processes under the model of the code placements, docs/analysis.md), which the analysis "
                     "prints.\n  Intervals and verdicts: ", rule, v->names[0]);
    else
        fprintf(out, "  ns/call and bytes/ns: medians over measured batches. ratio: %s of the batch time over '%s' "
                     "in the same round (below 1: faster).\n  Intervals and verdicts: ", rule, v->names[0]);
    mfb_summary_analysis_command(out, output_path);
    if (v->one_process_note)
        fprintf(out, "  One process: these figures cover this process's code and data layout only, not a re-run; "
                     "verdicts need --processes K (default %d).\n", MFB_DEFAULT_PROCESSES);
done:
    free(ns);
    free(bpn);
    free(ratios);
}

static void run_neighbours(FILE *out, const void *ctx, double *buf)
{
    print_neighbours(out, ctx, buf);
}

static void print_run_sweep(FILE *out, const struct mfb_run *r, const char *output_path)
{
    const char *names[MFB_MAX_VARIANTS];
    size_t nclasses = (size_t)r->modes.by_class.classes.n;
    uint64_t *lo = malloc(nclasses * sizeof *lo), *hi = malloc(nclasses * sizeof *hi);
    for (int v = 0; v < r->config.nvars; v++)
        names[v] = r->config.vars[v].v->name;
    for (int k = 0; lo && hi && k < r->modes.by_class.classes.n; k++) {
        lo[k] = r->modes.by_class.classes.c[k].lo;
        hi[k] = r->modes.by_class.classes.c[k].hi;
    }
    if (lo && hi)
        mfb_summary_print_sweep(out, &r->res.samples, names, r->config.nvars, lo, hi, r->modes.by_class.classes.n,
                                r->config.layout.rotation == MFB_ROTATE_ROUND, output_path);
    free(lo);
    free(hi);
    print_neighbours(out, r, NULL);
}

void mfb_summary_print(FILE *out, const struct mfb_run *r, const char *output_path)
{
    if (r->modes.sweep) {
        print_run_sweep(out, r, output_path);
        return;
    }
    const char *names[MFB_MAX_VARIANTS], *sentinel = NULL;
    for (int v = 0; v < r->config.nvars; v++) {
        names[v] = r->config.vars[v].v->name;
        sentinel = r->config.vars[v].layout_sentinel ? names[v] : sentinel;
    }
    char model[256], shape[256];
    mfb_cpu_model(model, sizeof model);
    snprintf(shape, sizeof shape, "%u rounds (%u warm-up) in %.1f s, stop: %s; batch = %u calls x %u passes; mean "
             "%.1f B/call", r->res.rounds, r->procedure.warmup.rounds, r->res.rounds_s,
             mfb_stop_reason_name(r->procedure.stop.reason),
             mfb_calls_per_pass(&r->procedure.cal), r->procedure.cal.passes, r->procedure.selfcheck.mean_realized);
    struct mfb_summary_view view = {
        .function = mfb_func_name(r->config.study->func), .distribution = r->config.dist->name, .cpu_model = model,
        .clock = r->runtime.timer->name, .shape = shape, .names = names, .nvars = r->config.nvars, .processes = 1,
        .rotating = r->config.layout.rotation == MFB_ROTATE_ROUND, .one_process_note = r->config.study->processes == 1,
        .sentinel = sentinel};
    print_table(out, &r->res.samples, &view, run_neighbours, r, output_path);
}

/* Under a merged table: the threads' slowdown beside each other and the stressors' line. */
static void merged_neighbours(FILE *out, const void *ctx, double *buf)
{
    const struct mfb_samples *all = ((const void *const *)ctx)[0];
    const struct mfb_summary_view *v = ((const void *const *)ctx)[1];
    int threads = 0;
    for (size_t i = 0; i < all->n; i++)
        threads = all->s[i].thread + 1 > threads ? all->s[i].thread + 1 : threads;
    if (threads > 1) {
        fprintf(out, "  %d timing threads; the table is thread 0's batches beside the others. Its slowdown beside "
                     "them (median over every process's rounds of each batch over its alone batch):\n", threads);
        print_slowdowns(out, v->names, v->nvars, all, NULL, buf);
    }
    if (v->background)
        fprintf(out, "  %s\n", v->background);
}

void mfb_summary_print_merged(FILE *out, const struct mfb_samples *all, const struct mfb_summary_view *v,
                              const char *output_path)
{
    size_t measured = 0;
    for (size_t i = 0; i < all->n; i++)
        measured += !all->s[i].warmup && all->s[i].size_class == 0 && mfb_sample_main(&all->s[i]) &&
                    !left_out(v, &all->s[i]);
    int dropped = 0;
    for (int p = 0; v->left_out && p < v->processes; p++)
        dropped += v->left_out[p];
    char more[96] = "";
    if (dropped)
        snprintf(more, sizeof more, " (and %d starved, left out: %s slot ran again)", dropped,
                 dropped == 1 ? "its" : "their");
    char shape[240];
    snprintf(shape, sizeof shape, "%d processes%s, %zu measured batches, %.1f s of rounds in all",
             v->processes - dropped, more, measured, v->rounds_s);
    struct mfb_summary_view with_shape = *v;
    with_shape.shape = shape;
    const void *ctx[2] = {all, &with_shape};
    print_table(out, all, &with_shape, merged_neighbours, ctx, output_path);
}

/* `memfbench analyze` runs the analysis with the interpreter this build found; naming this binary
 * by its full path lets the command work from any folder, whatever is first on PATH. */
void mfb_summary_analysis_command(FILE *out, const char *result_path)
{
    char self[4096];
    fprintf(out, "%s analyze summarize %s\n", mfb_self_command(self, sizeof self), result_path);
}

/* Each source variant's build, one line: whether it was built (and how long that took) or found
 * in the cache, so that a second run can be seen to compile nothing. */
void mfb_summary_print_builds(FILE *out, const struct mfb_run *run)
{
    for (int i = 0; i < run->config.nvars; i++) {
        const struct mfb_source *s = run->config.vars[i].owns_source ? run->config.vars[i].source : NULL;
        if (!s)
            continue;
        /* the user's path and the cache's folder as a message prints paths: one line whatever they hold */
        char path[MFB_MSG_PATH_MAX / 2], dir[MFB_MSG_PATH_MAX / 2];
        mfb_msg_path(s->path, path, sizeof path);
        mfb_msg_path(s->dir, dir, sizeof dir);
        if (s->cached)
            fprintf(out, "memfbench: %s: %s as built before (%s %s), found in the cache in %.3f s: %s\n",
                    run->config.vars[i].v->name, path, s->compiler, s->flags, s->build_s, dir);
        else
            fprintf(out, "memfbench: %s: built %s at %d code placements (%s %s) in %.2f s: %s\n",
                    run->config.vars[i].v->name, path, MFB_CODE_PLACEMENTS, s->compiler, s->flags, s->build_s, dir);
        if (s->pgo && s->pgo->cached)
            fprintf(out, "memfbench: %s: its %s profile (trained on %s, seed 0x%llx) found in the cache: %s\n",
                    run->config.vars[i].v->name, mfb_pgo_family_name(s->pgo->family), s->pgo->train_spec,
                    (unsigned long long)s->pgo->train_seed, s->pgo->profile_file);
        else if (s->pgo)
            fprintf(out, "memfbench: %s: its %s profile trained on %s (%u calls of seed 0x%llx, not the timed calls; "
                    "%llu verified) in %.2f s: %s\n", run->config.vars[i].v->name,
                    mfb_pgo_family_name(s->pgo->family), s->pgo->train_spec, s->pgo->train_calls,
                    (unsigned long long)s->pgo->train_seed, (unsigned long long)s->pgo->verified_calls,
                    s->pgo->train_s, s->pgo->profile_file);
    }
}
