#include "processes/processes.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/environ.h"
#include "base/seeds.h"
#include "base/warn.h"
#include "base/error.h"
#include "base/rng.h"
#include "machine/layout.h"
#include "measure/samples.h"
#include "measure/stoprule.h"
#include "machine/timer.h"
#include "processes/child.h"
#include "processes/merge.h"
#include "programs/reply.h"
#include "programs/run.h"
#include "programs/stop.h"
#include "study/options.h"
#include "report/output.h"
#include "files/temporaries.h"

/* The child's environment: the parent's, plus MEMFBENCH_PAD of a random length. The environment
 * strings sit at the top of the stack, so the pad moves the child's initial stack by a different
 * number of bytes in every process: ASLR moves it by whole pages only, which keeps the low 12 bits
 * of every stack address (and their cache-set and aliasing effects) the same in every process. */
static char **padded_environ(uint64_t seed, char *pad, size_t pad_cap)
{
    struct mfb_rng r;
    mfb_rng_seed(&r, seed);
    size_t len = (size_t)mfb_rng_below(&r, pad_cap - 15);
    memcpy(pad, "MEMFBENCH_PAD=", 14);
    memset(pad + 14, 'x', len);
    pad[14 + len] = '\0';
    return mfb_environ_with(&pad, 1);
}

/* What the parent gives one child besides the user's options. */
struct child_args {
    int index;           /* its process index in the file (a re-run's comes after the study's) */
    int slot;            /* the design slot it runs: its code placements (machine/layout.c), its seed */
    uint64_t seed, code_placement_seed;
    double time_s;       /* 0: no time limit */
    long batch_passes;   /* 0: the child calibrates */
    double timer_hz;     /* 0: the child calibrates its clock's rate */
    long max_batches;    /* its share of --max-batches */
    const char *tmp;     /* its result file */
};

/* Runs one child (programs/run.h: this binary again, its own process group, a stop request passed
 * on to it, which ends its rounds and writes what it measured), its stderr kept and its reply read:
 * 0 with *o and *r filled (r->status FAILED with the reason when the child ended without a reply),
 * -1 with err when it could not be run at all. */
static int spawn(const struct mfb_study *cfg, const struct child_args *ca, struct mfb_prog_outcome *o,
                 struct mfb_reply *r, struct mfb_err *err)
{
    /* The child's study: the parent's, with what the parent sets for each child; its command
     * line is written from the option rows (study/options.c): the options passed on as the
     * parent was given them, then the parent's values. */
    struct mfb_study child = *cfg;
    child.seed = ca->seed;
    child.seed_given = true;
    child.process_index = ca->slot;
    child.code_placement_seed = ca->code_placement_seed;
    child.code_placement_seed_given = true;
    child.time_s = ca->time_s;
    child.batch_passes = ca->batch_passes > 0 ? ca->batch_passes : cfg->batch_passes; /* process 0's, else as given */
    child.max_batches = ca->max_batches;
    child.timer_hz = ca->timer_hz;
    child.quiet = true;
    child.output = ca->tmp;
    char **argv;
    if (mfb_study_child_argv(cfg, &child, &argv, err) < 0)
        return -1;
    char pad[MFB_ENV_PAD_MAX + 16];
    char **env = padded_environ(mfb_stream_seed(ca->seed, MFB_STREAM_ENV_PAD), pad, sizeof pad);
    if (!env) {
        free(argv);
        return mfb_fail(err, "out of memory starting process %d", ca->index + 1);
    }
    char name[32];
    snprintf(name, sizeof name, "process %d", ca->index + 1);
    /* The child dies with the parent (kill -9 of the parent leaves no orphan measuring on). A fresh
     * exec: new address-space layout (when ASLR is on), fresh buffers and calibration. */
    struct mfb_prog p = {.kind = MFB_PROG_PROCESS, .who = "memfbench", .name = name, .argv = argv, .env = env,
                         .self = true, .in = MFB_IO_NULL, .out = MFB_IO_NULL, .err = MFB_IO_CAPTURE, .reply = true,
                         .death_signal = SIGKILL, .deadlines = &cfg->deadlines, .cpu = -1};
    int rc = mfb_prog_run(&p, o, err);
    free(env);
    free(argv);
    if (rc < 0)
        return -1;
    struct mfb_err why = {{0}};
    if ((o->end == MFB_PROG_EXITED || o->end == MFB_PROG_STOPPED) &&
        mfb_reply_parse(o->reply, o->reply_len, r, &why) == 0)
        return 0;
    /* no reply: how it ended, and its last line of stderr where it said one */
    char how[400], last[400];
    mfb_prog_describe(&p, o, how, sizeof how);
    mfb_prog_last_line(o->err, last, sizeof last);
    *r = (struct mfb_reply){.status = o->end == MFB_PROG_STOPPED ? MFB_REPLY_INTERRUPTED : MFB_REPLY_FAILED};
    snprintf(r->message, sizeof r->message, "%.500s%s%.400s", how, last[0] ? ": " : "", last);
    return 0;
}

/* A study's processes as they run: their temporary files, their typed results (their samples are
 * merged into `all`) and, with --target-ci, the stop rule's state. */
struct study_run {
    bool targeted;
    int k;                              /* processes at most (k <= MFB_MAX_PROCESSES: the parser refuses more) */
    int done;                           /* processes finished (their re-runs included) */
    int reruns;                         /* design slots run again (rerun_starved) */
    char *tmp[MFB_MAX_PROCESSES];
    struct mfb_child_result results[MFB_MAX_PROCESSES]; /* results[0..done) */
    struct mfb_samples all;
    struct mfb_stoprule rule;
    bool compared[MFB_MAX_VARIANTS], reached;
    double widths[MFB_MAX_VARIANTS];
    int nvars;
    enum mfb_stop_reason stop_reason;
    long batch_passes;                  /* 0 for the first process, which calibrates */
    double timer_hz;                    /* 0 for the first process, which calibrates the clock's rate */
    double each;                        /* seconds of rounds per process */
    bool progress_shown;                /* the progress line is on the terminal, to be ended */
};

/* Which process runs, as one line a terminal rewrites in place; nothing where stderr is a file or
 * a pipe (a log, CI), whose reader wants the outcome, not ten lines of progress. */
static void progress(const struct mfb_study *cfg, struct study_run *s, int i)
{
    if (cfg->quiet || !isatty(STDERR_FILENO))
        return;
    if (s->targeted)
        fprintf(stderr, "\r\033[Kmemfbench: process %d (at least %ld, until +-%g %%)", i + 1, cfg->processes,
                cfg->target_ci);
    else
        fprintf(stderr, "\r\033[Kmemfbench: process %d of %d", i + 1, s->k + s->reruns);
    fflush(stderr);
    s->progress_shown = true;
}

/* Ends the progress line, so whatever follows (the summary, an error) starts on a line of its own. */
static void end_progress(struct study_run *s)
{
    if (s->progress_shown)
        fputc('\n', stderr);
    s->progress_shown = false;
}

/* Runs process i into its temporary file and merges its samples: MFB_EXIT_OK, MFB_EXIT_INTERRUPTED
 * (a stop request ended it; what it measured is merged when it wrote it), or -1 with the message in
 * err (a child that failed is named with its reply's line, or how it ended). */
static int run_one(const struct mfb_study *cfg, struct study_run *s, int i, int slot, uint64_t master_seed,
                   struct mfb_err *err)
{
    /* With -o - the processes' files have no folder of the user's to sit beside: they go to
     * $TMPDIR (else /tmp), not into the current folder, which may be read-only. */
    char stdout_target[PATH_MAX];
    const char *env = getenv("TMPDIR"), *tmpdir = env && *env ? env : "/tmp";
    snprintf(stdout_target, sizeof stdout_target, "%s/memfbench-stdout.json", tmpdir);
    bool to_stdout = !strcmp(cfg->output, "-");
    const char *target = to_stdout ? stdout_target : cfg->output;
    /* A study killed with -o - (kill -9, a power cut) left its files there: removed once, by the
     * first process, when the study that made them has ended (files/temporaries.h). */
    if (to_stdout && i == 0)
        mfb_temp_remove_stale(tmpdir, false);
    char what[16];
    snprintf(what, sizeof what, "-proc%d", i);
    if (!(s->tmp[i] = mfb_output_temp(target, what))) {
        int e = errno;
        if (to_stdout)
            return mfb_fail(err, "-o -: cannot create process %d's temporary file in %s (TMPDIR): %s", i + 1,
                            tmpdir, strerror(e));
        return mfb_fail(err, "%s: cannot create a temporary file for process %d beside it: %s", target, i + 1,
                        strerror(e));
    }
    progress(cfg, s, i);
    struct child_args ca = {.index = i, .slot = slot, .seed = mfb_process_seed(master_seed, slot),
                            .code_placement_seed = mfb_stream_seed(master_seed, MFB_STREAM_CODE), .time_s = s->each,
                            .batch_passes = s->batch_passes, .timer_hz = s->timer_hz,
                            .max_batches = cfg->max_batches / s->k, .tmp = s->tmp[i]};
    struct mfb_prog_outcome o;
    struct mfb_reply r;
    uint64_t spawned = mfb_mono_ns();
    if (spawn(cfg, &ca, &o, &r, err) < 0)
        return -1;
    uint64_t ended = mfb_mono_ns();
    mfb_prog_outcome_free(&o);
    if (r.status == MFB_REPLY_FAILED)
        return mfb_fail(err, "process %d of %d failed: %s", i + 1, s->targeted ? s->done + 1 : s->k + s->reruns,
                        r.message[0] ? r.message : "it said no more");
    /* Stopped before it wrote a result (inside a call that never returned: orchestrate/guard.h):
     * nothing to merge. */
    struct stat st;
    if (r.status == MFB_REPLY_INTERRUPTED && (stat(s->tmp[i], &st) != 0 || st.st_size == 0)) {
        mfb_fail(err, "process %d: %s", i + 1, r.message[0] ? r.message : "stopped before it wrote a result");
        return MFB_EXIT_INTERRUPTED;
    }
    /* Process 0's study-level sections make the merged file; the others keep their entry only. */
    int of = s->k + s->reruns; /* for the messages: "process 33 of 34" once a slot runs again */
    if (mfb_child_read(s->tmp[i], i, of, i == 0, &s->all, &s->results[i], err) < 0 ||
        (i > 0 && mfb_child_same_study(&s->results[0], &s->results[i], of, err) < 0))
        return -1;
    s->results[i].lifetime_s = (double)(ended - spawned) / 1e9;
    s->results[i].merge_s = (double)(mfb_mono_ns() - ended) / 1e9;
    /* Every process times batches of the shape the first one calibrated: process-level
     * replicates then differ by layout, not by batch length. */
    if (i == 0 && !cfg->batch_passes)
        s->batch_passes = s->results[0].batch_passes;
    /* and read the clock at the rate it calibrated, which each checks (machine/timer.c) */
    if (i == 0)
        s->timer_hz = s->results[0].timer_hz;
    s->done++;
    return r.status == MFB_REPLY_INTERRUPTED ? MFB_EXIT_INTERRUPTED : MFB_EXIT_OK;
}

/* A starved process: the host ran other work on its CPU while it measured, and it got a few rounds
 * where the others got many. Such a process weighs as much as a full one in the model of the
 * placements, with a fraction of the rounds behind its estimate (issue 52: 2 rounds against 32-79
 * moved an A/A to 0.938 [0.786, 1.119]). Its slot (its code placements and seed) is run again once
 * the study's processes have run, up to one slot in RERUN_SHARE, each a process's share of time,
 * and the first run is kept in the file marked dropped, which the analysis leaves out
 * (analysis/stats/screening.py applies the same rule to files without the marks). */
#define RERUN_SHARE 8
/* Fewer measured rounds than this, or than a quarter of the processes' median, is starved; never
 * more than half the median, so a study run with few rounds on purpose re-runs nothing. */
#define STARVED_FLOOR 8

static int compare_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* The starved processes' slots run again: 0, or -1 with err (a re-run that failed is the study's
 * failure, as any process's is). */
static int rerun_starved(const struct mfb_study *cfg, struct study_run *s, uint64_t master_seed, struct mfb_err *err)
{
    int n = s->done;
    if (s->targeted || n < 2)
        return 0;
    long sorted[MFB_MAX_PROCESSES];
    for (int i = 0; i < n; i++)
        sorted[i] = s->results[i].measured_rounds;
    qsort(sorted, (size_t)n, sizeof *sorted, compare_long);
    long median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    long floor = median / 4 > STARVED_FLOOR ? median / 4 : STARVED_FLOOR;
    if (floor > median / 2)
        floor = median / 2;
    int cap = n / RERUN_SHARE > 1 ? n / RERUN_SHARE : 1;
    for (int i = 0; i < n && s->reruns < cap && s->done < MFB_MAX_PROCESSES && !mfb_stop_signal(); i++) {
        long got = s->results[i].measured_rounds;
        if (got >= floor)
            continue;
        int j = s->done;
        snprintf(s->results[i].dropped, sizeof s->results[i].dropped,
                 "%ld measured rounds, under %ld (a quarter of the processes' median %ld, at least %d): its slot ran "
                 "again as process %d", got, floor, median, STARVED_FLOOR, j + 1);
        if (!cfg->quiet)
            fprintf(stderr, "%smemfbench: process %d got %ld measured rounds where the processes' median is %ld (the "
                            "host ran other work on its CPU?): running its slot again as process %d\n",
                    s->progress_shown ? "\n" : "", i + 1, got, median, j + 1);
        s->progress_shown = false;
        s->reruns++;
        int rc = run_one(cfg, s, j, i, master_seed, err);
        if (rc < 0)
            return -1;
        if (rc == MFB_EXIT_INTERRUPTED && s->done == j)
            break; /* stopped before it wrote anything: the first run stays as it was */
        s->results[j].rerun_of = i;
        if (rc == MFB_EXIT_INTERRUPTED)
            break;
    }
    return 0;
}

/* --target-ci after each process: whether to stop (s->stop_reason says why), -1 on error. */
static int target_reached(const struct mfb_study *cfg, struct study_run *s, uint64_t t0, struct mfb_err *err)
{
    if (s->done == 1) {
        s->nvars = s->results[0].nvars;
        for (int v = 0; v < s->nvars; v++)
            s->compared[v] = v > 0 && !s->results[0].harness[v];
    }
    struct mfb_process_placements placements[MFB_MAX_PROCESSES];
    for (int p = 0; p < s->done; p++)
        placements[p] = s->results[p].placements;
    if (mfb_stoprule_processes(&s->rule, &s->all, s->nvars, s->compared, cfg->code_rotation == MFB_ROTATE_ROUND,
                               placements, cfg->target_ci, s->widths, &s->reached, err) < 0)
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

/* The merged warnings on stderr, as one run prints its own: notes and --quiet-warnings codes stay
 * in the file. */
static void print_warnings(const struct mfb_study *cfg, const struct mfb_child_result *results,
                           const struct mfb_merge_end *end)
{
    int done = end->done;
    struct mfb_warnings w;
    mfb_merge_warnings(cfg, results, end, &w);
    for (int i = 0; i < w.n; i++) {
        if (cfg->quiet_warnings >> w.kind[i] & 1 || mfb_warning_kind(w.kind[i])->severity == MFB_SEV_NOTE)
            continue;
        /* how many of the study's processes found it */
        char in[96] = "";
        if (w.processes[i] > 0)
            snprintf(in, sizeof in, " [in %d of %d processes%s]", w.processes[i], done,
                     w.others[i] ? ", of other variants too" : "");
        fprintf(stderr, "memfbench: warning: %s%s\n", w.msg[i], in);
    }
    mfb_warnings_free(&w);
}

int mfb_run_processes(const struct mfb_study *cfg, const struct mfb_run *assembled, struct mfb_output *out,
                      uint64_t master_seed, struct mfb_err *err)
{
    /* With --target-ci, cfg->processes is the minimum: processes are added one at a time, each
     * with a default study's share of time, until every process-level interval is within the
     * target, the time budget is spent or MFB_MAX_PROCESSES have run. */
    struct study_run s = {.targeted = cfg->target_ci > 0};
    s.k = s.targeted ? MFB_MAX_PROCESSES : (int)cfg->processes;
    s.each = s.targeted ? MFB_DEFAULT_TIME_S / MFB_DEFAULT_PROCESSES : cfg->time_s > 0 ? cfg->time_s / s.k : 0;
    int status = MFB_EXIT_FAIL;
    uint64_t t0 = mfb_mono_ns();
    for (int i = 0; i < s.k && !mfb_stop_signal(); i++) {
        int rc = run_one(cfg, &s, i, i, master_seed, err);
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
    if (!mfb_stop_signal() && rerun_starved(cfg, &s, master_seed, err) < 0)
        goto cleanup;
    end_progress(&s);
    if (s.done == 0) {
        if (!err->msg[0])
            mfb_fail(err, "interrupted before the first process finished");
        fprintf(stderr, "memfbench: %s\n", err->msg); /* a stop, not a failure: the caller prints no error */
        status = MFB_EXIT_INTERRUPTED;
        goto cleanup;
    }
    struct mfb_merge_end end = {.planned = s.k + s.reruns, .reruns = s.reruns, .done = s.done, .targeted = s.targeted, .stop_reason = s.stop_reason,
                                .reached = s.reached, .compared = s.compared, .widths = s.widths,
                                .assembled = assembled};
    bool complete = mfb_merge_complete(s.results, &end);
    cJSON *doc = mfb_merge_document(cfg, s.results, &end, master_seed);
    if (!cfg->quiet)
        print_warnings(cfg, s.results, &end);
    if (mfb_output_commit(out, doc, &s.all, err) == 0) {
        status = complete ? MFB_EXIT_OK : MFB_EXIT_INTERRUPTED;
        if (!cfg->quiet) {
            /* the dropped are in the file, marked, and out of its verdicts: said apart (each re-run
             * stands for one process marked dropped, rerun_starved) */
            fprintf(stderr, "memfbench: merged %d process%s into %s", s.done, s.done == 1 ? "" : "es", cfg->output);
            if (s.reruns)
                fprintf(stderr, " (%d of them starved and marked dropped)", s.reruns);
            fprintf(stderr, "\n");
            mfb_merge_print_summary(s.results, s.done, &s.all, cfg->output);
        }
        /* a stop is said even under -q, as a failure is: the file is not the study asked for */
        if (mfb_stop_signal())
            fprintf(stderr, "memfbench: interrupted by %s after %d of %d process%s; %s holds what they measured "
                            "(status.complete = false)\n", mfb_stop_signal_name(mfb_stop_signal()), s.done, s.k,
                    s.k == 1 ? "" : "es", cfg->output);
    }
    cJSON_Delete(doc);
cleanup:
    end_progress(&s);
    mfb_stoprule_free(&s.rule);
    for (int i = 0; i < MFB_MAX_PROCESSES; i++) {
        if (s.tmp[i]) {
            mfb_temp_discard(s.tmp[i]);
            free(s.tmp[i]);
        }
        mfb_child_free(&s.results[i]);
    }
    mfb_samples_free(&s.all);
    return status;
}
