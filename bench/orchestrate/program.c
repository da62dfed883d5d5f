#include "orchestrate/program.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int mfb_program_find(const char *name, char *out, size_t n)
{
    if (strchr(name, '/'))
        return snprintf(out, n, "%s", name) < (int)n ? 0 : -1;
    const char *path = getenv("PATH");
    for (const char *p = path && *path ? path : "/usr/local/bin:/usr/bin:/bin"; *p;) {
        size_t len = strcspn(p, ":");
        struct stat st;
        if (snprintf(out, n, "%.*s/%s", (int)(len ? len : 1), len ? p : ".", name) < (int)n &&
            stat(out, &st) == 0 && S_ISREG(st.st_mode) && access(out, X_OK) == 0)
            return 0;
        p += len + (p[len] == ':');
    }
    return -1;
}

/* A stop request to record itself (SIGINT, SIGTERM, SIGHUP): the signal, and whether a process
 * sent it (kill) rather than the terminal, which sends it to the program as well. A handler
 * reaches static storage only. */
static volatile sig_atomic_t stop_signal, stop_sent;

static void on_stop(int sig, siginfo_t *info, void *ctx)
{
    (void)ctx;
    stop_signal = sig;
    stop_sent = info->si_code <= 0; /* SI_USER, SI_QUEUE, SI_TKILL: kill(2) and its kin */
}

/* How long the program gets to end after a stop request before it is killed: record ends within
 * a second of the signal, whatever the program does with it. */
#define STOP_GRACE_MS 750
/* At most this many scans for leftovers, this far apart: 0.32 s, deep enough for any process tree
 * a program leaves. */
#define LEFTOVER_PASSES 32
#define LEFTOVER_PAUSE_MS 10

/* After a stop: every process the program left behind (record is their subreaper, so the
 * orphans of a killed program are its children) is killed and reaped, so record leaves nothing
 * running. Children are found in /proc by their parent's pid; each pass kills one generation,
 * whose own children become record's in turn. Reaping never blocks: an orphan reparented after
 * the scan would otherwise hold record in waitpid until it ended by itself. */
static void kill_leftovers(void)
{
    pid_t self = getpid();
    for (int pass = 0; pass < LEFTOVER_PASSES; pass++) {
        DIR *d = opendir("/proc");
        if (!d)
            return;
        int found = 0;
        struct dirent *e;
        while ((e = readdir(d))) {
            char path[300], buf[512];
            if (e->d_name[0] < '1' || e->d_name[0] > '9')
                continue;
            snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
            FILE *f = fopen(path, "r");
            if (!f)
                continue;
            size_t n = fread(buf, 1, sizeof buf - 1, f);
            fclose(f);
            buf[n] = '\0';
            /* "pid (comm) state ppid ...": comm may hold spaces and parentheses, so from the last ')' */
            const char *rp = strrchr(buf, ')');
            char state;
            int ppid;
            if (rp && sscanf(rp + 1, " %c %d", &state, &ppid) == 2 && ppid == self) {
                kill((pid_t)atoi(e->d_name), SIGKILL);
                found++;
            }
        }
        closedir(d);
        while (waitpid(-1, NULL, WNOHANG) > 0)
            ;
        if (!found)
            return;
        struct timespec pause = {0, LEFTOVER_PAUSE_MS * 1000 * 1000}; /* for the killed to become zombies */
        nanosleep(&pause, NULL);
    }
}

/* Waits for pid; a stop request is passed on to it (unless the terminal already sent it) and
 * followed by SIGKILL when it has not ended STOP_GRACE_MS later. */
static int wait_program(pid_t pid, const char *name)
{
    int status, waited_ms = 0;
    bool passed_on = false;
    for (;;) {
        pid_t r = waitpid(pid, &status, stop_signal ? WNOHANG : 0);
        if (r == pid)
            break;
        if (r < 0 && errno != EINTR)
            return 127;
        if (!stop_signal)
            continue;
        if (!passed_on) {
            if (stop_sent)
                kill(pid, stop_signal);
            passed_on = true;
        }
        if (waited_ms >= STOP_GRACE_MS) {
            fprintf(stderr, "memfbench record: %s did not end within %d ms of signal %d; killed\n", name,
                    STOP_GRACE_MS, (int)stop_signal);
            kill(pid, SIGKILL);
            stop_signal = 0; /* wait for it without a timeout now */
            waited_ms = 0;
            continue;
        }
        struct timespec ms = {0, 10 * 1000 * 1000};
        nanosleep(&ms, NULL);
        waited_ms += 10;
    }
    if (passed_on)
        kill_leftovers();
    if (WIFSIGNALED(status)) {
        fprintf(stderr, "memfbench record: %s was killed by signal %d\n", name, WTERMSIG(status));
        return 128 + WTERMSIG(status);
    }
    return WEXITSTATUS(status);
}

int mfb_program_run(char **argv, const struct mfb_program_env *env)
{
    struct sigaction sa = {.sa_sigaction = on_stop, .sa_flags = SA_SIGINFO}; /* no SA_RESTART: waitpid returns */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    /* Orphans of the program become record's children, for kill_leftovers. */
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "memfbench record: cannot fork: %s\n", strerror(errno));
        return 127;
    }
    if (pid == 0) {
        /* record killed (even by SIGKILL): the program gets SIGTERM rather than running on as an
         * orphan; a parent gone before prctl took effect is caught by getppid. */
        if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != parent)
            _exit(127);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        const char *old = getenv("LD_PRELOAD");
        size_t n = strlen(env->preload) + (old ? strlen(old) : 0) + 2;
        char *preload = malloc(n);
        if (!preload)
            _exit(127);
        snprintf(preload, n, "%s%s%s", env->preload, old && *old ? ":" : "", old && *old ? old : "");
        setenv("LD_PRELOAD", preload, 1);
        setenv("MEMFBENCH_RECORD_DIR", env->raw_dir, 1);
        setenv("MEMFBENCH_RECORD_RATE", env->rate, 1);
        if (env->flush)
            setenv("MEMFBENCH_RECORD_FLUSH", env->flush, 1);
        if (env->trace)
            setenv("MEMFBENCH_RECORD_TRACE", env->trace, 1);
        execvp(argv[0], argv);
        fprintf(stderr, "memfbench record: %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    return wait_program(pid, argv[0]);
}

const char *mfb_program_library(const char *env, const char *build_path, const char *install_path)
{
    const char *e = getenv(env);
    if (e && *e)
        return e;
    struct stat st;
    return stat(build_path, &st) == 0 && S_ISREG(st.st_mode) ? build_path : install_path;
}
