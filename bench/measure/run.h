/* A study: self-check the sampler, verify every variant, calibrate one batch size for all,
 * then run interleaved rounds until a stop rule fires, keeping every batch. */
#ifndef MFB_RUNNER_H
#define MFB_RUNNER_H

#include <signal.h>
#include <stdint.h>

#include "cli.h"
#include "distribution.h"
#include "error.h"
#include "samples.h"
#include "selfcheck.h"
#include "timer.h"
#include "variants.h"
#include "warn.h"
#include "workset.h"

struct mfb_run_variant {
    const struct mfb_variant *v; /* points at own */
    struct mfb_variant own;      /* the registry entry with run-time code resolved */
    size_t copy_bytes_compared;  /* A/A copies: bytes compared with the original's code */
    bool copy_identical;
    struct mfb_codeinfo code;
    uint64_t verified_calls;
    double pilot_ns_per_call;
    double linearity;        /* min time of 2N passes / (2 x min time of N passes) at calibration */
};

struct mfb_run {
    const struct mfb_config *cfg;
    const struct mfb_dist *dist;
    struct mfb_workset *ws;
    const struct mfb_timer *timer;
    struct mfb_warnings *warn;
    struct mfb_run_variant vars[MFB_MAX_VARIANTS];
    int nvars;
    uint64_t seed; /* master seed; sub-streams derive from it */
    /* calibration, as used */
    uint32_t calls_per_pass;
    uint32_t passes;
    double target_batch_ns, max_batch_ns;
    double fastest_batch_ns, slowest_batch_ns; /* predicted from the pilot */
    const char *batch_rule;
    bool single_call;            /* calls so long that each batch times one call */
    double linearity_tolerance;  /* |linearity - 1| above this warns */
    double overhead_ns_per_call; /* the function's noop through the same loop, always measured */
    struct mfb_selfcheck selfcheck;
    double prepare_s;
    /* results */
    struct mfb_samples samples;
    uint32_t rounds, warmup_rounds;
    const char *warmup_mode;     /* "detected" or "fixed" */
    bool warmup_settled;         /* detected: the criterion was met (else the cap ended it) */
    double warmup_change;        /* last relative change between the two windows */
    double warmup_s;
    double target_widths[MFB_MAX_VARIANTS]; /* --target-ci: half-width reached per variant */
    bool target_reached;
    const char *stop_reason; /* "time", "rounds", "target_ci", "interrupted" */
    double rounds_s;
};

int mfb_run_prepare(struct mfb_run *r, struct mfb_err *err);
/* stop is set asynchronously (SIGINT/SIGTERM); the loop checks it between batches. */
int mfb_run_rounds(struct mfb_run *r, volatile sig_atomic_t *stop, struct mfb_err *err);
void mfb_run_free(struct mfb_run *r);

#endif
