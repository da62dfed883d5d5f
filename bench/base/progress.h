/* A long command's progress on the terminal: one line rewritten in place, with how far it is and
 * about how long is left (from the time its finished steps took), so a study of a minute on a
 * loaded machine, a suite or valgrind's counting is not a silent wait. Nothing at all where stderr
 * is a file or a pipe (a log, CI): its reader wants the outcome, not a hundred rewrites. */
#ifndef MFB_PROGRESS_H
#define MFB_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct mfb_progress {
    const char *who;   /* "memfbench", "memfbench suite" */
    const char *what;  /* what a step is: "process", "study", "variant", "block" */
    int total;         /* steps in all (0: unknown, no time left is said) */
    bool on;           /* a terminal, and not quiet */
    bool shown;        /* a line is on the terminal, to be ended */
    uint64_t t0;       /* when the first step started (CLOCK_MONOTONIC ns) */
};

/* Starts it: on only where out is a terminal and the command is not quiet. */
void mfb_progress_start(struct mfb_progress *p, FILE *out, const char *who, const char *what, int total, bool quiet);
/* Step `done` (0-based) starts, `detail` (may be NULL) after it: "memfbench: process 4 of 32, about
 * 9 s left". The time left is the time per finished step times the steps left. */
void mfb_progress_step(struct mfb_progress *p, FILE *out, int done, const char *detail);
/* Ends the line, so what follows starts on a line of its own. */
void mfb_progress_end(struct mfb_progress *p, FILE *out);

#endif
