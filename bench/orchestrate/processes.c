#include "orchestrate/processes.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/seeds.h"
#include "base/warn.h"
#include "base/error.h"
#include "base/rng.h"
#include "measure/layout.h"
#include "measure/samples.h"
#include "measure/stoprule.h"
#include "measure/timer.h"
#include "report/columns.h"
#include "report/output.h"
#include "report/summary.h"

/* Options the parent sets itself for each child (with a value each). */
static bool replaced_option(const char *a, bool *takes_value)
{
    static const char *const longs[] = {"--processes", "--output", "--seed", "--time", "--process-index", "--target-ci",
                                        "--placement-seed", "--max-batches", NULL};
    for (int i = 0; longs[i]; i++) {
        size_t n = strlen(longs[i]);
        if (!strncmp(a, longs[i], n) && (a[n] == '\0' || a[n] == '=')) {
            *takes_value = a[n] == '\0';
            return true;
        }
    }
    if (a[0] == '-' && (a[1] == 'o' || a[1] == 's' || a[1] == 't')) {
        *takes_value = a[2] == '\0';
        return true;
    }
    return false;
}

/* The child's environment: the parent's, plus MEMFBENCH_PAD of a random length. The environment
 * strings sit at the top of the stack, so the pad moves the child's initial stack by a different
 * number of bytes in every process: ASLR moves it by whole pages only, which keeps the low 12 bits
 * of every stack address (and their cache-set and aliasing effects) the same in every process. */
static char **padded_environ(uint64_t seed, char *pad, size_t pad_cap)
{
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = calloc(n + 2, sizeof *env);
    if (!env)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "MEMFBENCH_PAD=", 14) != 0)
            env[k++] = environ[i];
    struct mfb_rng r;
    mfb_rng_seed(&r, seed);
    size_t len = (size_t)mfb_rng_below(&r, pad_cap - 15);
    memcpy(pad, "MEMFBENCH_PAD=", 14);
    memset(pad + 14, 'x', len);
    pad[14 + len] = '\0';
    env[k] = pad;
    return env;
}

/* What the parent gives one child besides the user's options. */
struct child_args {
    int index;
    uint64_t seed, placement_seed;
    double time_s;       /* 0: no time limit */
    long batch_passes;   /* 0: the child calibrates */
    long max_batches;    /* its share of --max-batches */
    const char *tmp;     /* its result file */
};

/* Runs a child with its stderr going to errlog (so a failure is reported as one line, the
 * child's own, by the parent). A stop request (SIGINT, SIGTERM, SIGHUP to the parent) is passed
 * on to the child, which ends its rounds and writes what it measured. Returns its exit status
 * (128 + signal when killed by one), or -1 when it could not be started. */
static int spawn(const struct mfb_study *cfg, const struct child_args *ca, FILE *errlog, volatile sig_atomic_t *stop)
{
    /* The parent's arguments, less those it replaces, plus at most 17 of its own and the NULL. */
    char **argv = calloc((size_t)cfg->argc + 20, sizeof *argv);
    if (!argv)
        return -1;
    char seedbuf[32], idx[16], tbuf[32], pbuf[32], plbuf[32], mbbuf[32];
    int i = ca->index;
    uint64_t seed = ca->seed, placement_seed = ca->placement_seed;
    double time_s = ca->time_s;
    long batch_passes = ca->batch_passes;
    const char *tmp = ca->tmp;
    int n = 0;
    argv[n++] = "memfbench";
    argv[n++] = "run";
    for (int k = 1; k < cfg->argc; k++) {
        bool value;
        if (replaced_option(cfg->argv[k], &value)) {
            k += value;
            continue;
        }
        argv[n++] = cfg->argv[k];
    }
    snprintf(seedbuf, sizeof seedbuf, "%llu", (unsigned long long)seed);
    snprintf(idx, sizeof idx, "%d", i);
    argv[n++] = "--seed";
    argv[n++] = seedbuf;
    argv[n++] = "--process-index";
    argv[n++] = idx;
    snprintf(plbuf, sizeof plbuf, "%llu", (unsigned long long)placement_seed);
    argv[n++] = "--placement-seed";
    argv[n++] = plbuf;
    if (time_s > 0) {
        snprintf(tbuf, sizeof tbuf, "%.6f", time_s);
        argv[n++] = "--time";
        argv[n++] = tbuf;
    }
    if (batch_passes > 0) {
        snprintf(pbuf, sizeof pbuf, "%ld", batch_passes);
        argv[n++] = "--batch-passes";
        argv[n++] = pbuf;
    }
    snprintf(mbbuf, sizeof mbbuf, "%ld", ca->max_batches);
    argv[n++] = "--max-batches";
    argv[n++] = mbbuf;
    argv[n++] = "-q";
    argv[n++] = "-o";
    argv[n++] = (char *)tmp;
    char pad[MFB_ENV_PAD_MAX + 16];
    char **env = padded_environ(mfb_stream_seed(seed, MFB_STREAM_ENV_PAD), pad, sizeof pad);
    if (!env) {
        free(argv);
        return -1;
    }
    fflush(errlog);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        /* The child dies with the parent (kill -9 of the parent leaves no orphan measuring on);
         * a parent already gone before prctl took effect is caught by getppid. */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
            _exit(127);
        /* A fresh exec: new address-space layout (when ASLR is on), fresh buffers and calibration. */
        dup2(fileno(errlog), STDERR_FILENO);
        execve("/proc/self/exe", argv, env);
        _exit(127);
    }
    free(argv);
    free(env);
    if (pid < 0)
        return -1;
    int status;
    bool passed_on = false;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR)
            return -1;
        if (*stop && !passed_on) {
            kill(pid, SIGTERM);
            passed_on = true;
        }
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The last non-empty line of f without the "memfbench: " prefix, or "" when there is none. */
static void last_line(FILE *f, char *out, size_t n)
{
    char buf[512];
    out[0] = '\0';
    rewind(f);
    while (fgets(buf, sizeof buf, f)) {
        buf[strcspn(buf, "\n")] = '\0';
        if (buf[0])
            snprintf(out, n, "%s", strncmp(buf, "memfbench: ", 11) ? buf : buf + 11);
    }
}

/* Reads a child's result file whole; NULL (with the reason in err) when it cannot. */
static cJSON *read_doc(const char *path, int i, int k, struct mfb_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        mfb_fail(err, "process %d of %d wrote no readable result", i + 1, k);
        return NULL;
    }
    char *buf = NULL;
    long n = -1;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0)
        buf = malloc((size_t)n + 1);
    size_t got = buf ? fread(buf, 1, (size_t)n, f) : 0;
    fclose(f);
    if (!buf || got != (size_t)n) {
        free(buf);
        mfb_fail(err, "process %d of %d: cannot read its result (%s)", i + 1, k, n < 0 ? "no size" : "out of memory");
        return NULL;
    }
    buf[got] = '\0';
    cJSON *doc = cJSON_Parse(buf);
    free(buf);
    if (!doc)
        mfb_fail(err, "process %d of %d: its result is not JSON", i + 1, k);
    return doc;
}

/* What differs between processes: seeds, layout, clock calibration, code addresses and placements,
 * batch, rounds. */
static cJSON *process_entry(const cJSON *doc, int i)
{
    cJSON *e = cJSON_CreateObject();
    cJSON_AddNumberToObject(e, "index", i);
    const char *keep[] = {"seeds", "layout", "timer", "batch", "rounds", "harness", "status", "placement_check"};
    for (size_t k = 0; k < sizeof keep / sizeof keep[0]; k++)
        cJSON_AddItemToObject(e, keep[k], cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(doc, keep[k]), 1));
    /* --background: each process ran its own stressor, for its own seconds */
    const cJSON *bg = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "config"), "background");
    if (cJSON_IsObject(bg))
        cJSON_AddItemToObject(e, "background", cJSON_Duplicate(bg, 1));
    cJSON *addr = cJSON_AddArrayToObject(e, "variant_addresses");
    cJSON *place = cJSON_AddArrayToObject(e, "variant_placements");
    cJSON *rot = cJSON_AddArrayToObject(e, "variant_rotations"); /* --code-rotation round: per round */
    const cJSON *v;
    cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(doc, "variants")) {
        cJSON_AddItemToArray(addr, cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(v, "address"), 0));
        cJSON_AddItemToArray(place, cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(v, "placement"), 0));
        const cJSON *ps = cJSON_GetObjectItemCaseSensitive(v, "placements");
        cJSON_AddItemToArray(rot, ps ? cJSON_Duplicate(ps, 1) : cJSON_CreateNull());
    }
    return e;
}

static const char *string_at(const cJSON *doc, const char *a, const char *b)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, a), b);
    return cJSON_IsString(x) ? x->valuestring : "?";
}

/* --background: each process's stressor (its processes entry), as one line: seconds summed, the
 * copy rate averaged. */
static bool background_line(const cJSON *doc, char *buf, size_t n)
{
    const cJSON *p, *first = NULL;
    double seconds = 0, rate = 0;
    int k = 0, rated = 0;
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(doc, "processes")) {
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(p, "background");
        if (!cJSON_IsObject(b))
            continue;
        first = first ? first : b;
        seconds += cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(b, "seconds"));
        const cJSON *r = cJSON_GetObjectItemCaseSensitive(b, "bytes_per_ns");
        if (cJSON_IsNumber(r)) {
            rate += r->valuedouble;
            rated++;
        }
        k++;
    }
    if (!first)
        return false;
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(first, "stressor");
    int len = snprintf(buf, n, "background %s on %d CPU%s for %.1f s over %d processes",
                       cJSON_IsString(name) ? name->valuestring : "?",
                       cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(first, "cpus")),
                       cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(first, "cpus")) == 1 ? "" : "s", seconds, k);
    if (rated && len > 0 && (size_t)len < n)
        snprintf(buf + len, n - (size_t)len, ": copied %.2f bytes/ns (mean over processes)", rate / rated);
    return true;
}

/* The end-of-run table for the merged file, from its document and samples. */
static void print_merged_summary(const cJSON *doc, const struct mfb_samples *all, int done, const char *output)
{
    enum mfb_code_rotation rotation = MFB_ROTATE_PROCESS;
    mfb_code_rotation_parse(string_at(doc, "config", "code_rotation"), &rotation);
    bool rotating = rotation == MFB_ROTATE_ROUND;
    const char *names[MFB_MAX_VARIANTS];
    int nvars = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(doc, "variants")) {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(v, "name");
        if (nvars < MFB_MAX_VARIANTS)
            names[nvars++] = cJSON_IsString(name) ? name->valuestring : "?";
    }
    double rounds_s = 0;
    const cJSON *p;
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(doc, "processes")) {
        const cJSON *d = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(p, "rounds"), "duration_s");
        rounds_s += cJSON_IsNumber(d) ? d->valuedouble : 0;
    }
    const cJSON *classes = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "by_class"), "classes");
    if (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(doc, "sweep")) && cJSON_IsArray(classes)) {
        int n = cJSON_GetArraySize(classes), k = 0;
        uint64_t *lo = malloc(((size_t)n + 1) * sizeof *lo), *hi = malloc(((size_t)n + 1) * sizeof *hi);
        const cJSON *c;
        cJSON_ArrayForEach(c, classes) {
            if (!lo || !hi)
                break;
            lo[k] = (uint64_t)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(c, "lo"));
            hi[k] = (uint64_t)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(c, "hi"));
            k++;
        }
        if (lo && hi)
            mfb_summary_print_sweep(stderr, all, names, nvars, lo, hi, k, rotating, output);
        free(lo);
        free(hi);
        return;
    }
    const cJSON *cpu = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "host"), "cpu");
    const cJSON *model = cJSON_GetObjectItemCaseSensitive(cpu, "model");
    char background[200];
    bool stressed = background_line(doc, background, sizeof background);
    struct mfb_merged_view view = {
        .function = string_at(doc, "config", "function"), .distribution = string_at(doc, "config", "distribution"),
        .cpu_model = cJSON_IsString(model) ? model->valuestring : "?", .clock = string_at(doc, "timer", "name"),
        .names = names, .nvars = nvars, .processes = done, .rounds_s = rounds_s,
        .background = stressed ? background : NULL, .rotating = rotating};
    mfb_summary_print_merged(stderr, all, &view, output);
}

/* --target-ci over processes: which variants are compared (all but the baseline and the harness's
 * noop, as in the analysis), from the first process's document. */
static void compared_variants(const cJSON *doc, bool *compared, int *nvars)
{
    int i = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(doc, "variants")) {
        if (i >= MFB_MAX_VARIANTS)
            break;
        const cJSON *o = cJSON_GetObjectItemCaseSensitive(v, "origin");
        compared[i] = i > 0 && !(cJSON_IsString(o) && !strcmp(o->valuestring, "harness"));
        i++;
    }
    *nvars = i;
}

/* The merged document's record of the process-level stop rule. */
static cJSON *target_json(const cJSON *doc, double pct, bool reached, const bool *compared, const double *w,
                          int nvars, int done)
{
    cJSON *tc = cJSON_CreateObject();
    cJSON_AddNumberToObject(tc, "percent", pct);
    cJSON_AddStringToObject(tc, "level", "processes");
    cJSON_AddBoolToObject(tc, "reached", reached);
    cJSON_AddNumberToObject(tc, "processes", done);
    cJSON *hw = cJSON_AddObjectToObject(tc, "half_widths");
    const cJSON *vars = cJSON_GetObjectItemCaseSensitive(doc, "variants");
    for (int v = 1; v < nvars; v++)
        if (compared[v] && isfinite(w[v]))
            cJSON_AddNumberToObject(hw, cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(vars, v), "name")->valuestring,
                                    w[v]);
    return tc;
}

/* A study's processes as they run: their temporary files, their documents (context only, once their
 * samples are merged into `all`) and, with --target-ci, the stop rule's state. */
struct study_run {
    bool targeted;
    int k;                              /* processes at most (k <= MFB_MAX_PROCESSES: the parser refuses more) */
    int done;                           /* processes finished */
    char *tmp[MFB_MAX_PROCESSES];
    cJSON *docs[MFB_MAX_PROCESSES];
    struct mfb_samples all;
    struct mfb_stoprule rule;
    bool compared[MFB_MAX_VARIANTS], reached;
    double widths[MFB_MAX_VARIANTS];
    int nvars;
    enum mfb_stop_reason stop_reason;
    long batch_passes;                  /* 0 for the first process, which calibrates */
    double each;                        /* seconds of rounds per process */
};

/* Runs process i into its temporary file and merges its samples: the child's exit status, or -1
 * with the message in err (a child that failed is named with its last line of stderr). */
static int run_one(const struct mfb_study *cfg, struct study_run *s, int i, uint64_t master_seed,
                   volatile sig_atomic_t *stop, struct mfb_err *err)
{
    const char *target = strcmp(cfg->output, "-") ? cfg->output : "memfbench-stdout.json";
    char what[16];
    snprintf(what, sizeof what, "-proc%d", i);
    if (!(s->tmp[i] = mfb_output_temp(target, what)))
        return mfb_fail(err, "%s: cannot create a temporary file for process %d", target, i);
    if (!cfg->quiet && s->targeted)
        fprintf(stderr, "memfbench: process %d (at least %ld, until +-%g %%)\n", i + 1, cfg->processes,
                cfg->target_ci);
    else if (!cfg->quiet)
        fprintf(stderr, "memfbench: process %d of %d\n", i + 1, s->k);
    FILE *errlog = tmpfile();
    if (!errlog)
        return mfb_fail(err, "cannot create a temporary file for the errors of process %d", i + 1);
    struct child_args ca = {.index = i, .seed = mfb_process_seed(master_seed, i),
                            .placement_seed = mfb_stream_seed(master_seed, MFB_STREAM_CODE), .time_s = s->each,
                            .batch_passes = s->batch_passes, .max_batches = cfg->max_batches / s->k, .tmp = s->tmp[i]};
    int rc = spawn(cfg, &ca, errlog, stop);
    if (rc != MFB_EXIT_OK && rc != MFB_EXIT_INTERRUPTED) {
        char line[512], why[64];
        last_line(errlog, line, sizeof line);
        fclose(errlog);
        if (rc > 128)
            snprintf(why, sizeof why, "killed by signal %d (%s)", rc - 128, strsignal(rc - 128));
        else
            snprintf(why, sizeof why, "exit status %d without a message", rc);
        return mfb_fail(err, "process %d of %d failed: %s", i + 1, s->targeted ? s->done + 1 : s->k,
                        line[0] ? line : why);
    }
    fclose(errlog);
    if (!(s->docs[i] = read_doc(s->tmp[i], i, s->k, err)))
        return -1;
    char where[64];
    snprintf(where, sizeof where, "process %d of %d", i + 1, s->k);
    if (mfb_columns_read(cJSON_GetObjectItemCaseSensitive(s->docs[i], "samples"), &s->all, i, where, err) < 0)
        return -1;
    /* Its samples are merged: keep only the context (memory stays at one copy of the batches). */
    cJSON_DeleteItemFromObjectCaseSensitive(s->docs[i], "samples");
    /* Every process times batches of the shape the first one calibrated: process-level
     * replicates then differ by layout, not by batch length. */
    if (i == 0 && !cfg->batch_passes)
        s->batch_passes = (long)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(s->docs[0], "batch"), "passes"));
    s->done++;
    return rc;
}

/* --target-ci after each process: whether to stop (s->stop_reason says why), -1 on error. */
static int target_reached(const struct mfb_study *cfg, struct study_run *s, uint64_t t0, struct mfb_err *err)
{
    if (s->done == 1)
        compared_variants(s->docs[0], s->compared, &s->nvars);
    if (mfb_stoprule_processes(&s->rule, &s->all, s->nvars, s->compared, cfg->code_rotation == MFB_ROTATE_ROUND,
                               cfg->target_ci, s->widths, &s->reached, err) < 0)
        return -1;
    double elapsed = (double)(mfb_mono_ns() - t0) / 1e9;
    if (s->done >= cfg->processes && s->reached)
        s->stop_reason = MFB_STOP_TARGET_CI;
    else if (s->done >= cfg->processes && cfg->time_s > 0 && elapsed + elapsed / s->done > cfg->time_s)
        s->stop_reason = MFB_STOP_TIME;
    else if (s->done == s->k)
        s->stop_reason = MFB_STOP_PROCESSES;
    return s->stop_reason == MFB_STOP_TARGET_CI || s->stop_reason == MFB_STOP_TIME;
}

/* --target-ci in the merged status: the stop reason, the widths reached, a warning if short. */
static void target_status(const struct mfb_study *cfg, const struct study_run *s, cJSON *doc, cJSON *st)
{
    cJSON_ReplaceItemInObjectCaseSensitive(st, "stop_reason", cJSON_CreateString(mfb_stop_reason_name(s->stop_reason)));
    cJSON_DeleteItemFromObjectCaseSensitive(st, "target_ci");
    cJSON_AddItemToObject(st, "target_ci", target_json(doc, cfg->target_ci, s->reached, s->compared, s->widths,
                                                        s->nvars, s->done));
    if (s->reached)
        return;
    char msg[160];
    snprintf(msg, sizeof msg, "stopped by %s after %d processes before every process-level interval reached "
             "+-%.2f %%", mfb_stop_reason_name(s->stop_reason), s->done, cfg->target_ci);
    cJSON *w = cJSON_CreateObject();
    cJSON_AddStringToObject(w, "code", "target_ci");
    cJSON_AddStringToObject(w, "message", msg);
    cJSON_AddStringToObject(w, "severity", "warning");
    cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(st, "warnings"), w);
}

/* The merged document, built on process 0's (taken out of s): the study's command line, process
 * count, budget and master seed, every process's entry, and whether the study is complete. */
static cJSON *merged_document(const struct mfb_study *cfg, struct study_run *s, uint64_t master_seed, bool *complete)
{
    cJSON *doc = s->docs[0];
    s->docs[0] = NULL;
    cJSON *c = cJSON_GetObjectItemCaseSensitive(doc, "config");
    cJSON_ReplaceItemInObjectCaseSensitive(c, "processes", cJSON_CreateNumber(s->targeted ? s->done : s->k));
    cJSON_ReplaceItemInObjectCaseSensitive(c, "time_budget_s", cfg->time_s > 0 ? cJSON_CreateNumber(cfg->time_s)
                                                                               : cJSON_CreateNull());
    cJSON *argv = cJSON_CreateArray();
    for (int i = 0; i < cfg->argc; i++)
        cJSON_AddItemToArray(argv, cJSON_CreateString(cfg->argv[i]));
    cJSON_ReplaceItemInObjectCaseSensitive(doc, "command_line", argv);
    cJSON *procs = cJSON_CreateArray();
    *complete = s->done == s->k || (s->targeted && s->stop_reason != MFB_STOP_NONE);
    for (int i = 0; i < s->done; i++) {
        cJSON *d = i == 0 ? doc : s->docs[i];
        cJSON_AddItemToArray(procs, process_entry(d, i));
        const cJSON *st = cJSON_GetObjectItemCaseSensitive(d, "status");
        *complete = *complete && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(st, "complete"));
    }
    cJSON_AddItemToObject(doc, "processes", procs);
    cJSON *seeds = cJSON_GetObjectItemCaseSensitive(doc, "seeds");
    char buf[32];
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)master_seed);
    cJSON_ReplaceItemInObjectCaseSensitive(seeds, "master", cJSON_CreateString(buf));
    cJSON_ReplaceItemInObjectCaseSensitive(seeds, "source", cJSON_CreateString(
        cfg->seed_given ? "given; process i uses seed derive(master, 1000 + i), see processes[]"
                        : "fresh (getrandom); process i uses seed derive(master, 1000 + i), see processes[]"));
    cJSON *st = cJSON_GetObjectItemCaseSensitive(doc, "status");
    cJSON_ReplaceItemInObjectCaseSensitive(st, "complete", cJSON_CreateBool(*complete));
    if (!*complete)
        cJSON_ReplaceItemInObjectCaseSensitive(st, "stop_reason", cJSON_CreateString("interrupted"));
    else if (s->targeted)
        target_status(cfg, s, doc, st);
    return doc;
}

/* The merged warnings on stderr, as one run prints its own: notes and --quiet-warnings codes stay
 * in the file. */
static void print_warnings(const struct mfb_study *cfg, const cJSON *doc)
{
    const cJSON *w;
    cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "status"), "warnings")) {
        const cJSON *sev = cJSON_GetObjectItemCaseSensitive(w, "severity");
        const cJSON *code = cJSON_GetObjectItemCaseSensitive(w, "code");
        if (cJSON_IsString(code) && mfb_warning_silenced(cfg->quiet_warnings, code->valuestring))
            continue;
        if (!cJSON_IsString(sev) || strcmp(sev->valuestring, "note") != 0)
            fprintf(stderr, "memfbench: warning: %s\n", cJSON_GetObjectItemCaseSensitive(w, "message")->valuestring);
    }
}

int mfb_run_processes(const struct mfb_study *cfg, struct mfb_output *out, uint64_t master_seed,
                      volatile sig_atomic_t *stop, struct mfb_err *err)
{
    /* With --target-ci, cfg->processes is the minimum: processes are added one at a time, each
     * with a default study's share of time, until every process-level interval is within the
     * target, the time budget is spent or MFB_MAX_PROCESSES have run. */
    struct study_run s = {.targeted = cfg->target_ci > 0};
    s.k = s.targeted ? MFB_MAX_PROCESSES : (int)cfg->processes;
    s.each = s.targeted ? MFB_DEFAULT_TIME_S / MFB_DEFAULT_PROCESSES : cfg->time_s > 0 ? cfg->time_s / s.k : 0;
    int status = MFB_EXIT_FAIL;
    uint64_t t0 = mfb_mono_ns();
    for (int i = 0; i < s.k && !*stop; i++) {
        int rc = run_one(cfg, &s, i, master_seed, stop, err);
        if (rc < 0)
            goto cleanup;
        if (rc == MFB_EXIT_INTERRUPTED)
            break;
        int reached = s.targeted ? target_reached(cfg, &s, t0, err) : 0;
        if (reached < 0)
            goto cleanup;
        if (reached)
            break;
    }
    if (s.done == 0) {
        mfb_fail(err, "interrupted before the first process finished");
        goto cleanup;
    }
    bool complete;
    cJSON *doc = merged_document(cfg, &s, master_seed, &complete);
    if (!cfg->quiet)
        print_warnings(cfg, doc);
    if (mfb_output_commit(out, doc, &s.all, err) == 0) {
        status = complete ? MFB_EXIT_OK : MFB_EXIT_INTERRUPTED;
        if (!cfg->quiet) {
            fprintf(stderr, "memfbench: merged %d process%s into %s\n", s.done, s.done == 1 ? "" : "es", cfg->output);
            print_merged_summary(doc, &s.all, s.done, cfg->output);
        }
    }
    cJSON_Delete(doc);
cleanup:
    mfb_stoprule_free(&s.rule);
    for (int i = 0; i < s.k; i++) {
        if (s.tmp[i]) {
            unlink(s.tmp[i]);
            free(s.tmp[i]);
        }
        cJSON_Delete(s.docs[i]);
    }
    mfb_samples_free(&s.all);
    return status;
}
