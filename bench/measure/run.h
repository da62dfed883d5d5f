/* A run: one study measured in this process. Its parts are named after the step that fills them,
 * and each has its own serializer in report/document.c:
 *   mfb_run_prepare  self-check of the sampler, the calls, verification of every variant,
 *                    calibration of one batch shape for all (measure/prepare.c, calibrate.c);
 *   mfb_run_rounds   interleaved rounds, warm-up detection and the stop rules, every batch kept,
 *                    then the harness overhead (measure/rounds.c, warmup.c, stoprule.c). */
#ifndef MFB_RUN_H
#define MFB_RUN_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/activity.h"
#include "base/error.h"
#include "base/warn.h"
#include "impl/source.h"
#include "impl/variants.h"
#include "machine/background.h"
#include "machine/counters.h"
#include "measure/kernels.h"
#include "machine/layout.h"
#include "machine/pressure.h"
#include "measure/residency.h"
#include "measure/samples.h"
#include "study/study.h"
#include "measure/team.h"
#include "machine/timer.h"
#include "measure/workset.h"
#include "workload/classes.h"
#include "workload/distribution.h"
#include "workload/selfcheck.h"
#include "workload/sweep.h"
#include "workload/trace.h"

struct mfb_run_variant {
    const struct mfb_variant *v; /* points at own */
    struct mfb_variant own;      /* the registry entry with run-time code resolved */
    void *plugin;                /* a plugin's library handle (own's name and description are then owned) */
    struct mfb_source *source;   /* a source variant's build and its placements' libraries (impl/source.h),
                                  * owned by the variant (a copy of one points at its original's) */
    bool owns_source;
    bool layout_sentinel;        /* added to a study of prebuilt plugins to measure placement effects */
    size_t copy_bytes_compared;  /* A/A copies: bytes compared with the original's code */
    bool copy_identical;
    struct mfb_codeinfo code;
    int code_placement;               /* code placement (base/code_placement.h); -1: code memfbench cannot move;
                                  * rotating per round: the placement at round 0 */
    uint8_t extra;               /* steps past the slot's own start (an A/A copy moved off its original) */
    union mfb_fn at[MFB_CODE_PLACEMENTS]; /* placement >= 0: the code at every placement */
    uint64_t verified_calls;
    double pilot_ns_per_call;
    double linearity;            /* time of 2N passes / (time of N + time of the other N) */
};

/* The variant with its code at placement p (rv->code_placement >= 0): a copy, so other timing threads,
 * which share the run's variants, never see one change. */
static inline struct mfb_variant mfb_run_variant_at(const struct mfb_run_variant *rv, unsigned p)
{
    struct mfb_variant placed = *rv->v;
    placed.fn = rv->at[p];
    return placed;
}

/* Which rule set the batch shape (measure/calibrate.c). */
enum mfb_batch_rule {
    MFB_BATCH_TARGET, MFB_BATCH_CAPPED, MFB_BATCH_FASTEST_WINS, MFB_BATCH_LONG_CALLS, MFB_BATCH_GIVEN
};

const char *mfb_batch_rule_text(enum mfb_batch_rule r);

/* One batch shape for every variant, chosen before the rounds. */
struct mfb_calibration {
    uint8_t calls_log2;          /* calls per pass: 1 << calls_log2, a power of two by construction */
    uint32_t passes;
    double target_batch_ns, max_batch_ns;
    double fastest_batch_ns, slowest_batch_ns; /* predicted from the pilot */
    enum mfb_batch_rule rule;
    bool single_call;            /* calls so long that each batch times one call */
    double linearity_tolerance;  /* |linearity - 1| above this warns */
};

static inline uint32_t mfb_calls_per_pass(const struct mfb_calibration *c)
{
    return 1u << c->calls_log2;
}

enum mfb_warmup_mode { MFB_WARMUP_DETECTED, MFB_WARMUP_FIXED };

const char *mfb_warmup_mode_name(enum mfb_warmup_mode m);

struct mfb_warmup {
    enum mfb_warmup_mode mode;
    uint32_t rounds;
    bool settled;                /* detected: the criterion was met (else the cap ended it) */
    double change;               /* last relative change between the two windows */
    double seconds;
};

/* NONE while the rounds go on. */
enum mfb_stop_reason {
    MFB_STOP_NONE, MFB_STOP_TIME, MFB_STOP_ROUNDS, MFB_STOP_TARGET_CI, MFB_STOP_INTERRUPTED,
    MFB_STOP_PROCESSES, /* --target-ci over processes: MFB_MAX_PROCESSES ran */
    MFB_STOP_BATCHES    /* --max-batches kept: the memory bound of a long run */
};

const char *mfb_stop_reason_name(enum mfb_stop_reason r);
/* The reverse of mfb_stop_reason_name: -1 for a name it does not give. */
int mfb_stop_reason_parse(const char *s, enum mfb_stop_reason *out);

struct mfb_stop {
    enum mfb_stop_reason reason;
    bool target_reached;                    /* --target-ci */
    double target_widths[MFB_MAX_VARIANTS]; /* --target-ci: half-width reached per variant */
};

/* --by-class: the size classes timed beside the whole distribution, each with a batch shape of
 * its own (a class of large calls gets fewer calls per batch, so its batch processes about the
 * bytes of the whole's) and its own sampler self-check. */
struct mfb_class_shape {
    uint8_t calls_log2;
    uint32_t passes;
    struct mfb_selfcheck selfcheck;
};

struct mfb_by_class {
    bool on;
    struct mfb_classes classes;
    struct mfb_class_shape *shape; /* one per class */
};

struct mfb_harness {
    double overhead_ns_per_call; /* the function's noop through the same loop, always measured */
};

/* Where a process's fixed cost goes, stage by stage, so that a study's set-up cost is read from its
 * file rather than guessed. The arena's two stages are the workset's (map and fill). */
enum mfb_stage {
    MFB_STAGE_WORKLOAD,    /* distribution, trace or sweep loaded and resolved */
    MFB_STAGE_SELFCHECK,   /* the sampler's draws checked against the tables */
    MFB_STAGE_VERIFY,      /* every variant checked on the calls it will be timed on */
    MFB_STAGE_CALIBRATE,   /* batch shape and linearity */
    MFB_STAGE_CLASSES,     /* --by-class and sweep points: their shapes and self-checks */
    MFB_STAGE_OVERHEAD,    /* after the rounds: the placement check and the harness's noop */
    MFB_STAGE_COUNT
};

struct mfb_results {
    struct mfb_samples samples;
    uint32_t rounds;             /* warm-up included */
    double prepare_s, rounds_s;
    double stage_s[MFB_STAGE_COUNT];
    uint64_t started_ns;         /* monotonic clock as the study's code began in this process */
    double before_rounds_s;      /* from started_ns to the first round */
    struct mfb_residency placement_check; /* measured after the rounds (measure/residency.h) */
    uint64_t evicted_lines;      /* lines flushed before timed batches (evicted large window) */
    double evict_s;              /* the time those flushes took, all outside the timer */
};

/* A run in named parts. config: what is timed, fixed before the first call (the study, the
 * distribution, the variants, the seed and this process's layout). runtime: the machine and the
 * instruments the procedure uses (working set, timer, warnings, the guard's activity, counters,
 * pressure block, timing threads, stressor, the harness's own cost). modes: the replays other than
 * the whole distribution (size classes, a sweep's points, a trace). procedure: what the set-up and
 * the rounds determined (self-check, verification coverage, calibration, warm-up, why they
 * stopped). res: the measured batches and the stages' times. */
struct mfb_run_config {
    const struct mfb_study *study;
    const struct mfb_dist *dist;
    struct mfb_run_variant vars[MFB_MAX_VARIANTS];
    int nvars;
    uint64_t seed;               /* master seed; every stream derives from it (base/seeds.h) */
    struct mfb_layout layout;    /* this process's randomized layout */
};

struct mfb_run_runtime {
    struct mfb_workset *ws;
    struct mfb_timer *timer;     /* read-only once prepare has settled its rate (mfb_timer_settle) */
    struct mfb_warnings *warn;
    struct mfb_activity *activity; /* which variant is being called, for the guard (orchestrate/guard.h) */
    struct mfb_counters counters; /* --counters: read around every timed batch */
    struct mfb_pressure pressure; /* --icache-pressure: the block run after every call */
    struct mfb_team *team;        /* the timing threads and their CPUs (measure/team.h); timed together
                                   * when n > 1; NULL: one thread, as placed by --cpu */
    const struct mfb_background *background; /* --background: the stressor (NULL: none) */
    int thread;                   /* this run's timing thread: 0, or a copy's k (measure/team.c) */
    struct mfb_harness harness;
};

struct mfb_run_modes {
    struct mfb_by_class by_class;
    const struct mfb_sweep *sweep; /* a sweep: its points are the classes, and the whole is not timed */
    struct mfb_trace *trace;       /* --trace: the calls replayed in order, window after window */
};

struct mfb_run_procedure {
    struct mfb_selfcheck selfcheck;
    size_t verified_shapes;      /* call shapes every variant was checked on; 0: first calls only */
    size_t verified_sizes;       /* distinct sizes among them */
    size_t support_sizes;        /* distinct sizes listed; more than verified_sizes: thinned (shapes.h) */
    uint64_t sizes_in_support;   /* distinct sizes the distribution can draw (a wide range: more than listed) */
    struct mfb_calibration cal;
    struct mfb_warmup warmup;
    struct mfb_stop stop;
};

struct mfb_run {
    struct mfb_run_config config;
    struct mfb_run_runtime runtime;
    struct mfb_run_modes modes;
    struct mfb_run_procedure procedure;
    struct mfb_results res;
};

int mfb_run_prepare(struct mfb_run *r, struct mfb_err *err);
/* stop is set asynchronously (SIGINT/SIGTERM); the rounds read it after every round, so an
 * interrupted run ends with whole rounds. */
int mfb_run_rounds(struct mfb_run *r, volatile sig_atomic_t *stop, struct mfb_err *err);
void mfb_run_free(struct mfb_run *r);

/* --threads: starts threads 1..n-1 of r->team (n and place filled) as copies of the prepared run
 * r; returns once each has its buffers. They meet thread 0 at its first batch. */
int mfb_team_start(struct mfb_run *r, enum mfb_counters_mode counters, struct mfb_err *err);
/* After thread 0's mfb_run_rounds (its result rc): joins the threads and, when all went well and
 * all is given, puts every thread's batches into all (marked with thread and alone). Returns rc,
 * or -1 with the failing thread's error. */
int mfb_team_join(struct mfb_run *r, int rc, struct mfb_samples *all, struct mfb_err *err);
void mfb_team_free(struct mfb_team *t);

/* The run's parameter array (in the arena). */
struct mfb_call *mfb_run_params(const struct mfb_run *r);
/* Times one batch of v: the run's calls per pass, npasses passes. Where the large window is
 * evicted (measure/evict.h), the lines its large calls will touch are flushed first, outside the
 * timer, and the flush is counted in r->res. */
void mfb_run_time_batch(struct mfb_run *r, const struct mfb_variant *v, size_t npasses,
                        const struct mfb_pass *passes, struct mfb_batch_result *res);
/* The same with 2^calls_log2 calls per pass (a size class's shape). */
void mfb_run_time_batch_shaped(struct mfb_run *r, const struct mfb_variant *v, uint8_t calls_log2,
                               size_t npasses, const struct mfb_pass *passes, struct mfb_batch_result *res);
/* The two halves of mfb_run_time_batch_shaped, for the rounds, which put the priming pass and the
 * threads' barrier between them: flushing the lines the passes' large calls will touch (where the
 * large window is evicted; counted in r->res), and timing the passes as the caches are now (also
 * the untimed priming pass, whose time is dropped). */
void mfb_run_evict(struct mfb_run *r, uint8_t calls_log2, size_t npasses, const struct mfb_pass *passes);
void mfb_run_batch_now(struct mfb_run *r, const struct mfb_variant *v, uint8_t calls_log2, size_t npasses,
                       const struct mfb_pass *passes, struct mfb_batch_result *res);

#endif
