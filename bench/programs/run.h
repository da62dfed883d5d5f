/* The one way memfbench starts a program and waits for it: a study's processes, the compiler and
 * linker, valgrind, the user's program (ab, record), this binary under the exec wrapper, git. The
 * contract, the same for every caller:
 *
 * - the program runs in a process group of its own (unless it must read the terminal: record's),
 *   with PR_SET_PDEATHSIG, under this process as subreaper, so that what it starts, even a daemon
 *   that left the group, stays findable;
 * - a stop request (programs/stop.h) is passed on to its group; what has not ended after its
 *   kind's grace is killed (SIGKILL), and so is anything it left running after it ended;
 * - every wait is bounded: the kind's deadline (programs/kinds.h, --deadline), and for memfbench's
 *   own processes the first word on the reply channel;
 * - its output is captured within a bound (what passes it is read and dropped, so the program
 *   never blocks on a full pipe) or sent where the caller says;
 * - it ends in a typed outcome that callers cannot take for success: exited N, killed by signal S,
 *   timed out, stopped by a request, never started, or started and produced no reply. */
#ifndef MFB_PROGRAMS_RUN_H
#define MFB_PROGRAMS_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "programs/kinds.h"

/* Where one of the program's standard streams goes. */
enum mfb_io {
    MFB_IO_NULL,    /* /dev/null */
    MFB_IO_INHERIT, /* ours */
    MFB_IO_CAPTURE, /* a pipe read into the outcome, within capture_max bytes */
    MFB_IO_FD,      /* the caller's descriptor (out_fd, err_fd) */
    MFB_IO_TO_OUT,  /* stderr only: wherever stdout goes (one text, in the order written) */
};

/* A program of memfbench's own that has not said a word on its reply channel this long after it
 * started is taken for one that never started (a wrapper that does not run it): the slowest start
 * seen, an aarch64 memfbench under qemu-user or under valgrind, takes a few seconds. */
#define MFB_FIRST_WORD_S 30.0

struct mfb_prog {
    enum mfb_prog_kind kind;
    const char *who;         /* the message prefix: "memfbench counts" */
    const char *name;        /* what messages call it: "the compiler", "process 3 of 32" */
    const char *path;        /* what to run: a path, or a name looked up on PATH when it has no '/' */
    char *const *argv;
    char *const *env;        /* NULL: this process's */
    bool self;               /* this binary again (programs/reexec.h: under MEMFBENCH_EXEC_WRAPPER where set);
                              * path is then unused and argv[0] is replaced */
    enum mfb_io in;          /* MFB_IO_NULL or MFB_IO_INHERIT */
    enum mfb_io out, err;
    int out_fd, err_fd;      /* for MFB_IO_FD */
    size_t capture_max;      /* bytes kept of each captured stream (0: 64 KiB) */
    bool reply;              /* memfbench's own child mode: a reply channel (programs/reply.h) */
    bool keep_group;         /* stay in memfbench's process group (a program that reads the terminal) */
    int death_signal;        /* sent to it when memfbench dies (PR_SET_PDEATHSIG; 0: SIGKILL) */
    const struct mfb_deadlines *deadlines; /* the command's --deadline (NULL: the defaults) */
    double limit_s;          /* > 0: this deadline instead of the kind's */
    double first_word_s;     /* with reply: > 0, this bound on the first word instead of MFB_FIRST_WORD_S */
    int cpu;                 /* >= 0: pinned to this CPU (and what it starts) */
    const char *dir;         /* NULL, or the folder it runs in */
};

enum mfb_prog_end {
    MFB_PROG_EXITED,      /* it exited, with status (0 or not) */
    MFB_PROG_SIGNALED,    /* a signal memfbench did not send ended it */
    MFB_PROG_TIMED_OUT,   /* it passed its deadline and was stopped */
    MFB_PROG_SILENT,      /* memfbench's own: no word on its reply channel within its first-word bound */
    MFB_PROG_STOPPED,     /* a stop request (signal) ended it */
    MFB_PROG_NOT_STARTED, /* it could not be started: not found, not executable, no fork */
    MFB_PROG_NO_REPLY,    /* memfbench's own: it exited without a complete reply */
};

struct mfb_prog_outcome {
    enum mfb_prog_end end;
    int status;              /* EXITED and NO_REPLY: its exit status */
    int signal;              /* SIGNALED: the signal; STOPPED: the stop request's */
    double limit_s;          /* TIMED_OUT: the deadline it passed */
    bool killed;             /* it (or its group) had to be killed after the grace */
    int leftovers;           /* processes it left running, killed */
    double wall_s, user_s, sys_s;
    char *out, *err, *reply; /* captured bytes, NUL-terminated (NULL when not captured) */
    size_t out_len, err_len, reply_len;
    bool out_cut, err_cut, reply_cut; /* more came than was kept */
    char why[512];           /* NOT_STARTED: why */
};

/* Runs p to its end (or its stop): 0 with *o filled (whatever the program did), -1 with err when
 * memfbench itself failed (no pipe, no memory); o is then empty but safe to free. */
int mfb_prog_run(const struct mfb_prog *p, struct mfb_prog_outcome *o, struct mfb_err *err);
void mfb_prog_outcome_free(struct mfb_prog_outcome *o);
/* Whether it exited 0 (and, for memfbench's own, replied). */
bool mfb_prog_ok(const struct mfb_prog_outcome *o);
/* How it ended, in words: "exit status 2", "killed by signal 9 (Killed)", "stopped by SIGTERM",
 * "still running after its 300-s deadline for a build step (--deadline build=S)", "never started:
 * ...", "exited 0 without a reply ...". */
void mfb_prog_describe(const struct mfb_prog *p, const struct mfb_prog_outcome *o, char *out, size_t cap);
/* The last non-empty line of a captured stream ("" when none), without a leading "memfbench: ". */
void mfb_prog_last_line(const char *text, char *out, size_t cap);

#endif
