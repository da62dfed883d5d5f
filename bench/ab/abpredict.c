/* memfbench ab --predict-from DIR: the recording read and checked in full before the first run,
 * and the replays of its table (and trace) that the prediction is made from. */
#include "ab/ab.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ab/abself.h"
#include "files/temporaries.h"
#include "report/provenance.h"
#include "workload/distribution.h"
#include "workload/trace.h"

/* The table and the trace read as the replays will read them, before the first run: a recording
 * that cannot be replayed is refused in one line, not after minutes of runs. */
static int check_replayable(const struct mfb_ab *ab, const char *table, struct mfb_err *err)
{
    struct mfb_dist d;
    int rc = mfb_dist_resolve(&d, table, ab->func, "", err);
    mfb_dist_free(&d);
    if (rc == 0 && ab->trace[0]) {
        struct mfb_trace t = {0};
        rc = mfb_trace_load(&t, ab->trace, err);
        mfb_trace_free(&t);
    }
    if (rc == 0)
        return 0;
    char why[sizeof err->msg];
    snprintf(why, sizeof why, "%s", err->msg); /* mfb_fail writes into err->msg */
    return mfb_fail(err, "memfbench ab: --predict-from: %s", why);
}

/* The last component of a path, without changing it. */
static const char *last_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* The recording's program is this one: the same name (a recording of gzip cannot predict for
 * zstd); its count of calls is what a prediction scales by. */
static int check_provenance(struct mfb_ab *ab, const char *dir, struct mfb_err *err)
{
    char program[4096];
    if (mfb_provenance_calls(ab->recording, ab->func, &ab->recorded_calls, program, sizeof program, err) < 0) {
        char why[sizeof err->msg];
        snprintf(why, sizeof why, "%s", err->msg);
        return mfb_fail(err, "memfbench ab: --predict-from %s: %s", dir, why);
    }
    if (strcmp(last_name(program), last_name(ab->program)) != 0)
        return mfb_fail(err, "memfbench ab: --predict-from %s: a recording of '%s' (provenance.json's command), not of "
                        "%s: record this program (memfbench record -o DIR -- %s ...)", dir, program, ab->program,
                        last_name(ab->program));
    return 0;
}

int mfb_ab_check_recording(struct mfb_ab *ab, const char *dir, const char *output, struct mfb_err *err)
{
    char table[PATH_MAX + 64], prov[PATH_MAX + 64];
    struct stat st;
    if (!realpath(dir, ab->recording))
        return mfb_fail(err, "memfbench ab: --predict-from %s: %s", dir, strerror(errno));
    snprintf(table, sizeof table, "%s/%s_size.csv", ab->recording, mfb_func_name(ab->func));
    snprintf(prov, sizeof prov, "%s/provenance.json", ab->recording);
    if (stat(table, &st) != 0 || !S_ISREG(st.st_mode))
        return mfb_fail(err, "memfbench ab: --predict-from %s: no %s_size.csv (the program made no %s call while "
                        "recorded, or this is not a memfbench record folder)", dir, mfb_func_name(ab->func),
                        mfb_func_name(ab->func));
    if (stat(prov, &st) != 0 || !S_ISREG(st.st_mode))
        return mfb_fail(err, "memfbench ab: --predict-from %s: no provenance.json, which holds the number of calls a "
                        "run makes (memfbench record writes it)", dir);
    if (check_provenance(ab, dir, err) < 0)
        return -1;
    /* beside the result: OUTPUT.replay.json, named absolutely in the file so the analysis finds it
     * from any folder */
    char cwd[PATH_MAX] = "";
    if (output[0] != '/' && !getcwd(cwd, sizeof cwd))
        return mfb_fail(err, "memfbench ab: cannot name the current folder: %s", strerror(errno));
    if (snprintf(ab->replay, sizeof ab->replay, "%s%s%s.replay.json", cwd, cwd[0] ? "/" : "", output) >=
        (int)sizeof ab->replay)
        return mfb_fail(err, "memfbench ab: -o %s: too long a name for its replay file", output);
    snprintf(ab->trace, sizeof ab->trace, "%s/%s_trace.csv", ab->recording, mfb_func_name(ab->func));
    if (lstat(ab->trace, &st) != 0) {
        ab->trace[0] = '\0';
    } else if (stat(ab->trace, &st) != 0 || !S_ISREG(st.st_mode)) {
        /* a FIFO or a device would hang or never end the replay; skipped, it would change the
         * prediction without a word */
        return mfb_fail(err, "memfbench ab: --predict-from %s: %s is not a regular file", dir, ab->trace);
    } else if (snprintf(ab->trace_replay, sizeof ab->trace_replay, "%s%s%s.trace-replay.json", cwd, cwd[0] ? "/" : "",
                        output) >= (int)sizeof ab->trace_replay) {
        return mfb_fail(err, "memfbench ab: -o %s: too long a name for its replay file", output);
    }
    /* a folder or a FIFO where a replay goes would be found only when it is renamed there, after
     * the runs and the result */
    const char *targets[] = {ab->replay, ab->trace[0] ? ab->trace_replay : ""};
    for (int i = 0; i < 2; i++)
        if (targets[i][0] && lstat(targets[i], &st) == 0 && !S_ISREG(st.st_mode))
            return mfb_fail(err, "memfbench ab: -o %s: %s, where its replay goes, exists and is not a regular file; "
                            "remove it or give another -o", output, targets[i]);
    return check_replayable(ab, table, err);
}

/* One replay: the recorded table (-d) or, with trace, the trace in order (--trace), into out. */
static int replay_one(const struct mfb_ab *ab, const char *const *variants, int n, bool trace, const char *out,
                      bool quiet, int *exit_status, struct mfb_err *err)
{
    char table[PATH_MAX + 64], cpu[16], seconds[32];
    snprintf(seconds, sizeof seconds, "%g", ab->replay_time_s);
    snprintf(table, sizeof table, "%s/%s_size.csv", ab->recording, mfb_func_name(ab->func));
    const char *argv[MFB_AB_SELF_ARGV];
    int k = mfb_ab_self_argv(ab, argv, trace ? "--trace" : "-d", trace ? ab->trace : table, true, variants, n, cpu,
                             sizeof cpu);
    if (ab->replay_time_s > 0) {
        argv[k++] = "-t";
        argv[k++] = seconds;
    }
    if (ab->by_class && !trace) /* a trace keeps its own order: memfbench run has no classes for it */
        argv[k++] = "--by-class";
    argv[k++] = "-o";
    argv[k++] = out;
    argv[k] = NULL;
    if (!quiet && isatty(STDERR_FILENO))
        fprintf(stderr, "memfbench ab: replaying the recorded %s (a default study) for the prediction\n",
                trace ? "trace in order" : "table");
    if (mfb_ab_run_self(ab, argv, trace ? "the replay of the recorded trace" : "the replay of the recorded table",
                        exit_status, err) == 0)
        return 0;
    if (*exit_status != MFB_EXIT_FAIL)
        return -1; /* stopped: the line says so */
    char why[sizeof err->msg];
    snprintf(why, sizeof why, "%s", err->msg);
    return mfb_fail(err, "memfbench ab: the replay of %s failed: %s; no file is written", trace ? ab->trace : table,
                    why);
}

/* A temporary beside target for its replay, registered (removed at exit unless settled), its path
 * into tmp. */
static int replay_temp(const char *target, char *tmp, size_t cap, struct mfb_err *err)
{
    char dir[PATH_MAX];
    const char *base;
    mfb_temp_split(target, dir, sizeof dir, &base);
    char *made = mfb_temp_make(dir, base, "", false);
    if (!made)
        return mfb_fail(err, "memfbench ab: cannot make a temporary beside %s: %s", target, strerror(errno));
    snprintf(tmp, cap, "%s", made);
    free(made);
    return 0;
}

int mfb_ab_replay(struct mfb_ab *ab, const char *const *variants, int n, bool quiet, int *exit_status,
                  struct mfb_err *err)
{
    *exit_status = MFB_EXIT_FAIL;
    /* memfbench run writes its file only when it succeeds; a failed or stopped replay leaves the
     * temporaries, which mfb_ab_unlink_replays (or this process's exit) removes */
    if (replay_temp(ab->replay, ab->replay_tmp, sizeof ab->replay_tmp, err) < 0 ||
        replay_one(ab, variants, n, false, ab->replay_tmp, quiet, exit_status, err) < 0)
        return -1;
    if (ab->trace[0] && (replay_temp(ab->trace_replay, ab->trace_replay_tmp, sizeof ab->trace_replay_tmp, err) < 0 ||
                         replay_one(ab, variants, n, true, ab->trace_replay_tmp, quiet, exit_status, err) < 0))
        return -1;
    return 0;
}

int mfb_ab_settle_replays(struct mfb_ab *ab, struct mfb_err *err)
{
    char *tmp[] = {ab->replay_tmp, ab->trace_replay_tmp};
    const char *target[] = {ab->replay, ab->trace_replay};
    for (int i = 0; i < 2; i++) {
        if (!tmp[i][0])
            continue;
        if (mfb_temp_settle(tmp[i], target[i]) != 0)
            return mfb_fail(err, "memfbench ab: %s: cannot put the replay in place: %s", target[i], strerror(errno));
        tmp[i][0] = '\0';
    }
    return 0;
}

void mfb_ab_unlink_replays(struct mfb_ab *ab)
{
    char *tmp[] = {ab->replay_tmp, ab->trace_replay_tmp};
    for (int i = 0; i < 2; i++)
        if (tmp[i][0]) {
            mfb_temp_discard(tmp[i]);
            tmp[i][0] = '\0';
        }
}
