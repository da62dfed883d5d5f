/* A program memfbench starts and answers for (record's program, ab's program and its replays):
 * started in a child, waited for, and stopped within a second when memfbench is asked to stop or
 * when it outlives its time limit, with every process it left behind.
 *
 * Stopping: a stop request (SIGINT, SIGTERM, SIGHUP to memfbench) is passed on to the program (to
 * its process group when it has one of its own), which gets MFB_STOP_GRACE_MS to end; then it and its
 * group are killed (SIGKILL). memfbench is the subreaper of what the program starts, so a daemon
 * that left the group (setsid, double fork) is still its descendant: after the program ends, each
 * process it left running is killed and counted. The program is started with PR_SET_PDEATHSIG,
 * so that a memfbench killed outright (SIGKILL, which no handler sees) does not leave the program
 * itself running; its own children can outlive it then, as nothing is left to stop them. */
#ifndef MFB_SUPERVISE_H
#define MFB_SUPERVISE_H

#include <stdbool.h>

#include "base/error.h"

struct mfb_supervised {
    const char *who;            /* message prefix: "memfbench ab" */
    const char *name;           /* the program, as messages name it */
    /* In the child, after fork: descriptors, environment, affinity, then exec; must not return
     * (it _exits 127 when exec fails). */
    void (*in_child)(void *ctx);
    void *ctx;
    /* A process group of its own: a stop reaches the program and everything in its group, and
     * the terminal's Ctrl-C reaches memfbench only, which passes it on once. A program that reads
     * the terminal (record's may be interactive) keeps memfbench's group. */
    bool own_group;
    int death_signal;           /* PR_SET_PDEATHSIG: sent to the program when memfbench dies */
    double limit_s;             /* the program is stopped after this long; 0: no limit */
};

/* How long the program gets to end after a stop request (or its time limit) before it is killed:
 * memfbench ends within a second of the signal, whatever the program does with it. */
#define MFB_STOP_GRACE_MS 750

struct mfb_supervised_end {
    int status;                 /* exit status, or 128 + signal when killed */
    int signal;                 /* the signal that ended it; 0: it exited (status 129-255 too) */
    int stop_signal;            /* nonzero: a stop request for this signal came while it ran */
    bool timed_out;             /* it outlived limit_s and was stopped */
    bool killed;                /* it did not end within the grace and was killed */
    int leftovers;              /* processes it left running after it ended, killed */
    double wall_s, user_s, sys_s; /* wall: fork to end; CPU: wait4's, it and what it waited for */
};

/* The stop handlers for SIGINT, SIGTERM and SIGHUP, and this process as the subreaper of what
 * its children start. Once per process, before the first program. */
void mfb_supervise_install(void);
/* The signal of a stop request received since install (async-signal-safe to read), or 0. */
int mfb_supervise_stop_requested(void);
/* Runs the program to its end (or its stop); 0 with *end filled, -1 with err when it could not be
 * started at all. */
int mfb_supervise_run(const struct mfb_supervised *s, struct mfb_supervised_end *end, struct mfb_err *err);

#endif
