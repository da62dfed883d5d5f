#include "orchestrate/supervise.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* At most this many scans for leftovers, this far apart: 0.32 s, deep enough for any process tree
 * a program leaves (each scan kills one generation). */
#define LEFTOVER_PASSES 32
#define LEFTOVER_PAUSE_MS 10
/* Distinct leftovers remembered for the count; a tree larger than this is still killed whole,
 * only its count stops here. */
#define LEFTOVER_COUNTED 4096

/* What the handlers saw. A handler reaches static storage only: the signal of a stop request,
 * whether a process sent it (kill(2)) rather than the terminal, and the time limit passing. Each
 * also writes a byte to wake, so that the wait below, which sleeps in poll(2) on it, can never
 * miss a signal that arrives just before it sleeps. */
static volatile sig_atomic_t stop_signal, stop_sent, limit_passed;
static int wake[2] = {-1, -1};

static void poke(void)
{
    int saved = errno;
    if (wake[1] >= 0 && write(wake[1], "", 1) < 0) {
        /* the pipe is full: a wake-up is already pending */
    }
    errno = saved;
}

static void on_stop(int sig, siginfo_t *info, void *ctx)
{
    (void)ctx;
    stop_signal = sig;
    stop_sent = info->si_code <= 0; /* SI_USER, SI_QUEUE, SI_TKILL: kill(2) and its kin */
    poke();
}

static void on_alarm(int sig)
{
    (void)sig;
    limit_passed = 1;
    poke();
}

static void on_child(int sig)
{
    (void)sig;
    poke();
}

void mfb_supervise_install(void)
{
    if (wake[0] < 0 && pipe(wake) == 0)
        for (int i = 0; i < 2; i++)
            fcntl(wake[i], F_SETFL, O_NONBLOCK), fcntl(wake[i], F_SETFD, FD_CLOEXEC);
    struct sigaction sa = {.sa_sigaction = on_stop, .sa_flags = SA_SIGINFO}; /* no SA_RESTART */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    struct sigaction al = {.sa_handler = on_alarm};
    sigemptyset(&al.sa_mask);
    sigaction(SIGALRM, &al, NULL);
    struct sigaction ch = {.sa_handler = on_child, .sa_flags = SA_NOCLDSTOP};
    sigemptyset(&ch.sa_mask);
    sigaction(SIGCHLD, &ch, NULL);
    /* Orphans of the program become this process's children, so they can be found and stopped. */
    prctl(PR_SET_CHILD_SUBREAPER, 1);
}

int mfb_supervise_stop_requested(void)
{
    return stop_signal;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void drain(void)
{
    char buf[64];
    while (read(wake[0], buf, sizeof buf) > 0)
        ;
}

/* Sleeps until a handler pokes, or ms milliseconds (-1: no limit). */
static void sleep_for_poke(int ms)
{
    struct pollfd p = {.fd = wake[0], .events = POLLIN};
    if (poll(&p, 1, ms) > 0)
        drain();
}

static void set_limit(double s)
{
    struct itimerval t = {0};
    t.it_value.tv_sec = (time_t)s;
    t.it_value.tv_usec = (suseconds_t)((s - (double)(time_t)s) * 1e6);
    if (s > 0 && t.it_value.tv_sec == 0 && t.it_value.tv_usec == 0)
        t.it_value.tv_usec = 1;
    setitimer(ITIMER_REAL, &t, NULL);
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

/* Passes sig on to the program: to its group when it has one (the terminal's signal reached only
 * memfbench's group), else to it alone, and only when a process sent it (the terminal's signal
 * reached the program already). */
static void pass_on(const struct mfb_supervised *s, pid_t pid, int sig, bool sent)
{
    if (s->own_group)
        kill(-pid, sig);
    else if (sent)
        kill(pid, sig);
}

int mfb_supervise_run(const struct mfb_supervised *s, struct mfb_supervised_end *end, struct mfb_err *err)
{
    *end = (struct mfb_supervised_end){0};
    if (wake[0] < 0)
        return mfb_fail(err, "%s: the stop handlers are not installed (cannot supervise %s)", s->who, s->name);
    drain();
    limit_passed = 0;
    pid_t parent = getpid();
    double t0 = now_s();
    pid_t pid = fork();
    if (pid < 0)
        return mfb_fail(err, "%s: cannot start %s: %s", s->who, s->name, strerror(errno));
    if (pid == 0) {
        /* memfbench killed (even by SIGKILL): the program gets death_signal rather than running on
         * as an orphan; a parent gone before prctl took effect is caught by getppid. */
        if (prctl(PR_SET_PDEATHSIG, s->death_signal) != 0 || getppid() != parent)
            _exit(127);
        if (s->own_group)
            setpgid(0, 0);
        struct sigaction dfl = {.sa_handler = SIG_DFL};
        sigemptyset(&dfl.sa_mask);
        const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGALRM, SIGCHLD};
        for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
            sigaction(sigs[i], &dfl, NULL);
        s->in_child(s->ctx);
        _exit(127);
    }
    if (s->own_group)
        setpgid(pid, pid); /* both sides set it: whichever runs first, no signal finds it unset */
    if (s->limit_s > 0)
        set_limit(s->limit_s);
    int status = 0;
    struct rusage ru = {0};
    bool stopping = false;
    double deadline = 0;
    for (;;) {
        pid_t r = wait4(pid, &status, WNOHANG, &ru);
        if (r == pid)
            break;
        if (r < 0 && errno != EINTR) {
            status = 127 << 8;
            break;
        }
        if (!stopping && (stop_signal || limit_passed)) {
            stopping = true;
            deadline = now_s() + MFB_STOP_GRACE_MS / 1e3;
            if (stop_signal) {
                end->stop_signal = stop_signal;
                pass_on(s, pid, stop_signal, stop_sent);
            } else {
                end->timed_out = true;
                pass_on(s, pid, SIGTERM, true);
            }
        }
        if (stopping && !end->killed && now_s() >= deadline) {
            end->killed = true;
            kill(pid, SIGKILL);
            if (s->own_group)
                kill(-pid, SIGKILL);
        }
        /* Between requests the wait sleeps without waking: no wake-ups beside a timed program. */
        sleep_for_poke(stopping ? 10 : -1);
    }
    double t1 = now_s();
    if (s->limit_s > 0)
        set_limit(0);
    end->wall_s = t1 - t0;
    end->user_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
    end->sys_s = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
    end->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    end->signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    /* A program's group or orphans still running after it ended: always stopped when the program
     * has a group of its own (ab: a daemon of one run would load the next), and after a stop for
     * one that shares memfbench's group (record: a normal end leaves what it started alone). */
    if (s->own_group || stopping)
        end->leftovers = kill_leftovers(s->own_group ? pid : 0);
    return 0;
}
