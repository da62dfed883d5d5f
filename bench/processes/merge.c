#include "processes/merge.h"

#include "study/options.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/quantile.h"
#include "base/warn.h"
#include "report/document.h"
#include "report/summary.h"

/* A section's field that the merge writes itself. */
struct field {
    const char *key;
    cJSON *value;
};

/* A copy of a shared section with the given fields written over (in the section's order; a field
 * the section lacks comes last). */
static cJSON *section_with(const cJSON *shared, struct field *fields, int n)
{
    cJSON *s = cJSON_CreateObject();
    const cJSON *x;
    cJSON_ArrayForEach(x, shared) {
        cJSON *own = NULL;
        for (int f = 0; f < n && !own; f++)
            if (fields[f].value && !strcmp(fields[f].key, x->string)) {
                own = fields[f].value;
                fields[f].value = NULL;
            }
        cJSON_AddItemToObject(s, x->string, own ? own : cJSON_Duplicate(x, 1));
    }
    for (int f = 0; f < n; f++)
        if (fields[f].value)
            cJSON_AddItemToObject(s, fields[f].key, fields[f].value);
    return s;
}

bool mfb_merge_complete(const struct mfb_child_result *results, const struct mfb_merge_end *end)
{
    bool complete = end->done == end->planned || (end->targeted && end->stop_reason != MFB_STOP_NONE);
    for (int i = 0; i < end->done; i++)
        complete = complete && results[i].complete;
    return complete;
}

/* The merged document's record of the process-level stop rule. */
static cJSON *target_json(const struct mfb_child_result *r0, double pct, const struct mfb_merge_end *end)
{
    cJSON *tc = cJSON_CreateObject();
    cJSON_AddNumberToObject(tc, "percent", pct);
    cJSON_AddStringToObject(tc, "level", "processes");
    cJSON_AddBoolToObject(tc, "reached", end->reached);
    cJSON_AddNumberToObject(tc, "processes", end->done);
    cJSON *hw = cJSON_AddObjectToObject(tc, "half_widths");
    for (int v = 1; v < r0->nvars; v++)
        if (end->compared[v] && isfinite(end->widths[v]))
            cJSON_AddNumberToObject(hw, r0->names[v], end->widths[v]);
    return tc;
}

/* Whether two warnings of one kind speak of the same subject: the same text up to the first
 * figure (a variant's name comes before what was measured of it, which differs per process). */
static bool same_subject(const char *a, const char *b)
{
    size_t n = strcspn(a, "0123456789");
    return n == strcspn(b, "0123456789") && !strncmp(a, b, n);
}

/* The batch shape's linearity, judged for the study: per variant, the median over processes of each
 * process's figure (itself a median of tries: measure/calibrate.c), against the tolerance they used.
 * A process of a study does not warn of its own figure, which crosses the tolerance by chance far
 * more often than the study's median does. */
static void linearity_warnings(const struct mfb_child_result *results, int done, struct mfb_warnings *out)
{
    double tol = done > 0 ? results[0].linearity_tolerance : 0;
    for (int v = 0; tol > 0 && v < results[0].nvars; v++) {
        double x[MFB_MAX_PROCESSES];
        int n = 0, beyond = 0;
        for (int i = 0; i < done && i < MFB_MAX_PROCESSES; i++) {
            if (v >= results[i].nvars || isnan(results[i].linearity[v]))
                continue;
            beyond += fabs(results[i].linearity[v] - 1) > tol;
            x[n++] = results[i].linearity[v];
        }
        double med = n ? mfb_quantile_median(x, (size_t)n) : 1;
        if (fabs(med - 1) <= tol)
            continue;
        char found[512], line[1536];
        snprintf(found, sizeof found, "variant '%s': a batch twice as long took %.3f x twice the time, the median "
                 "over %d processes (%d of them beyond the tolerance of %.0f %% on their own)", results[0].names[v],
                 med, n, beyond, 100 * tol);
        mfb_warning_line(MFB_W_LINEARITY, found, line, sizeof line);
        mfb_warnings_add(out, MFB_W_LINEARITY, line, 0);
    }
}

void mfb_merge_warnings(const struct mfb_study *cfg, const struct mfb_child_result *results,
                        const struct mfb_merge_end *end, struct mfb_warnings *out)
{
    int done = end->done;
    *out = (struct mfb_warnings){0};
    bool other[MFB_W_COUNT] = {false}; /* per kind: a process said it of something else (another variant) */
    for (int i = 0; i < done; i++) {
        const struct mfb_warnings *w = &results[i].warnings;
        bool counted[MFB_W_COUNT] = {false}; /* a process counts once per kind, however often it warned */
        for (int j = 0; j < w->n; j++) {
            int k = 0;
            while (k < out->n && out->kind[k] != w->kind[j])
                k++;
            if (k == out->n && mfb_warnings_add(out, w->kind[j], w->msg[j], 0) < 0)
                continue; /* one per kind: the list holds every kind, so only memory can refuse */
            if (!counted[w->kind[j]])
                out->processes[k]++;
            counted[w->kind[j]] = true;
            other[w->kind[j]] |= strcmp(out->msg[k], w->msg[j]) != 0 && !same_subject(out->msg[k], w->msg[j]);
        }
    }
    /* a kind said of several subjects keeps the first one's words: say that there are more */
    for (int k = 0; k < out->n; k++)
        out->others[k] = other[out->kind[k]];
    for (int k = 0; done <= 1 && k < out->n; k++)
        out->processes[k] = 0; /* one process: the run's own list */
    linearity_warnings(results, done, out);
    if (mfb_merge_complete(results, end) && end->targeted && !end->reached) {
        char msg[160];
        snprintf(msg, sizeof msg, "stopped by %s after %d processes before every process-level interval reached "
                 "+-%.2f %%", mfb_stop_reason_name(end->stop_reason), done, cfg->target_ci);
        mfb_warnings_add(out, MFB_W_TARGET_CI, msg, 0);
    }
}

/* The merged status: complete or not, why it stopped, every process's warnings and, with
 * --target-ci, the widths reached (a warning when short of the target). */
static cJSON *merged_status(const struct mfb_study *cfg, const struct mfb_child_result *results, const cJSON *shared,
                            const struct mfb_merge_end *end, bool complete)
{
    const struct mfb_child_result *r0 = &results[0];
    enum mfb_stop_reason reason = !complete ? MFB_STOP_INTERRUPTED : end->targeted ? end->stop_reason
                                                                                  : r0->stop_reason;
    struct mfb_warnings warnings;
    mfb_merge_warnings(cfg, results, end, &warnings);
    struct field fields[] = {{"complete", cJSON_CreateBool(complete)},
                             {"stop_reason", cJSON_CreateString(mfb_stop_reason_name(reason))},
                             {"warnings", mfb_warnings_json(&warnings)},
                             {"target_ci", complete && end->targeted ? target_json(r0, cfg->target_ci, end) : NULL}};
    mfb_warnings_free(&warnings);
    return section_with(shared, fields, sizeof fields / sizeof fields[0]);
}

/* The variants block with each source variant's build as the study made it: the parent built it
 * (or found it) before any process ran, and every process then found it in the cache. */
static cJSON *variants_as_built(const cJSON *shared, const struct mfb_run *assembled)
{
    cJSON *vars = cJSON_CreateArray();
    const cJSON *v;
    cJSON_ArrayForEach(v, shared) {
        const cJSON *build = cJSON_GetObjectItemCaseSensitive(v, "build");
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(v, "name");
        const struct mfb_source *src = NULL;
        for (int i = 0; build && assembled && cJSON_IsString(name) && i < assembled->config.nvars; i++)
            if (assembled->config.vars[i].source && !strcmp(assembled->config.vars[i].v->name, name->valuestring))
                src = assembled->config.vars[i].source;
        if (!src) {
            cJSON_AddItemToArray(vars, cJSON_Duplicate(v, 1));
            continue;
        }
        struct field made[] = {{"cached", cJSON_CreateBool(src->cached)},
                               {"seconds", cJSON_CreateNumber(src->build_s)}};
        struct field with[] = {{"build", section_with(build, made, 2)}};
        cJSON_AddItemToArray(vars, section_with(v, with, 1));
    }
    return vars;
}

/* config as a single run writes it: the request echoed by the option rows from the parent's study
 * (the processes it ran, the time and batches over all of them), then what process 0 resolved. */
static cJSON *merged_config(const struct mfb_study *cfg, const cJSON *child_config, const struct mfb_merge_end *end)
{
    struct mfb_study study = *cfg;
    /* the processes the study asked for (kept ones): a starved slot's re-run stands in for its first
     * run, which processes[] keeps marked dropped, so neither is one more */
    study.processes = end->targeted ? end->done : end->planned - end->reruns;
    cJSON *own = cJSON_CreateObject();
    mfb_study_echo(own, &study);
    const cJSON *x;
    cJSON_ArrayForEach(x, child_config)
        if (!cJSON_HasObjectItem(own, x->string))
            cJSON_AddItemToObject(own, x->string, cJSON_Duplicate(x, 1));
    return own;
}

cJSON *mfb_merge_document(const struct mfb_study *cfg, const struct mfb_child_result *results,
                          const struct mfb_merge_end *end, uint64_t master_seed)
{
    const struct mfb_child_result *r0 = &results[0];
    bool complete = mfb_merge_complete(results, end);
    char seed[32];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)master_seed);
    cJSON *doc = cJSON_CreateObject();
    const cJSON *x;
    cJSON_ArrayForEach(x, r0->sections) {
        cJSON *own;
        if (!strcmp(x->string, "processes")) {
            continue; /* a child's file has none; a merged file read back has its own, rebuilt below */
        } else if (!strcmp(x->string, "command_line")) {
            own = mfb_command_line_json(cfg);
        } else if (!strcmp(x->string, "variants")) {
            own = variants_as_built(x, end->assembled);
        } else if (!strcmp(x->string, "status")) {
            own = merged_status(cfg, results, x, end, complete);
        } else if (!strcmp(x->string, "host")) {
            own = mfb_host_json(r0->host); /* process 0's, by the serializer a single run uses */
        } else if (!strcmp(x->string, "config")) {
            own = merged_config(cfg, x, end);
        } else if (!strcmp(x->string, "seeds")) {
            struct field f[] = {
                {"master", cJSON_CreateString(seed)},
                {"source", cJSON_CreateString(cfg->seed_given
                    ? "given; process i uses seed derive(master, 1000 + i), see processes[]"
                    : "fresh (getrandom); process i uses seed derive(master, 1000 + i), see processes[]")}};
            own = section_with(x, f, 2);
        } else {
            own = cJSON_Duplicate(x, 1);
        }
        cJSON_AddItemToObject(doc, x->string, own);
    }
    cJSON *procs = cJSON_AddArrayToObject(doc, "processes");
    for (int i = 0; i < end->done; i++) {
        cJSON *e = cJSON_Duplicate(results[i].entry, 1);
        /* the parent's own marks (processes.c): a process whose slot it ran again, and the one that did */
        if (e && results[i].dropped[0]) {
            cJSON *d = cJSON_AddObjectToObject(e, "dropped");
            cJSON_AddStringToObject(d, "reason", results[i].dropped);
        }
        if (e && results[i].rerun_of >= 0)
            cJSON_AddNumberToObject(e, "rerun_of", results[i].rerun_of);
        /* and what the process cost as the parent saw it: its setup's stages are the child's own,
         * which cannot time its exec, its exit or the parent's reading of its file */
        cJSON *setup = e ? cJSON_GetObjectItemCaseSensitive(e, "setup") : NULL;
        if (cJSON_IsObject(setup)) {
            cJSON_AddNumberToObject(setup, "lifetime_s", results[i].lifetime_s);
            cJSON_AddNumberToObject(setup, "merge_s", results[i].merge_s);
        }
        cJSON_AddItemToArray(procs, e);
    }
    return doc;
}

/* --background: each process's stressor as one line: seconds summed, the copy rate averaged. */
static bool background_line(const struct mfb_child_result *results, int done, char *buf, size_t n)
{
    const struct mfb_child_background *first = NULL;
    double seconds = 0, rate = 0;
    int k = 0, rated = 0;
    for (int i = 0; i < done; i++) {
        if (!results[i].has_background)
            continue;
        const struct mfb_child_background *b = &results[i].background;
        first = first ? first : b;
        seconds += b->seconds;
        rate += b->rated ? b->bytes_per_ns : 0;
        rated += b->rated;
        k++;
    }
    if (!first)
        return false;
    int len = snprintf(buf, n, "background %s on %d CPU%s for %.1f s over %d processes", first->stressor, first->cpus,
                       first->cpus == 1 ? "" : "s", seconds, k);
    if (rated && len > 0 && (size_t)len < n)
        snprintf(buf + len, n - (size_t)len, ": copied %.2f bytes/ns (mean over processes)", rate / rated);
    return true;
}

void mfb_merge_print_summary(const struct mfb_child_result *results, int done, const struct mfb_samples *all,
                             const char *output)
{
    const struct mfb_child_result *r0 = &results[0];
    bool rotating = r0->rotation == MFB_ROTATE_ROUND;
    const char *const *names = (const char *const *)r0->names;
    if (r0->sweep && r0->nclasses > 0) {
        mfb_summary_print_sweep(stderr, all, names, r0->nvars, r0->class_lo, r0->class_hi, r0->nclasses, rotating,
                                output);
        return;
    }
    double rounds_s = 0;
    for (int i = 0; i < done; i++)
        rounds_s += results[i].rounds_s;
    char background[200];
    bool stressed = background_line(results, done, background, sizeof background);
    bool left_out[MFB_MAX_PROCESSES] = {false}; /* a starved process whose slot ran again: as the analysis does */
    for (int i = 0; i < done && i < MFB_MAX_PROCESSES; i++)
        left_out[i] = results[i].dropped[0] != '\0';
    struct mfb_summary_view view = {
        .function = r0->function, .distribution = r0->distribution, .cpu_model = r0->host->cpu.model.text,
        .clock = r0->clock,
        .names = names, .nvars = r0->nvars, .processes = done, .rounds_s = rounds_s,
        .background = stressed ? background : NULL, .rotating = rotating,
        .sentinel = r0->sentinel >= 0 ? names[r0->sentinel] : NULL, .left_out = left_out};
    mfb_summary_print_merged(stderr, all, &view, output);
}
