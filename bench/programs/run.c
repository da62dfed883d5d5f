#include "programs/run.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/environ.h"
#include "programs/find.h"
#include "programs/reexec.h"
#include "programs/reply.h"
#include "programs/stop.h"

extern char **environ;

/* At most this many scans for leftovers, this far apart: 0.32 s, deep enough for any process tree
 * a program leaves (each scan kills one generation). */
#define LEFTOVER_PASSES 32
#define LEFTOVER_PAUSE_MS 10
/* Distinct leftovers remembered for the count; a tree larger than this is still killed whole,
 * only its count stops here. */
#define LEFTOVER_COUNTED 4096
/* What is kept of a captured stream when the caller says nothing: a compiler's first error, a
 * child's last line, are near its start or end, and 64 KiB holds both for anything sane. */
#define CAPTURE_DEFAULT (64u << 10)
/* After the program and what it left are gone, its pipes are read to their end for at most this
 * long: a writer that escaped every scan cannot hold memfbench. */
#define DRAIN_MS 200

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* A stream being read: what is kept (cap bytes at most, NUL-terminated) and whether more came. */
struct sink {
    int fd;
    char *buf;
    size_t len, cap;
    bool cut;
};

static void sink_read(struct sink *s)
{
    char chunk[4096];
    for (;;) {
        ssize_t k = read(s->fd, chunk, sizeof chunk);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            if (k == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) {
                close(s->fd);
                s->fd = -1;
            }
            return;
        }
        size_t keep = s->len < s->cap ? s->cap - s->len : 0;
        keep = (size_t)k < keep ? (size_t)k : keep;
        memcpy(s->buf + s->len, chunk, keep);
        s->len += keep;
        s->buf[s->len] = '\0';
        s->cut |= keep < (size_t)k;
    }
}

/* Whether pid was seen before (and now is): the count of distinct leftovers. */
static bool seen(pid_t *pids, int *n, pid_t pid)
{
    for (int i = 0; i < *n; i++)
        if (pids[i] == pid)
            return true;
    if (*n < LEFTOVER_COUNTED)
        pids[(*n)++] = pid;
    return false;
}

/* Every process the program left: this process's children (the subreaper's orphans) and, when the
 * program had a group of its own, the group's members. Each pass kills what it finds; the killed
 * processes' children become this process's in turn and are found by the next pass. Reaping never
 * blocks: an orphan reparented after the scan would otherwise hold memfbench until it ended. */
static int kill_leftovers(pid_t group)
{
    pid_t self = getpid();
    pid_t *pids = malloc(LEFTOVER_COUNTED * sizeof *pids);
    int counted = 0, total = 0;
    for (int pass = 0; pass < LEFTOVER_PASSES; pass++) {
        DIR *d = opendir("/proc");
        if (!d)
            break;
        int found = 0;
        struct dirent *e;
        while ((e = readdir(d))) {
            char path[300], buf[512];
            if (e->d_name[0] < '1' || e->d_name[0] > '9')
                continue;
            snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
            int fd = open(path, O_RDONLY | O_CLOEXEC);
            if (fd < 0)
                continue;
            ssize_t n = read(fd, buf, sizeof buf - 1);
            close(fd);
            if (n <= 0)
                continue;
            buf[n] = '\0';
            /* "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses, so from the
             * last ')' */
            const char *rp = strrchr(buf, ')');
            char state;
            int ppid, pgrp;
            if (!rp || sscanf(rp + 1, " %c %d %d", &state, &ppid, &pgrp) != 3)
                continue;
            if (state == 'Z' || state == 'X') {
                /* a child of ours that has just exited: its own children are being handed to us
                 * now, and may not show this process as their parent yet; another pass finds them */
                found += ppid == self;
                continue;
            }
            if (ppid == self || (group > 0 && pgrp == group)) {
                pid_t pid = (pid_t)atoi(e->d_name);
                kill(pid, SIGKILL);
                found++;
                if (pids && !seen(pids, &counted, pid))
                    total++;
            }
        }
        closedir(d);
        while (waitpid(-1, NULL, WNOHANG) > 0)
            ;
        if (!found)
            break;
        struct timespec pause = {0, LEFTOVER_PAUSE_MS * 1000 * 1000}; /* for the killed to become zombies */
        nanosleep(&pause, NULL);
    }
    free(pids);
    return total;
}

/* What the child needs, made before fork: after it, a child of a process with threads may only
 * call async-signal-safe functions. */
struct launch {
    const char *path;
    char *const *argv;
    char *const *env;
    int in, out, err;        /* descriptors for 0, 1, 2; -1: keep ours */
    bool err_to_out;         /* 2 is a copy of 1 */
    int reply;               /* the reply pipe's write end, kept across exec; -1: none */
    int status;              /* the exec-status pipe's write end (close-on-exec) */
    bool own_group;
    int death_signal;
    pid_t parent;
    int cpu;
    rlim_t memory;
    const char *dir;
};

_Noreturn static void child(const struct launch *l)
{
    int e = 0;
    /* memfbench killed (even by SIGKILL): the program gets death_signal rather than running on as
     * an orphan; a parent gone before prctl took effect is caught by getppid. */
    if (prctl(PR_SET_PDEATHSIG, l->death_signal) != 0 || getppid() != l->parent)
        _exit(127);
    if (l->own_group)
        setpgid(0, 0);
    struct sigaction dfl = {.sa_handler = SIG_DFL};
    sigemptyset(&dfl.sa_mask);
    const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGALRM, SIGCHLD, SIGPIPE};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaction(sigs[i], &dfl, NULL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if ((l->in >= 0 && dup2(l->in, STDIN_FILENO) < 0) || (l->out >= 0 && dup2(l->out, STDOUT_FILENO) < 0) ||
        (l->err_to_out ? dup2(STDOUT_FILENO, STDERR_FILENO) < 0 : l->err >= 0 && dup2(l->err, STDERR_FILENO) < 0))
        e = errno;
    if (!e && l->reply >= 0 && fcntl(l->reply, F_SETFD, 0) < 0)
        e = errno;
    if (!e && l->cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(l->cpu, &set);
        if (sched_setaffinity(0, sizeof set, &set) != 0)
            e = errno;
    }
    if (!e && l->memory) {
        struct rlimit r = {l->memory, l->memory};
        setrlimit(RLIMIT_AS, &r); /* a bound above the hard limit is refused: the system's then holds */
    }
    if (!e && l->dir && chdir(l->dir) != 0)
        e = errno;
    if (!e) {
        execve(l->path, l->argv, l->env);
        e = errno;
    }
    /* the parent reads why from the status pipe; nothing is written to the program's stderr */
    ssize_t k = write(l->status, &e, sizeof e);
    (void)k;
    _exit(127);
}

/* Passes sig on to the program: to its group when it has one (the terminal's signal reached only
 * memfbench's group), else to it alone, and only when a process sent it (the terminal's signal
 * reached the program already). */
static void pass_on(pid_t pid, bool own_group, int sig, bool sent)
{
    if (own_group)
        kill(-pid, sig);
    else if (sent)
        kill(pid, sig);
}

static int open_pipe(int fd[2], bool nonblock_read)
{
    if (pipe2(fd, O_CLOEXEC) != 0)
        return -1;
    if (nonblock_read)
        fcntl(fd[0], F_SETFL, O_NONBLOCK);
    return 0;
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* The exec target and its argv: this binary (under the wrapper where set), a path, or a name found
 * on PATH; -1 with o->why when there is none. */
static int resolve(const struct mfb_prog *p, struct mfb_reexec *x, char *found, size_t cap, const char **path,
                   char *const **argv, struct mfb_prog_outcome *o)
{
    if (p->self) {
        struct mfb_err e = {{0}};
        if (mfb_reexec_prepare(x, (char **)p->argv, &e) < 0) {
            snprintf(o->why, sizeof o->why, "%.500s", e.msg);
            return -1;
        }
        *path = x->path;
        *argv = x->argv;
        return 0;
    }
    *argv = p->argv;
    if (mfb_program_find(p->path, found, cap) != 0) {
        snprintf(o->why, sizeof o->why, "%.400s: not found on PATH", p->path);
        return -1;
    }
    *path = found;
    return 0;
}

/* What ended the wait besides the program itself. */
struct ending {
    bool stopping, timed_out, silent;
};

/* Waits for pid to end, reading its pipes as they fill, and stops it (its group when it has one) on
 * a stop request, at its deadline, or when memfbench's own child says no first word in time: the
 * request passed on (SIGTERM for the others), then SIGKILL after the kind's grace. */
static void wait_for(const struct mfb_prog *p, pid_t pid, bool own_group, double limit, double t0,
                     struct sink *const sinks[3], int *wstatus, struct rusage *ru, struct ending *how,
                     struct mfb_prog_outcome *o)
{
    const struct mfb_prog_kind_info *kind = mfb_prog_kind(p->kind);
    const struct sink *reply = sinks[2];
    double first_word = p->first_word_s > 0 ? p->first_word_s : MFB_FIRST_WORD_S;
    double grace_end = 0;
    for (;;) {
        pid_t r = wait4(pid, wstatus, WNOHANG, ru);
        if (r == pid)
            break;
        if (r < 0 && errno != EINTR) {
            *wstatus = 127 << 8;
            break;
        }
        double t = now_s();
        if (!how->stopping) {
            int sig = mfb_stop_signal();
            if (sig) {
                o->signal = sig;
                pass_on(pid, own_group, sig, mfb_stop_sent());
            } else if (limit > 0 && t - t0 >= limit) {
                how->timed_out = true;
            } else if (p->reply && reply->len == 0 && t - t0 >= first_word) {
                how->silent = true;
            }
            if (sig || how->timed_out || how->silent) {
                how->stopping = true;
                grace_end = t + kind->grace_s;
                if (!sig)
                    pass_on(pid, own_group, SIGTERM, true);
            }
        }
        if (how->stopping && !o->killed && t >= grace_end) {
            o->killed = true;
            kill(pid, SIGKILL);
            if (own_group)
                kill(-pid, SIGKILL);
        }
        /* sleep until a pipe has bytes, a child ends or a request comes (the wake pipe), or the
         * next bound passes */
        double next = how->stopping ? grace_end : limit > 0 ? t0 + limit : -1;
        if (!how->stopping && p->reply && reply->len == 0 && (next < 0 || t0 + first_word < next))
            next = t0 + first_word;
        int ms = next < 0 ? -1 : next <= t ? 0 : (int)((next - t) * 1e3) + 1;
        if (o->killed)
            ms = 10; /* the killed end at once: look again soon */
        struct pollfd fds[4];
        int n = 0;
        fds[n++] = (struct pollfd){.fd = mfb_stop_wake_fd(), .events = POLLIN};
        for (int i = 0; i < 3; i++)
            if (sinks[i]->fd >= 0)
                fds[n++] = (struct pollfd){.fd = sinks[i]->fd, .events = POLLIN};
        if (poll(fds, (nfds_t)n, ms) > 0) {
            if (fds[0].revents)
                mfb_stop_drain();
            for (int i = 0; i < 3; i++)
                if (sinks[i]->fd >= 0)
                    sink_read(sinks[i]);
        }
    }
}

/* The pipes read to their end, within DRAIN_MS. */
static void drain_sinks(struct sink *const sinks[3])
{
    for (double until = now_s() + DRAIN_MS / 1e3; (sinks[0]->fd >= 0 || sinks[1]->fd >= 0 || sinks[2]->fd >= 0) &&
                                                  now_s() < until;) {
        struct pollfd fds[3];
        int n = 0;
        for (int i = 0; i < 3; i++)
            if (sinks[i]->fd >= 0)
                fds[n++] = (struct pollfd){.fd = sinks[i]->fd, .events = POLLIN};
        poll(fds, (nfds_t)n, 20);
        for (int i = 0; i < 3; i++)
            if (sinks[i]->fd >= 0)
                sink_read(sinks[i]);
    }
}

/* The descriptors and buffers of one run: the exec-status pipe, a pipe per captured stream and the
 * reply channel, /dev/null, and the child's environment when the reply channel is added to it. */
struct plumbing {
    int status[2], out[2], err[2], reply[2], null_fd;
    struct sink sink[3]; /* stdout, stderr, reply */
    char **env;
    char reply_var[40];
};

static int plumbing_open(const struct mfb_prog *p, struct plumbing *pl, struct mfb_err *err)
{
    *pl = (struct plumbing){.status = {-1, -1}, .out = {-1, -1}, .err = {-1, -1}, .reply = {-1, -1}, .null_fd = -1,
                            .sink = {{.fd = -1}, {.fd = -1}, {.fd = -1}}};
    bool capture[3] = {p->out == MFB_IO_CAPTURE, p->err == MFB_IO_CAPTURE, p->reply};
    int *pipes[3] = {pl->out, pl->err, pl->reply};
    size_t cap = p->capture_max ? p->capture_max : CAPTURE_DEFAULT;
    if (open_pipe(pl->status, false) != 0 || (pl->null_fd = open("/dev/null", O_RDWR | O_CLOEXEC)) < 0)
        return mfb_fail(err, "%s: cannot start %s: %s", p->who, p->name, strerror(errno));
    for (int i = 0; i < 3; i++) {
        if (!capture[i])
            continue;
        if (open_pipe(pipes[i], true) != 0)
            return mfb_fail(err, "%s: cannot start %s: %s", p->who, p->name, strerror(errno));
        pl->sink[i].cap = i == 2 ? MFB_REPLY_MAX : cap;
        if (!(pl->sink[i].buf = malloc(pl->sink[i].cap + 1)))
            return mfb_fail(err, "%s: out of memory starting %s", p->who, p->name);
        pl->sink[i].buf[0] = '\0';
    }
    if (p->reply) {
        snprintf(pl->reply_var, sizeof pl->reply_var, MFB_REPLY_ENV "=%d", pl->reply[1]);
        char *change[] = {pl->reply_var};
        if (!(pl->env = mfb_env_with(p->env ? p->env : environ, change, 1)))
            return mfb_fail(err, "%s: out of memory starting %s", p->who, p->name);
    }
    return 0;
}

/* The parent's side once the child runs: the write ends closed, the read ends into the sinks. */
static void plumbing_started(struct plumbing *pl)
{
    int *pipes[3] = {pl->out, pl->err, pl->reply};
    close_fd(&pl->status[1]);
    for (int i = 0; i < 3; i++) {
        close_fd(&pipes[i][1]);
        pl->sink[i].fd = pipes[i][0];
        pipes[i][0] = -1;
    }
}

/* Everything closed; the captured bytes handed to o. */
static void plumbing_close(struct plumbing *pl, struct mfb_prog_outcome *o)
{
    int *pipes[3] = {pl->out, pl->err, pl->reply};
    close_fd(&pl->status[0]);
    close_fd(&pl->status[1]);
    for (int i = 0; i < 3; i++) {
        close_fd(&pipes[i][0]);
        close_fd(&pipes[i][1]);
        close_fd(&pl->sink[i].fd);
    }
    close_fd(&pl->null_fd);
    free(pl->env);
    o->out = pl->sink[0].buf, o->out_len = pl->sink[0].len, o->out_cut = pl->sink[0].cut;
    o->err = pl->sink[1].buf, o->err_len = pl->sink[1].len, o->err_cut = pl->sink[1].cut;
    o->reply = pl->sink[2].buf, o->reply_len = pl->sink[2].len, o->reply_cut = pl->sink[2].cut;
}

/* How it ended, from its wait status and what ended the wait. */
static void classify(const struct mfb_prog *p, int wstatus, const struct ending *how, double limit,
                     const struct sink *reply, struct mfb_prog_outcome *o)
{
    bool exited = WIFEXITED(wstatus);
    o->status = exited ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
    if (o->signal)
        o->end = MFB_PROG_STOPPED;
    else if (how->timed_out)
        o->end = MFB_PROG_TIMED_OUT, o->limit_s = limit;
    else if (how->silent)
        o->end = MFB_PROG_SILENT;
    else if (!exited)
        o->end = MFB_PROG_SIGNALED, o->signal = WTERMSIG(wstatus);
    else if (p->reply && !mfb_reply_complete(reply->buf, reply->len))
        o->end = MFB_PROG_NO_REPLY;
    else
        o->end = MFB_PROG_EXITED;
}

int mfb_prog_run(const struct mfb_prog *p, struct mfb_prog_outcome *o, struct mfb_err *err)
{
    memset(o, 0, sizeof *o);
    mfb_stop_install();
    /* Orphans of the program become this process's children, so they can be found and stopped. */
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    struct mfb_reexec x = {0};
    char found[PATH_MAX];
    const char *path;
    char *const *argv;
    if (resolve(p, &x, found, sizeof found, &path, &argv, o) < 0) {
        o->end = MFB_PROG_NOT_STARTED;
        return 0;
    }
    struct plumbing pl;
    int rc = -1;
    if (plumbing_open(p, &pl, err) < 0)
        goto out;
    int to[3] = {pl.null_fd, pl.null_fd, pl.null_fd}; /* where 0, 1, 2 go */
    enum mfb_io io[2] = {p->out, p->err};
    int fds[2] = {p->out_fd, p->err_fd}, *pipes[2] = {pl.out, pl.err};
    for (int i = 0; i < 2; i++)
        to[i + 1] = io[i] == MFB_IO_INHERIT ? -1 : io[i] == MFB_IO_FD ? fds[i] : io[i] == MFB_IO_CAPTURE ? pipes[i][1]
                                                                                                        : pl.null_fd;
    struct launch l = {
        .path = path, .argv = argv, .env = pl.env ? pl.env : p->env ? p->env : environ,
        .in = p->in == MFB_IO_INHERIT ? -1 : pl.null_fd, .out = to[1], .err = to[2],
        .err_to_out = p->err == MFB_IO_TO_OUT, .reply = p->reply ? pl.reply[1] : -1, .status = pl.status[1],
        .own_group = !p->keep_group, .death_signal = p->death_signal ? p->death_signal : SIGKILL,
        .parent = getpid(), .cpu = p->cpu, .memory = (rlim_t)mfb_prog_kind(p->kind)->memory, .dir = p->dir};
    double limit = p->limit_s > 0 ? p->limit_s : mfb_deadline_of(p->deadlines, p->kind);
    fflush(NULL);
    double t0 = now_s();
    pid_t pid = fork();
    if (pid < 0) {
        mfb_fail(err, "%s: cannot start %s: %s", p->who, p->name, strerror(errno));
        goto out;
    }
    if (pid == 0)
        child(&l);
    if (l.own_group)
        setpgid(pid, pid); /* both sides set it: whichever runs first, no signal finds it unset */
    plumbing_started(&pl);
    /* exec's outcome: the pipe closes on a successful exec, or carries errno */
    int exec_errno = 0;
    ssize_t got;
    while ((got = read(pl.status[0], &exec_errno, sizeof exec_errno)) < 0 && errno == EINTR)
        ;
    rc = 0;
    if (got == (ssize_t)sizeof exec_errno) {
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
        o->end = MFB_PROG_NOT_STARTED;
        snprintf(o->why, sizeof o->why, "%.300s: %s", path, strerror(exec_errno));
        goto out;
    }
    int wstatus = 0;
    struct rusage ru = {0};
    struct ending how = {0};
    struct sink *sinks[3] = {&pl.sink[0], &pl.sink[1], &pl.sink[2]};
    wait_for(p, pid, l.own_group, limit, t0, sinks, &wstatus, &ru, &how, o);
    /* a request that came as it ended (the terminal's Ctrl-C reaches a program of memfbench's group
     * at once, and it may end before the wait looks): the run was stopped all the same */
    if (!o->signal && !how.timed_out && !how.silent && mfb_stop_signal())
        o->signal = mfb_stop_signal();
    o->wall_s = now_s() - t0;
    o->user_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
    o->sys_s = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
    /* What the program left running: always stopped when it had a group of its own (a daemon of
     * one run would load the next; a compiler's leftovers hold its pipes), and after a stop for one
     * that shares memfbench's group (record: a normal end leaves what it started alone). */
    if (l.own_group || how.stopping)
        o->leftovers = kill_leftovers(l.own_group ? pid : 0);
    drain_sinks(sinks);
    classify(p, wstatus, &how, limit, &pl.sink[2], o);
out:
    plumbing_close(&pl, o);
    mfb_reexec_free(&x);
    if (rc < 0)
        mfb_prog_outcome_free(o);
    return rc;
}

void mfb_prog_outcome_free(struct mfb_prog_outcome *o)
{
    free(o->out);
    free(o->err);
    free(o->reply);
    o->out = o->err = o->reply = NULL;
    o->out_len = o->err_len = o->reply_len = 0;
}

bool mfb_prog_ok(const struct mfb_prog_outcome *o)
{
    return o->end == MFB_PROG_EXITED && o->status == 0;
}

/* Where memfbench's own child never answered: under an exec wrapper, the likeliest cause. */
static const char *wrapper_hint(void)
{
    const char *w = getenv(MFB_EXEC_WRAPPER_ENV);
    return w && *w ? " (does " MFB_EXEC_WRAPPER_ENV " run the program it is given?)" : "";
}

void mfb_prog_describe(const struct mfb_prog *p, const struct mfb_prog_outcome *o, char *out, size_t cap)
{
    const struct mfb_prog_kind_info *k = mfb_prog_kind(p->kind);
    switch (o->end) {
    case MFB_PROG_EXITED:
        snprintf(out, cap, "exit status %d", o->status);
        return;
    case MFB_PROG_SIGNALED:
        snprintf(out, cap, "killed by signal %d (%s)", o->signal, strsignal(o->signal));
        return;
    case MFB_PROG_TIMED_OUT:
        snprintf(out, cap, "still running after its %g-s deadline for %s, stopped (--deadline %s=SECONDS)", o->limit_s,
                 k->what, k->name);
        return;
    case MFB_PROG_SILENT:
        snprintf(out, cap, "no word from it %g s after it was started, stopped%s",
                 p->first_word_s > 0 ? p->first_word_s : MFB_FIRST_WORD_S, wrapper_hint());
        return;
    case MFB_PROG_STOPPED:
        snprintf(out, cap, "stopped by %s", mfb_stop_signal_name(o->signal));
        return;
    case MFB_PROG_NOT_STARTED:
        snprintf(out, cap, "could not be started: %s", o->why);
        return;
    case MFB_PROG_NO_REPLY:
        snprintf(out, cap, "exit status %d before it answered%s", o->status, wrapper_hint());
        return;
    }
    snprintf(out, cap, "ended");
}

void mfb_prog_last_line(const char *text, char *out, size_t cap)
{
    out[0] = '\0';
    if (!text)
        return;
    const char *end = text + strlen(text);
    while (end > text && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' '))
        end--;
    const char *start = end;
    while (start > text && start[-1] != '\n')
        start--;
    if (!strncmp(start, "memfbench: ", 11))
        start += 11;
    snprintf(out, cap, "%.*s", (int)(end - start), start);
}
