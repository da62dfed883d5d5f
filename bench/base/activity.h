/* What the process is doing with the code under test right now, for the report a crash, an
 * exit() or a hang inside a variant leaves behind (orchestrate/guard.c). The stages that call variants
 * fill it in as they go (plain stores, no system calls: verification and timing must not pay for
 * it); the guard's signal handlers only read it. */
#ifndef MFB_ACTIVITY_H
#define MFB_ACTIVITY_H

#include <signal.h>
#include <stdint.h>

/* CALIBRATING (the batch shape, before the rounds) apart from TIMING (the rounds): a stop request
 * ends the first at once and lets the second finish its round, which keeps what was measured.
 * PREPARING is memfbench's own set-up before any variant runs (the distribution, the buffers and
 * their fill: over a second for a large arena): a stop ends it at the next tick, and no variant
 * is blamed for a crash or a long wait there. BUILDING is a program memfbench started that builds
 * the code under test (the compiler, --pgo's training): the program runner stops it and its group
 * on the request and returns (programs/run.h), so the guard leaves the stop to it, and what the
 * build made is removed on the way out. */
enum mfb_phase {
    MFB_PHASE_IDLE, MFB_PHASE_PREPARING, MFB_PHASE_LOADING, MFB_PHASE_VERIFYING, MFB_PHASE_CALIBRATING,
    MFB_PHASE_TIMING, MFB_PHASE_BUILDING
};

struct mfb_activity {
    volatile sig_atomic_t phase;     /* enum mfb_phase */
    volatile sig_atomic_t beat;      /* advanced per verified call and per timed batch: the watchdog's
                                        sign of progress */
    const char *volatile variant;    /* name of the variant being called */
    const char *volatile origin;     /* its description ("plugin lib.so:sym", ...), or NULL */
    const char *volatile function;   /* memcpy, memmove, ... */
    volatile uint64_t size;          /* verifying: the call's size and offsets; calibrating and
                                        timing: the largest call of the run's batches */
    volatile uint32_t src_mod, dst_mod;
    volatile int64_t delta;
    volatile uint32_t round;         /* timing: the round */
};

#endif
