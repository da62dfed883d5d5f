/* The runs of memfbench ab: each one the program under one arm, supervised (programs/run.h:
 * stopped with everything it started when ab is asked to stop or when it outlives its limit), its
 * times taken, its calls counted by the shim, its output kept within bounds; and the checks that
 * make a run a sample: it ended with status 0, it ran through the shim, and it did the work libc's
 * run of the same block did. */
#include "ab/ab.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/environ.h"
#include "base/rng.h"
#include "programs/run.h"
#include "programs/stop.h"
#include "files/temporaries.h"


/* Lines of the shim's count file read at most (one per process of a run); a file past this is
 * not the shim's. */
#define CALLS_FILE_MAX (1u << 20)

int mfb_ab_workspace(struct mfb_ab *ab, const char *output, struct mfb_err *err)
{
    char dir[PATH_MAX];
    const char *base;
    if (!strcmp(output, "-")) {
        const char *t = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s", t && *t ? t : "/tmp");
        base = "stdout";
    } else {
        mfb_temp_split(output, dir, sizeof dir, &base);
    }
    char *tmpl = mfb_temp_make(dir, base, "-ab", true);
    bool made = tmpl != NULL;
    int saved = errno;
    /* absolute: the program may change its folder, and the shim opens the count file by name */
    bool named = made && realpath(tmpl, ab->work) != NULL;
    if (made && !named)
        mfb_temp_discard(tmpl);
    if (named) { /* registered by the name it is removed by */
        mfb_temp_forget(tmpl);
        mfb_temp_register(ab->work);
    }
    free(tmpl);
    if (!named)
        return mfb_fail(err, "memfbench ab: cannot make a folder for the runs' files in %s: %s", dir,
                        strerror(made ? errno : saved));
    return 0;
}

/* One of the work folder's files. */
static void work_file(const struct mfb_ab *ab, const char *name, char *out, size_t n)
{
    snprintf(out, n, "%s/%s", ab->work, name);
}

/* The environment of one run: ours, with the shim first in LD_PRELOAD and the arm's settings, or
 * without the shim for the plain arm. */
static char **run_environ(const struct mfb_ab *ab, const struct mfb_ab_arm *a, char *preload, size_t pn,
                          char *variant, size_t vn, char *func, size_t fn, char *calls, size_t cn)
{
    /* MEMFBENCH_AB_COUNT passes: the tests count the routing */
    char *change[] = {preload, variant, func, calls};
    snprintf(variant, vn, "MEMFBENCH_AB_VARIANT");
    snprintf(func, fn, "MEMFBENCH_AB_FUNCTION");
    snprintf(calls, cn, "MEMFBENCH_AB_CALLS");
    if (a->kind == MFB_AB_PLAIN)
        return mfb_environ_with(change + 1, 3); /* LD_PRELOAD as it is */
    const char *old_preload = getenv("LD_PRELOAD");
    snprintf(preload, pn, "LD_PRELOAD=%s%s%s", ab->shim, old_preload && *old_preload ? ":" : "",
             old_preload ? old_preload : "");
    snprintf(variant, vn, "MEMFBENCH_AB_VARIANT=%s", a->kind == MFB_AB_LIBC ? "libc" : a->spec);
    snprintf(func, fn, "MEMFBENCH_AB_FUNCTION=%s", mfb_func_name(ab->func));
    char path[PATH_MAX + 16];
    work_file(ab, "calls", path, sizeof path);
    snprintf(calls, cn, "MEMFBENCH_AB_CALLS=%s", path);
    return mfb_environ_with(change, 4);
}

/* The run's count file, made empty before it starts (the shim appends and never creates it, so a
 * process of an earlier run cannot write into this one's). */
static int calls_reset(const struct mfb_ab *ab, struct mfb_err *err)
{
    char path[PATH_MAX + 16];
    work_file(ab, "calls", path, sizeof path);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return mfb_fail(err, "memfbench ab: %s: %s", path, strerror(errno));
    close(fd);
    return 0;
}

/* The function's calls over the run's processes ("FUNCTION CALLS" per process), into r. */
static void calls_read(const struct mfb_ab *ab, struct mfb_ab_run *r)
{
    char path[PATH_MAX + 16];
    work_file(ab, "calls", path, sizeof path);
    r->calls = 0;
    r->processes = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char line[128], name[16];
    unsigned long long n;
    size_t read = 0;
    while (read < CALLS_FILE_MAX && fgets(line, sizeof line, f)) {
        read += strlen(line);
        if (sscanf(line, "%15s %llu", name, &n) == 2 && !strcmp(name, mfb_func_name(ab->func)) &&
            n <= (unsigned long long)INT64_MAX - (unsigned long long)r->calls) {
            r->calls += (int64_t)n;
            r->processes++;
        }
    }
    fclose(f);
}

/* Appends n bytes of in from offset off to out. */
static void copy_range(int in, int out, off_t off, uint64_t n)
{
    char buf[65536];
    while (n > 0) {
        ssize_t k = pread(in, buf, n < sizeof buf ? (size_t)n : sizeof buf, off);
        if (k <= 0 || write(out, buf, (size_t)k) != k)
            return;
        off += k;
        n -= (uint64_t)k;
    }
}

/* --program-output: the run's output (its own file in the work folder) appended under a line naming
 * the run, its head and tail when it is long, nothing more once the file holds its bound. */
static int keep_output(struct mfb_ab *ab, const struct mfb_ab_run *r, int n, int status, struct mfb_err *err)
{
    char path[PATH_MAX + 16];
    work_file(ab, "output", path, sizeof path);
    int in = open(path, O_RDONLY | O_CLOEXEC);
    int out = open(ab->program_output, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (in < 0 || out < 0) {
        int e = errno;
        if (in >= 0)
            close(in);
        if (out >= 0)
            close(out);
        return mfb_fail(err, "memfbench ab: --program-output %s: %s", ab->program_output, strerror(e));
    }
    uint64_t size = r->output_bytes, half = MFB_AB_OUTPUT_RUN / 2;
    bool room = ab->output_kept < MFB_AB_OUTPUT_TOTAL;
    char head[512];
    int k = snprintf(head, sizeof head, "== memfbench ab: run %d (block %d, arm %s): exit status %d, %llu bytes of "
                     "output%s ==\n", n, r->block + 1, ab->arms[r->arm].name, status, (unsigned long long)size,
                     room ? "" : "; not kept: this file holds its bound");
    if (write(out, head, (size_t)k) == k)
        ab->output_kept += (uint64_t)k;
    if (room && size <= MFB_AB_OUTPUT_RUN) {
        copy_range(in, out, 0, size);
        ab->output_kept += size;
    } else if (room) {
        copy_range(in, out, 0, half);
        k = snprintf(head, sizeof head, "\n== memfbench ab: %llu bytes of run %d's output cut here ==\n",
                     (unsigned long long)(size - 2 * half), n);
        if (write(out, head, (size_t)k) != k)
            k = 0;
        copy_range(in, out, (off_t)(size - half), half);
        ab->output_kept += 2 * half + (uint64_t)k;
    }
    char last;
    /* the next run's line starts a line of its own */
    if (room && size > 0 && pread(in, &last, 1, (off_t)size - 1) == 1 && last != '\n' && write(out, "\n", 1) == 1)
        ab->output_kept++;
    close(in);
    close(out);
    return 0;
}

/* The run's limit: --watchdog, or the default rule (ab.h). */
static double run_limit(const struct mfb_ab *ab)
{
    if (ab->watchdog_s > 0)
        return ab->watchdog_s;
    if (ab->ndone == 0)
        return MFB_AB_FIRST_LIMIT_S;
    double limit = MFB_AB_LIMIT_FACTOR * ab->longest_wall_s;
    return limit > MFB_AB_LIMIT_FLOOR_S ? limit : MFB_AB_LIMIT_FLOOR_S;
}

/* One run of the program under arm a, into r; n its number (1-based) for the messages. 0: it ended
 * (with *status), -1 with err and *exit_status when it could not be run, was stopped or timed out. */
static int run_once(struct mfb_ab *ab, const struct mfb_ab_arm *a, char **argv, struct mfb_ab_run *r, int n,
                    int *status, int *exit_status, struct mfb_err *err)
{
    *exit_status = MFB_EXIT_FAIL;
    char preload[PATH_MAX * 2 + 32], variant[PATH_MAX + 512], func[64], calls[PATH_MAX + 64];
    if (a->kind != MFB_AB_PLAIN && calls_reset(ab, err) < 0)
        return -1;
    char **env = run_environ(ab, a, preload, sizeof preload, variant, sizeof variant, func, sizeof func, calls,
                             sizeof calls);
    if (!env)
        return mfb_fail(err, "memfbench ab: out of memory");
    bool keep = strcmp(ab->program_output, "/dev/null") != 0;
    char path[PATH_MAX + 16] = "/dev/null";
    if (keep)
        work_file(ab, "output", path, sizeof path);
    int out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (out < 0) {
        free(env);
        return mfb_fail(err, "memfbench ab: %s: %s", path, strerror(errno));
    }
    double limit = run_limit(ab);
    /* SIGKILL when ab dies: a run is worth nothing without ab, and a program that handles SIGTERM
     * would run on */
    struct mfb_prog p = {.kind = MFB_PROG_PROGRAM, .who = "memfbench ab", .name = ab->program, .path = ab->program,
                         .argv = argv, .env = env, .in = MFB_IO_NULL, .out = MFB_IO_FD, .err = MFB_IO_FD,
                         .out_fd = out, .err_fd = out, .death_signal = SIGKILL, .limit_s = limit, .cpu = ab->cpu};
    struct mfb_prog_outcome end;
    int rc = mfb_prog_run(&p, &end, err);
    close(out);
    free(env);
    if (rc < 0)
        return -1;
    mfb_prog_outcome_free(&end);
    r->wall_s = end.wall_s;
    if (end.wall_s > ab->longest_wall_s)
        ab->longest_wall_s = end.wall_s;
    r->user_s = end.user_s;
    r->sys_s = end.sys_s;
    r->leftovers = end.leftovers;
    ab->leftovers += end.leftovers;
    *status = end.status;
    if (end.end == MFB_PROG_NOT_STARTED)
        return mfb_fail(err, "memfbench ab: run %d (block %d, arm %s): %s %s; no file written", n, r->block + 1, a->name,
                        ab->program, end.why);
    struct stat st;
    r->output_bytes = keep && stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
    if (a->kind == MFB_AB_PLAIN)
        r->calls = -1;
    else
        calls_read(ab, r);
    if (end.end == MFB_PROG_STOPPED) {
        *exit_status = 128 + end.signal;
        return mfb_fail(err, "memfbench ab: interrupted by %s during run %d (block %d, arm %s): the program%s "
                        "stopped; no file written", mfb_stop_signal_name(end.signal), n, r->block + 1, a->name,
                        end.leftovers ? " and what it left running were" : " was");
    }
    if (end.end == MFB_PROG_TIMED_OUT)
        return mfb_fail(err, "memfbench ab: run %d (block %d, arm %s): %s had not ended after %.0f s (%s); stopped, "
                        "no file written", n, r->block + 1, a->name, ab->program, limit,
                        ab->watchdog_s > 0 ? "--watchdog" : "the default limit: 10 minutes for the first run, then 10 "
                        "times the longest run, at least 60 s; --watchdog S sets another");
    if (keep && keep_output(ab, r, n, end.status, err) < 0)
        return -1;
    return 0;
}

/* A run that ended with status 0 is a sample only when it ran through the shim and did its work:
 * some of the function's calls counted, and about as many as libc's run of its block (when that
 * ran already) and as the recording counted (--predict-from). */
static int check_work(const struct mfb_ab *ab, const struct mfb_ab_run *r, int n, const struct mfb_ab_run *libc,
                      struct mfb_err *err)
{
    const char *f = mfb_func_name(ab->func), *arm = ab->arms[r->arm].name;
    if (r->calls < 0)
        return 0; /* plain: no shim to count */
    if (r->calls == 0)
        return mfb_fail(err, "memfbench ab: run %d (block %d, arm %s): the shim counted no %s call: %s makes none through "
                        "the dynamic C library, or its processes dropped LD_PRELOAD, or the run ended without its exit "
                        "handlers (a variant that calls _exit); a run that did not do the work is not a sample",
                        n, r->block + 1, arm, f, ab->program);
    double k = MFB_AB_CALLS_FACTOR;
    if (libc && libc != r && ((double)r->calls * k < (double)libc->calls || (double)r->calls > k * (double)libc->calls))
        return mfb_fail(err, "memfbench ab: run %d (block %d, arm %s): the shim counted %lld %s call%s, libc's run of the "
                        "block %lld: the run ended early (a variant that calls exit) or did other work; a run that did "
                        "not do the program's work is not a sample", n, r->block + 1, arm, (long long)r->calls, f,
                        r->calls == 1 ? "" : "s", (long long)libc->calls);
    if (ab->recorded_calls && ab->arms[r->arm].kind == MFB_AB_LIBC &&
        ((double)r->calls * k < (double)ab->recorded_calls || (double)r->calls > k * (double)ab->recorded_calls))
        return mfb_fail(err, "memfbench ab: run %d (block %d, arm libc): the shim counted %lld %s call%s, the recording "
                        "%llu (--predict-from's provenance.json): a recording of another program or input, or work "
                        "that runs without the shim (a process that drops LD_PRELOAD); the prediction would not be "
                        "of these runs", n, r->block + 1, (long long)r->calls, f,
                        r->calls == 1 ? "" : "s", (unsigned long long)ab->recorded_calls);
    return 0;
}

/* Checks the block's runs that ran so far against its libc run; each run once (checked marks). */
static int check_block(const struct mfb_ab *ab, int first, bool *checked, struct mfb_err *err)
{
    const struct mfb_ab_run *libc = NULL;
    for (int i = first; i < ab->ndone; i++)
        if (ab->arms[ab->done[i].arm].kind == MFB_AB_LIBC)
            libc = &ab->done[i];
    for (int i = first; i < ab->ndone; i++) {
        if (checked[i - first])
            continue;
        bool variant = ab->arms[ab->done[i].arm].kind == MFB_AB_VARIANT;
        /* a variant's run waits for libc's of its block, to be compared with it */
        if (variant && !libc && ab->done[i].calls != 0)
            continue;
        if (check_work(ab, &ab->done[i], i + 1, libc, err) < 0)
            return -1;
        checked[i - first] = true;
    }
    return 0;
}

int mfb_ab_run_all(struct mfb_ab *ab, char **argv, bool quiet, int *exit_status, struct mfb_err *err)
{
    *exit_status = MFB_EXIT_FAIL;
    int blocks = ab->warmup + ab->runs;
    if (!(ab->done = calloc((size_t)blocks * (size_t)ab->narms, sizeof *ab->done)))
        return mfb_fail(err, "memfbench ab: out of memory");
    struct mfb_rng rng;
    mfb_rng_seed(&rng, ab->seed);
    int order[MFB_AB_MAX_ARMS];
    bool said_leftovers = false;
    for (int b = 0; b < blocks; b++) {
        /* each block every arm once, in an order of its own: no arm always runs first, after the
         * same neighbour, or at the same point of a drift */
        for (int i = 0; i < ab->narms; i++)
            order[i] = i;
        for (int i = ab->narms - 1; i > 0; i--) {
            int j = (int)mfb_rng_below(&rng, (uint64_t)i + 1), t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        int first = ab->ndone;
        bool checked[MFB_AB_MAX_ARMS] = {false};
        for (int k = 0; k < ab->narms; k++) {
            if (mfb_stop_signal()) {
                *exit_status = mfb_stop_exit_status();
                return mfb_fail(err, "memfbench ab: interrupted by %s before run %d; no file written",
                                mfb_stop_signal_name(mfb_stop_signal()), ab->ndone + 1);
            }
            struct mfb_ab_run *r = &ab->done[ab->ndone];
            *r = (struct mfb_ab_run){.block = b, .order = k, .arm = order[k], .warmup = b < ab->warmup};
            int status;
            if (run_once(ab, &ab->arms[order[k]], argv, r, ab->ndone + 1, &status, exit_status, err) < 0)
                return -1;
            if (status != 0)
                return mfb_fail(err, "memfbench ab: run %d (block %d, arm %s): %s exited with status %d%s; a run "
                                "that fails is not a sample (its output: %s)", ab->ndone + 1, b + 1,
                                ab->arms[order[k]].name, ab->program, status,
                                status == 127 ? " (127: it could not start, or the shim refused the variant)" : "",
                                ab->program_output);
            ab->ndone++;
            if (r->leftovers && !said_leftovers && !quiet) {
                fprintf(stderr, "memfbench ab: run %d (arm %s): %s left %d process%s running after it ended; "
                        "stopped (every run's are, so that none loads the next run; the file counts them)\n",
                        ab->ndone, ab->arms[order[k]].name, ab->program, r->leftovers, r->leftovers == 1 ? "" : "es");
                said_leftovers = true;
            }
            if (check_block(ab, first, checked, err) < 0)
                return -1;
        }
        if (!quiet && isatty(STDERR_FILENO))
            fprintf(stderr, "\rmemfbench ab: block %d of %d%s", b + 1, blocks, b + 1 == blocks ? "\n" : "");
    }
    return 0;
}
