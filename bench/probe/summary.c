#include "probe/summary.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

static const char *human(size_t bytes, char *buf, size_t n)
{
    return mfb_probe_human((double)bytes, buf, n);
}

static void print_levels(FILE *out, const struct mfb_probe_result *r)
{
    const struct mfb_lat_curve *c = &r->lat[r->levels_curve];
    const char *names[] = {"L1d", "L2"};
    size_t sys[] = {r->caches.l1d, r->caches.l2};
    double ghz = r->clock.known ? r->clock.ghz : 0;
    fprintf(out, "levels found in the %s chain on %s pages%s%s (best repeats; sizes reported by %s):\n",
            mfb_chase_name(c->chase), mfb_pages_name(c->pages), r->levels_also >= 0 ? " and " : "",
            r->levels_also >= 0 ? mfb_pages_name(r->lat[r->levels_also].pages) : "",
            mfb_cache_source_name(r->caches.source));
    fprintf(out, "  %-8s %12s %26s %12s %10s %8s\n", "level", "reported", "latency rises between", "estimate",
            "ns/load", "cycles");
    for (int i = 0; i < r->levels.nplateaus; i++) {
        const struct mfb_plateau *p = &r->levels.plateaus[i];
        char a[32], b[32], e[32], s[32], range[64], cyc[32];
        const struct mfb_boundary *bd = i < r->levels.nboundaries ? &r->levels.boundaries[i] : NULL;
        /* the first two are the L1d and the L2; a third rise may be the LLC's or the TLB's reach
         * (docs/probe.md), so later levels are numbered */
        char numbered[24];
        snprintf(numbered, sizeof numbered, "level %d", i + 1);
        const char *name = i < 2 ? names[i] : numbered;
        /* the last plateau is memory only if the curve went past the reported LLC */
        if (i == r->levels.nplateaus - 1 && !bd && i > 0 && c->points[c->npoints - 1].size > r->caches.llc)
            name = "memory";
        snprintf(range, sizeof range, "%s and %s", bd ? human(bd->below, a, sizeof a) : "-",
                 bd ? human(bd->above, b, sizeof b) : "-");
        snprintf(cyc, sizeof cyc, ghz > 0 ? "%.1f" : "-", p->ns * ghz);
        fprintf(out, "  %-8s %12s %26s %12s %10.2f %8s\n", name, i < 2 ? human(sys[i], s, sizeof s) : "-",
                bd ? range : "-", bd ? human((size_t)bd->estimate, e, sizeof e) : "-", p->ns, cyc);
    }
}

/* The curve's median at the point nearest (in log size) to bytes. */
static double at_size(const struct mfb_bw_curve *c, size_t bytes, size_t *where)
{
    double best = INFINITY, v = NAN;
    for (size_t k = 0; k < c->npoints; k++) {
        double d = fabs(log2((double)c->points[k].size / (double)bytes));
        if (d < best) {
            double lo, hi;
            best = d;
            mfb_probe_point_stats(&c->points[k], &v, &lo, &hi);
            *where = c->points[k].size;
        }
    }
    return v;
}

/* How far a level's bandwidth may fall below the next level out's before the table is flagged:
 * points a few percent apart are noise even on a quiet machine. */
#define BW_ORDER_SLACK 0.9

static void print_bandwidth(FILE *out, const struct mfb_probe_config *cfg, const struct mfb_probe_result *r)
{
    if (r->nbw == 0 || r->bw[0].npoints == 0)
        return;
    /* One size well inside each level (half of it: found, else reported), and the largest. */
    const struct mfb_caches *c = r->found ? &r->caches_found : &r->caches;
    size_t want[] = {c->l1d / 2, c->l2 / 2, c->llc / 2, r->bw[0].points[r->bw[0].npoints - 1].size};
    const char *label[] = {"L1d/2", "L2/2", "LLC/2", "largest"};
    fprintf(out, "bandwidth, GB/s (bytes moved once; %s, %d thread%s, %s pages):\n", mfb_vector_name(r->vector),
            cfg->threads, cfg->threads > 1 ? "s" : "", mfb_pages_name(r->bw_pages));
    fprintf(out, "  %-8s %10s", "size", "");
    for (int i = 0; i < r->nbw; i++)
        fprintf(out, " %10s", mfb_stream_kernel_name(r->bw[i].kernel));
    fprintf(out, "\n");
    double seen[4][MFB_STREAM_KERNEL_COUNT];
    for (int s = 0; s < 4; s++) {
        size_t where = 0;
        char h[32];
        at_size(&r->bw[0], want[s], &where);
        fprintf(out, "  %-8s %10s", label[s], human(where, h, sizeof h));
        for (int i = 0; i < r->nbw; i++) {
            size_t w2 = 0;
            double v = at_size(&r->bw[i], where, &w2);
            seen[s][i < MFB_STREAM_KERNEL_COUNT ? i : 0] = w2 == where ? v : NAN;
            if (w2 == where && isfinite(v))
                fprintf(out, " %10.1f", v);
            else
                fprintf(out, " %10s", "-");
        }
        fprintf(out, "\n");
    }
    /* A level nearer the core is never slower than one further out: where the table says so, its
     * points were too short or too few to hold (--quick), or the machine was busy while they ran. */
    for (int i = 0; i < r->nbw && i < MFB_STREAM_KERNEL_COUNT; i++)
        for (int s = 0; s + 1 < 4; s++)
            if (isfinite(seen[s][i]) && isfinite(seen[s + 1][i]) && seen[s][i] < BW_ORDER_SLACK * seen[s + 1][i]) {
                fprintf(out, "  note: %s at %s (%.1f GB/s) is below %s (%.1f GB/s), which a level nearer the core "
                             "never is: these points are too short%s or the machine was busy; re-run %son a quiet "
                             "machine before trusting them\n", mfb_stream_kernel_name(r->bw[i].kernel), label[s],
                        seen[s][i], label[s + 1], seen[s + 1][i], cfg->quick ? " (--quick)" : "",
                        cfg->quick ? "without --quick " : "");
                break;
            }
}

/* A curve's step for one level, with its distance from the reference: "47.1 KiB -2 %". */
static const char *view_text(const struct mfb_xc_level *l, const struct mfb_xc_view *v, char *buf, size_t n)
{
    char h[32];
    if (!v->measured)
        snprintf(buf, n, "(no curve)");
    else if (v->step < 0)
        snprintf(buf, n, v->reaches ? "no step" : "not reached");
    else if (l->reference)
        snprintf(buf, n, "%s %+.0f %%", mfb_probe_human(v->at, h, sizeof h), (v->at / (double)l->reference - 1) * 100);
    else
        snprintf(buf, n, "%s", mfb_probe_human(v->at, h, sizeof h));
    return buf;
}

/* Each level against the reported size: both curves' steps, the verdict, the size kept; then,
 * for each level not in agreement, the sentence saying which curve contradicts and why. */
static void print_crosscheck(FILE *out, const struct mfb_crosscheck *x)
{
    fprintf(out, "cross-check against %s (a step within %.0f %% agrees):\n", mfb_cache_source_name(x->source),
            x->tolerance * 100);
    fprintf(out, "  %-5s %10s %18s %18s %12s %-15s %s\n", "level", "reported", "latency step", "read bw step",
            "kept", "from", "verdict");
    for (int i = 0; i < MFB_XC_NLEVELS; i++) {
        const struct mfb_xc_level *l = &x->level[i];
        char r[32], a[48], b[48], k[32];
        fprintf(out, "  %-5s %10s %18s %18s %12s %-15s %s\n", mfb_xc_level_name(l->id),
                human(l->reference, r, sizeof r), view_text(l, &l->view[MFB_XC_LATENCY], a, sizeof a),
                view_text(l, &l->view[MFB_XC_BANDWIDTH], b, sizeof b), human(l->kept, k, sizeof k),
                mfb_xc_kept_from(x, l), mfb_xc_verdict_name(l->verdict));
    }
    for (int i = 0; i < MFB_XC_NLEVELS; i++) {
        const struct mfb_xc_level *l = &x->level[i];
        if (l->verdict == MFB_XC_AGREES)
            continue;
        char why[768];
        mfb_xc_explain(x, l, why, sizeof why);
        fprintf(out, "  %s: %s\n", mfb_xc_level_name(l->id), why);
    }
}

static bool not_reached(const struct mfb_crosscheck *x)
{
    for (int i = 0; i < MFB_XC_NLEVELS; i++)
        if (x->level[i].verdict == MFB_XC_NOT_REACHED)
            return true;
    return false;
}

void mfb_probe_summary_print(FILE *out, const struct mfb_probe_config *cfg, const struct mfb_probe_result *r)
{
    if (r->clock.known)
        fprintf(out, "core clock %.2f GHz (%.2f-%.2f, dependent adds)\n", r->clock.ghz, r->clock.ghz_min, r->clock.ghz_max);
    if (r->levels_curve >= 0)
        print_levels(out, r);
    else if (cfg->latency)
        fprintf(out, "levels: no latency curve to find them in\n");
    if (r->bw_levels_curve >= 0 && r->bw_levels.nboundaries > 0) {
        fprintf(out, "read bandwidth drops past:");
        for (int i = 0; i < r->bw_levels.nboundaries; i++) {
            char h[32];
            fprintf(out, " %s", human((size_t)r->bw_levels.boundaries[i].estimate, h, sizeof h));
        }
        fprintf(out, "\n");
    }
    if (r->xc.done)
        print_crosscheck(out, &r->xc);
    if (r->found) {
        char a[32], b[32], e[32];
        const struct mfb_xc_level *l = r->xc.level;
        fprintf(out, "caches found (run --cache-from): L1d %s (%s), L2 %s (%s), LLC %s (%s)\n",
                human(r->caches_found.l1d, a, sizeof a), mfb_xc_kept_from(&r->xc, &l[MFB_XC_L1D]),
                human(r->caches_found.l2, b, sizeof b), mfb_xc_kept_from(&r->xc, &l[MFB_XC_L2]),
                human(r->caches_found.llc, e, sizeof e), mfb_xc_kept_from(&r->xc, &l[MFB_XC_LLC]));
    } else if (cfg->latency) {
        fprintf(out, "caches found: none (%s): --cache-from refuses this file\n",
                r->interrupted ? "interrupted"
                : r->levels_curve < 0 ? "no latency curve"
                : not_reached(&r->xc) ? "a level is beyond the curves' largest size"
                                      : "the sizes kept are not ordered l1d < l2 <= llc");
    }
    if (cfg->bandwidth)
        print_bandwidth(out, cfg, r);
}
