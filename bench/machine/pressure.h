/* --icache-pressure SIZE: a block of generated code run after every call inside the timed loop,
 * so each call starts with its own code and branch history partly evicted, as in a program whose
 * other hot code runs between its memcpy calls (where small functions win). The block is a
 * chain of SIZE / 64 taken jumps, one per 64-byte line: it touches SIZE bytes of instruction
 * cache and one branch-target entry per line, and costs the same for every variant (the noop
 * variant measures it with the loop). */
#ifndef MFB_PRESSURE_H
#define MFB_PRESSURE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "machine/timer.h"
#include "study/study.h"


struct mfb_pressure {
    size_t bytes;        /* 0: none */
    size_t branches;     /* taken jumps per run of the block */
    void *code;
    size_t mapped;
    void (*fn)(void);
    double ns_per_run;   /* the block alone, called back to back (median of repeats) */
};

/* Generates a block of `bytes` (a multiple of 64, from 64 to MFB_PRESSURE_MAX) and times it. */
int mfb_pressure_make(struct mfb_pressure *p, size_t bytes, const struct mfb_timer *t, struct mfb_err *err);
void mfb_pressure_free(struct mfb_pressure *p);

#endif
