/* Every random choice of a run flows from one 64-bit master seed through named streams, so that
 * changing one use of randomness does not move the others, and every stream is recorded. */
#ifndef MFB_SEEDS_H
#define MFB_SEEDS_H

#include <stdint.h>

enum mfb_stream {
    MFB_STREAM_PARAMS,    /* the calls replayed in the rounds */
    MFB_STREAM_ORDER,     /* the variants' order within each round */
    MFB_STREAM_SHIFT,     /* each pass's visiting order and large calls' page shifts */
    MFB_STREAM_VERIFY,    /* the correctness check's buffer contents */
    MFB_STREAM_SELFCHECK, /* the sampler self-check's draws */
    MFB_STREAM_CALIBRATE, /* the passes of calibration and the linearity check */
    MFB_STREAM_OVERHEAD,  /* the passes of the harness-overhead measurement */
    MFB_STREAM_ARENA,     /* the buffers' byte pattern */
    MFB_STREAM_ENV_PAD,   /* --processes: the length of a child's environment pad */
    MFB_STREAM_STACK,     /* the process's stack offset (machine/layout.h) */
    MFB_STREAM_CODE,      /* the code placements of the timed loop and the built-ins */
    MFB_STREAM_CHECK,     /* the placement check's sampled lines and walk orders */
    MFB_STREAM_COUNT
};

/* The stream's name in the result file ("params", "order", ...). */
const char *mfb_stream_name(enum mfb_stream s);
uint64_t mfb_stream_seed(uint64_t master, enum mfb_stream s);
/* --by-class: stream s of size class k (1-based), derived from the run's stream s. */
uint64_t mfb_class_seed(uint64_t master, enum mfb_stream s, int k);
/* --processes: the master seed of process i of a study. */
uint64_t mfb_process_seed(uint64_t master, int i);
/* --threads: the master seed of timing thread k >= 1 (its calls, passes and buffers); thread 0
 * uses the process's own. */
uint64_t mfb_thread_seed(uint64_t master, int k);

#endif
