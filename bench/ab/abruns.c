/* The runs of memfbench ab: each one the program under one arm, supervised (programs/run.h:
 * stopped with everything it started when ab is asked to stop or when it outlives its limit), its
 * times taken, its calls counted by the shim, its output kept within bounds; and the checks that
 * make a run a sample: it ended with status 0, it ran through the shim, and no process of it was
 * ended by the variant (an exit called inside the variant's code, which the shim sees). */
#include "ab/ab.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/environ.h"
#include "base/progress.h"
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
 * process of an earlier run cannot write into this one's). Whatever the last run left at its name
 * goes first: the program knows the name ($MEMFBENCH_AB_CALLS) and may have made it a FIFO, a
 * folder or a link, which an open by name would wait on or follow. */
static int calls_reset(const struct mfb_ab *ab, struct mfb_err *err)
{
    char path[PATH_MAX + 16];
    work_file(ab, "calls", path, sizeof path);
    if (unlink(path) != 0 && errno != ENOENT)
        mfb_temp_remove_tree(path);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return mfb_fail(err, "memfbench ab: %s: %s", path, strerror(errno));
    close(fd);
    return 0;
}

/* The function's calls over the run's processes ("FUNCTION CALLS INSIDE" per process), into r;
 * r->uncounted when the file is not the regular file ab made (the program replaced it: no shim
 * could write its count there, and reading a FIFO would wait for ever). */
static void calls_read(const struct mfb_ab *ab, struct mfb_ab_run *r)
{
    char path[PATH_MAX + 16];
    work_file(ab, "calls", path, sizeof path);
    r->calls = 0;
    r->processes = 0;
    r->exits_inside = 0;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    FILE *f = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? fdopen(fd, "r") : NULL;
    r->uncounted = f == NULL;
    if (!f) {
        if (fd >= 0)
            close(fd);
        return;
    }
    char line[128], name[16];
    unsigned long long n;
    int inside;
    size_t read = 0;
    while (read < CALLS_FILE_MAX && fgets(line, sizeof line, f)) {
        read += strlen(line);
        if (sscanf(line, "%15s %llu %d", name, &n, &inside) == 3 && !strcmp(name, mfb_func_name(ab->func)) &&
            n <= (unsigned long long)INT64_MAX - (unsigned long long)r->calls) {
            r->calls += (int64_t)n;
            r->processes++;
            r->exits_inside += inside == 1;
        }
    }
    fclose(f);
}

/* --program-output: what one run writes to its stdout and stderr, read from a pipe as it comes
 * and kept within MFB_AB_OUTPUT_RUN by construction: the first half of that many bytes, and the
 * last half in a ring; only the count of the rest. Nothing of it touches the disk before it is
 * cut, so a program that writes without end fills neither the work folder nor the disk. */
struct run_output {
    int in;                    /* the pipe's read end */
    int done[2];               /* a pipe written once the run is over: drain and stop */
    char *head, *tail;         /* OUTPUT_HALF bytes each; tail is a ring */
    uint64_t total;            /* every byte the run wrote */
    pthread_t reader;
    bool started;
};

#define OUTPUT_HALF (MFB_AB_OUTPUT_RUN / 2)
/* Once the run is over, what is still in the pipe is read for at most this long: a writer that
 * escaped the run's end (it cannot, the runner kills the run's whole tree) cannot hold ab. */
#define OUTPUT_DRAIN_MS 200
/* The pipe's room asked for, so a program that writes in bursts rarely waits for the reader. */
#define OUTPUT_PIPE_BYTES (1 << 20)

static void output_take(struct run_output *o, const char *buf, size_t n)
{
    while (n > 0) {
        /* into the head while it has room, then into the ring up to its end, wrapping */
        size_t at = o->total < OUTPUT_HALF ? (size_t)o->total : (size_t)((o->total - OUTPUT_HALF) % OUTPUT_HALF);
        char *to = o->total < OUTPUT_HALF ? o->head : o->tail;
        size_t k = OUTPUT_HALF - at < n ? OUTPUT_HALF - at : n;
        memcpy(to + at, buf, k);
        buf += k;
        n -= k;
        o->total += k;
    }
}

static double mono_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void *output_reader(void *arg)
{
    struct run_output *o = arg;
    char buf[65536];
    double until = 0;
    for (;;) {
        struct pollfd fds[2] = {{.fd = o->in, .events = POLLIN}, {.fd = o->done[0], .events = POLLIN}};
        int ms = -1;
        if (until > 0) {
            double left = until - mono_s();
            if (left <= 0)
                break;
            ms = (int)(left * 1e3) + 1;
        }
        int k = poll(fds, until > 0 ? 1 : 2, ms);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            break;
        if (until == 0 && fds[1].revents) {
            /* the run is over: what the pipe holds still, within the drain's bound */
            until = mono_s() + OUTPUT_DRAIN_MS / 1e3;
            fcntl(o->in, F_SETFL, O_NONBLOCK);
        }
        if (fds[0].revents) {
            ssize_t got = read(o->in, buf, sizeof buf);
            if (got == 0 || (got < 0 && errno != EINTR && errno != EAGAIN))
                break;
            if (got > 0)
                output_take(o, buf, (size_t)got);
        }
    }
    return NULL;
}

/* The run is over: the reader drains the pipe (within OUTPUT_DRAIN_MS) and ends. */
static void output_finish(struct run_output *o)
{
    if (!o->started)
        return;
    if (write(o->done[1], "x", 1) != 1) {
        /* a pipe just made has room for a byte */
    }
    pthread_join(o->reader, NULL);
    o->started = false;
}

static void output_close(struct run_output *o)
{
    output_finish(o);
    int *fds[] = {&o->in, &o->done[0], &o->done[1]};
    for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++)
        if (*fds[i] >= 0)
            close(*fds[i]);
    free(o->head);
    free(o->tail);
    *o = (struct run_output){.in = -1, .done = {-1, -1}};
}

/* Opens the pipe the run writes into (its write end into *to, for the runner) and starts its
 * reader, with every signal blocked (a stop request is the main thread's). */
static int output_open(struct run_output *o, int *to, struct mfb_err *err)
{
    *o = (struct run_output){.in = -1, .done = {-1, -1}};
    int pipe_fds[2];
    if (pipe2(pipe_fds, O_CLOEXEC) != 0)
        return mfb_fail(err, "memfbench ab: --program-output: cannot make a pipe: %s", strerror(errno));
    o->in = pipe_fds[0];
    *to = pipe_fds[1];
    if (pipe2(o->done, O_CLOEXEC) != 0) {
        int e = errno;
        close(*to);
        *to = -1;
        output_close(o);
        return mfb_fail(err, "memfbench ab: --program-output: cannot make a pipe: %s", strerror(e));
    }
    fcntl(*to, F_SETPIPE_SZ, OUTPUT_PIPE_BYTES); /* a smaller pipe only makes the program wait more */
    o->head = malloc(OUTPUT_HALF);
    o->tail = malloc(OUTPUT_HALF);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    o->started = o->head && o->tail && pthread_create(&o->reader, NULL, output_reader, o) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (o->started)
        return 0;
    close(*to);
    *to = -1;
    output_close(o);
    return mfb_fail(err, "memfbench ab: --program-output: out of memory or threads");
}

/* --program-output: the run's output appended under a line naming the run, its head and tail when
 * it is long, nothing more once the file holds its bound. */
static int keep_output(struct mfb_ab *ab, const struct mfb_ab_run *r, const struct run_output *o, int n, int status,
                       struct mfb_err *err)
{
    int out = open(ab->program_output, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (out < 0)
        return mfb_fail(err, "memfbench ab: --program-output %s: %s", ab->program_output, strerror(errno));
    uint64_t size = o->total, after = size > OUTPUT_HALF ? size - OUTPUT_HALF : 0;
    bool room = ab->output_kept < MFB_AB_OUTPUT_TOTAL;
    char head[512];
    int k = snprintf(head, sizeof head, "== memfbench ab: run %d (block %d, arm %s): exit status %d, %llu bytes of "
                     "output%s ==\n", n, r->block + 1, ab->arms[r->arm].name, status, (unsigned long long)size,
                     room ? "" : "; not kept: this file holds its bound");
    uint64_t kept = write(out, head, (size_t)k) == k ? (uint64_t)k : 0;
    if (room) {
        /* the head, then the ring from its oldest byte: the whole output when it fits, else its two
         * ends around a line saying how much was cut */
        size_t h = (size_t)(size < OUTPUT_HALF ? size : OUTPUT_HALF);
        size_t t = (size_t)(after < OUTPUT_HALF ? after : OUTPUT_HALF), from = (size_t)(after % OUTPUT_HALF);
        bool ok = write(out, o->head, h) == (ssize_t)h;
        kept += h;
        if (after > OUTPUT_HALF) {
            k = snprintf(head, sizeof head, "\n== memfbench ab: %llu bytes of run %d's output cut here ==\n",
                         (unsigned long long)(after - OUTPUT_HALF), n);
            ok = ok && write(out, head, (size_t)k) == k;
            kept += (uint64_t)k;
        } else {
            from = 0; /* the ring never wrapped */
        }
        size_t first = t < OUTPUT_HALF - from ? t : OUTPUT_HALF - from;
        ok = ok && write(out, o->tail + from, first) == (ssize_t)first &&
             write(out, o->tail, t - first) == (ssize_t)(t - first);
        kept += t;
        char last = after ? o->tail[(after - 1) % OUTPUT_HALF] : size ? o->head[size - 1] : '\n';
        /* the next run's line starts a line of its own */
        if (ok && last != '\n' && write(out, "\n", 1) == 1)
            kept++;
    }
    ab->output_kept += kept;
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
    bool keep = strcmp(ab->program_output, "/dev/null") != 0;
    struct run_output output = {.in = -1, .done = {-1, -1}};
    int out = -1;
    if (keep ? output_open(&output, &out, err) < 0 : (out = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0)
        return keep ? -1 : mfb_fail(err, "memfbench ab: /dev/null: %s", strerror(errno));
    char **env = run_environ(ab, a, preload, sizeof preload, variant, sizeof variant, func, sizeof func, calls,
                             sizeof calls);
    if (!env) {
        close(out);
        output_close(&output);
        return mfb_fail(err, "memfbench ab: out of memory");
    }
    double limit = run_limit(ab);
    /* SIGKILL when ab dies: a run is worth nothing without ab, and a program that handles SIGTERM
     * would run on */
    struct mfb_prog p = {.kind = MFB_PROG_PROGRAM, .who = "memfbench ab", .name = ab->program, .path = ab->program,
                         .argv = argv, .env = env, .in = MFB_IO_NULL, .out = MFB_IO_FD, .err = MFB_IO_FD,
                         .out_fd = out, .err_fd = out, .death_signal = SIGKILL, .limit_s = limit, .cpu = ab->cpu};
    struct mfb_prog_outcome end;
    int rc = mfb_prog_run(&p, &end, err);
    close(out); /* the run and all it started are gone: the reader sees the pipe's end */
    free(env);
    if (rc < 0) {
        output_close(&output);
        return -1;
    }
    mfb_prog_outcome_free(&end);
    r->wall_s = end.wall_s;
    if (end.wall_s > ab->longest_wall_s)
        ab->longest_wall_s = end.wall_s;
    r->user_s = end.user_s;
    r->sys_s = end.sys_s;
    r->leftovers = end.leftovers;
    ab->leftovers += end.leftovers;
    *status = end.status;
    if (end.end == MFB_PROG_NOT_STARTED) {
        output_close(&output);
        return mfb_fail(err, "memfbench ab: run %d (block %d, arm %s): %s %s; no file written", n, r->block + 1, a->name,
                        ab->program, end.why);
    }
    if (a->kind == MFB_AB_PLAIN)
        r->calls = -1;
    else
        calls_read(ab, r);
    if (end.end == MFB_PROG_STOPPED) {
        output_close(&output);
        *exit_status = 128 + end.signal;
        return mfb_fail(err, "memfbench ab: interrupted by %s during run %d (block %d, arm %s): the program%s "
                        "stopped; no file written", mfb_stop_signal_name(end.signal), n, r->block + 1, a->name,
                        end.leftovers ? " and what it left running were" : " was");
    }
    if (end.end == MFB_PROG_TIMED_OUT) {
        output_close(&output);
        return mfb_fail(err, "memfbench ab: run %d (block %d, arm %s): %s had not ended after %.0f s (%s); stopped, "
                        "no file written", n, r->block + 1, a->name, ab->program, limit,
                        ab->watchdog_s > 0 ? "--watchdog" : "the default limit: 10 minutes for the first run, then 10 "
                        "times the longest run, at least 60 s; --watchdog S sets another");
    }
    if (keep) {
        output_finish(&output);
        r->output_bytes = output.total;
        rc = keep_output(ab, r, &output, n, end.status, err);
    }
    output_close(&output);
    return rc;
}

/* A run that ended with status 0 is a sample only when it ran through the shim, did its work and
 * was not cut short by the variant: its count file still the shim's, some of the function's calls
 * counted, no process that exited inside the variant's code, and (--predict-from) about as many
 * calls under libc as the recording counted. A variant's count is not held against libc's: the
 * calls of a program that works for a given time follow its share of the CPU. */
static int check_work(const struct mfb_ab *ab, const struct mfb_ab_run *r, int n, struct mfb_err *err)
{
    const char *f = mfb_func_name(ab->func), *arm = ab->arms[r->arm].name;
    if (r->calls < 0)
        return 0; /* plain: no shim to count */
    if (r->uncounted)
        return mfb_fail(err, "memfbench ab: run %d (block %d, arm %s): the shim could not count: its count file "
                        "($MEMFBENCH_AB_CALLS) is no longer a regular file (%s made it a FIFO, a folder or a link, or "
                        "removed it); a run that cannot be counted is not a sample", n, r->block + 1, arm, ab->program);
    if (r->exits_inside)
        return mfb_fail(err, "memfbench ab: run %d (block %d, arm %s): %d process%s of %s exited inside the code of "
                        "the variant %s (it called exit): a run cut short by its variant is not a sample", n,
                        r->block + 1, arm, r->exits_inside, r->exits_inside == 1 ? "" : "es", ab->program, arm);
    if (r->calls == 0)
        return mfb_fail(err, "memfbench ab: run %d (block %d, arm %s): the shim counted no %s call: %s makes none through "
                        "the dynamic C library, or its processes dropped LD_PRELOAD, or the run ended without its exit "
                        "handlers (a variant that calls _exit); a run that did not do the work is not a sample",
                        n, r->block + 1, arm, f, ab->program);
    double k = MFB_AB_CALLS_FACTOR;
    if (ab->recorded_calls && ab->arms[r->arm].kind == MFB_AB_LIBC &&
        ((double)r->calls * k < (double)ab->recorded_calls || (double)r->calls > k * (double)ab->recorded_calls))
        return mfb_fail(err, "memfbench ab: run %d (block %d, arm libc): the shim counted %lld %s call%s, the recording "
                        "%llu (--predict-from's provenance.json): a recording of another program or input, or work "
                        "that runs without the shim (a process that drops LD_PRELOAD); the prediction would not be "
                        "of these runs", n, r->block + 1, (long long)r->calls, f,
                        r->calls == 1 ? "" : "s", (unsigned long long)ab->recorded_calls);
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
    struct mfb_progress progress; /* the blocks, with the time left from those run (a terminal only) */
    mfb_progress_start(&progress, stderr, "memfbench ab", "block", blocks, quiet);
    mfb_progress_step(&progress, stderr, 0, NULL);
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
            if (check_work(ab, r, ab->ndone, err) < 0)
                return -1;
        }
        if (b + 1 < blocks)
            mfb_progress_step(&progress, stderr, b + 1, NULL);
    }
    mfb_progress_end(&progress, stderr);
    return 0;
}
