/* valgrind's callgrind for memfbench counts (orchestrate/callgrind.h). */
#include "orchestrate/callgrind.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *const event_names[MFB_CG_EVENTS] = {"Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr",
                                                       "DLmw", "Bc", "Bcm", "Bi", "Bim"};

const char *mfb_cg_event_name(enum mfb_cg_event e)
{
    return event_names[e];
}

/* -q: valgrind's banner and summary stay off stderr, so a failure's line is the program's own.
 * --collect-atstart=no: nothing counts until the toggled function is entered (the set-up, the
 * sampler and the verification run millions of instructions). --dump-instr=no: the totals are all
 * we read, and a smaller file is written faster. */
const char *const mfb_cg_options[] = {"--tool=callgrind", "-q", "--cache-sim=yes", "--branch-sim=yes",
                                      "--collect-atstart=no", "--dump-instr=no", NULL};

int mfb_cg_find(char *path, size_t cap, struct mfb_err *err)
{
    const char *p = getenv("PATH");
    while (p && *p) {
        const char *end = strchr(p, ':');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n > 0 && (size_t)snprintf(path, cap, "%.*s/valgrind", (int)n, p) < cap && access(path, X_OK) == 0)
            return 0;
        p = end ? end + 1 : NULL;
    }
    return mfb_fail(err, "memfbench counts: valgrind not found on PATH: install it (Debian/Ubuntu package valgrind)");
}

/* Runs argv with its stdout into out (at most cap - 1 bytes kept); the exit status, or -1. */
static int run_capture(char *const *argv, char *out, size_t cap, struct mfb_err *err)
{
    int fd[2];
    if (pipe(fd) < 0)
        return mfb_fail(err, "memfbench counts: pipe: %s", strerror(errno));
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return mfb_fail(err, "memfbench counts: fork: %s", strerror(errno));
    }
    if (pid == 0) {
        dup2(fd[1], STDOUT_FILENO);
        close(fd[0]);
        close(fd[1]);
        execv(argv[0], argv);
        fprintf(stderr, "memfbench counts: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(fd[1]);
    size_t len = 0;
    char chunk[4096];
    ssize_t got;
    while ((got = read(fd[0], chunk, sizeof chunk)) != 0) {
        if (got < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        size_t keep = (size_t)got < cap - 1 - len ? (size_t)got : cap - 1 - len;
        memcpy(out + len, chunk, keep);
        len += keep;
    }
    out[len] = 0;
    close(fd[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return mfb_fail(err, "memfbench counts: waitpid: %s", strerror(errno));
    if (WIFSIGNALED(status))
        return mfb_fail(err, "memfbench counts: %s ended by signal %d", argv[0], WTERMSIG(status));
    return WEXITSTATUS(status);
}

int mfb_cg_version(const char *valgrind, char *out, size_t cap, struct mfb_err *err)
{
    char *argv[] = {(char *)valgrind, "--version", NULL};
    int rc = run_capture(argv, out, cap, err);
    if (rc < 0)
        return -1;
    out[strcspn(out, "\n")] = 0;
    if (rc != 0 || strncmp(out, "valgrind-", 9) != 0)
        return mfb_fail(err, "memfbench counts: %s --version did not say which valgrind it is", valgrind);
    return 0;
}

/* The totals line ("totals:" where callgrind writes one, else "summary:") in the order of the
 * "events:" line, and the "desc:" lines of the simulated caches. */
static int read_totals(const char *path, struct mfb_cg_result *r, struct mfb_err *err)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return mfb_fail(err, "memfbench counts: callgrind wrote no %s: %s", path, strerror(errno));
    char line[4096], events[1024] = "", totals[1024] = "", summary[1024] = "";
    int ncache = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        if (!strncmp(line, "events: ", 8))
            snprintf(events, sizeof events, "%.1023s", line + 8);
        else if (!strncmp(line, "totals: ", 8))
            snprintf(totals, sizeof totals, "%.1023s", line + 8);
        else if (!strncmp(line, "summary: ", 9))
            snprintf(summary, sizeof summary, "%.1023s", line + 9);
        else if (!strncmp(line, "desc: ", 6) && ncache < 3 && strstr(line, " cache:"))
            snprintf(r->caches[ncache++], sizeof r->caches[0], "%.95s", line + 6);
    }
    fclose(f);
    const char *values = totals[0] ? totals : summary;
    if (!events[0] || !values[0])
        return mfb_fail(err, "memfbench counts: %s has no events or totals line", path);
    bool seen[MFB_CG_EVENTS] = {0};
    char *save = NULL, *vp = (char *)values;
    for (char *name = strtok_r(events, " ", &save); name; name = strtok_r(NULL, " ", &save)) {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(vp, &end, 10);
        if (end == vp && *vp == 0)
            v = 0; /* callgrind leaves trailing zero counts out */
        else if (end == vp || errno)
            return mfb_fail(err, "memfbench counts: %s: totals line unreadable at '%.20s'", path, vp);
        vp = end;
        for (int e = 0; e < MFB_CG_EVENTS; e++)
            if (!strcmp(name, event_names[e])) {
                r->total[e] = v;
                seen[e] = true;
            }
    }
    for (int e = 0; e < MFB_CG_EVENTS; e++)
        if (!seen[e])
            return mfb_fail(err, "memfbench counts: %s does not count %s (cache and branch simulation off?)", path,
                            event_names[e]);
    return 0;
}

int mfb_cg_run(char *const *argv, const char *outfile, struct mfb_cg_result *r, struct mfb_err *err)
{
    memset(r, 0, sizeof *r);
    int rc = run_capture(argv, r->out, sizeof r->out, err);
    if (rc < 0)
        return -1;
    if (rc != 0)
        return mfb_fail(err, "memfbench counts: the replay under callgrind failed (exit %d; its message above)", rc);
    return read_totals(outfile, r, err);
}
