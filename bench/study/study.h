/* The study description: what to measure and how, as the user asked for it; a model, with no
 * mechanism behind it. Its options are rows (study/options.c: their defaults, parsing, checks and
 * echo); the run resolves what is left open (0, NULL, -1) and records both. */
#ifndef MFB_STUDY_H
#define MFB_STUDY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/label.h"
#include "base/cpulist.h"
#include "base/functions.h"
#include "base/code_placement.h"
#include "programs/kinds.h"
#include "study/choices.h"
#include "study/params.h"
#include "workload/classes.h"
#include "workload/sampler.h"
#include "workload/sweep.h"

/* Variants one study can time: the variant index is stored in 16 bits per sample, and every
 * variant costs a batch per round, so more would only dilute the rounds. */
#define MFB_MAX_VARIANTS 32
_Static_assert(MFB_PARAM_SETTINGS_MAX == MFB_MAX_VARIANTS, "a --setting for each variant a run holds, no more");
_Static_assert(MFB_MAX_VARIANTS <= MFB_PLACED_VARIANTS, "a process's placements must hold every variant's");
/* Fresh processes one study may run (--processes): each gets a share of the time budget. */
#define MFB_MAX_PROCESSES 64
/* Processes of a default study. Code and data layout change from one exec to the next and stay
 * fixed within one, so a process is the unit a verdict about the implementation must sample.
 * Process i runs turn i mod MFB_CODE_PLACEMENTS of its block's code placements (machine/layout.h),
 * so 32 is 4 blocks: the placements' effects cancel in the mean, and the verdict's interval is what
 * the placement model leaves, with 22 to 25 degrees of freedom (analysis/stats/placement_model.py design_estimate).
 * A process's own noise does not shrink with its length (on the Zen 5 VM: 0.74 % at 0.5 s of
 * rounds, 1.22 % at 1.25 s), so more, shorter processes narrow the interval: studies of 10, 16
 * and 32 processes moved 0.29 %, 0.34 % and 0.15 % between re-runs there (docs/methodology.md,
 * record process-length), at about 0.1 s of set-up each then (0.07 s since: docs/cost.md). */
#define MFB_DEFAULT_PROCESSES 32
/* Seconds of rounds of a default study, over all its processes. A verdict's interval is over
 * processes and its width is their spread (code and data layout, about 1-3 % per process), not the
 * rounds inside one (a process's own median is known to about 0.1 %): on the Zen 5 VM, 6, 8 and
 * 15 s gave the same widths for every built-in against libc (docs/cost.md), so a default study
 * spends its time on processes, not on rounds. */
#define MFB_DEFAULT_TIME_S 5.0
/* How many calls ahead the compare harness stores a call's injected difference (--flip-lead):
 * far enough that the store has reached L1 before the call loads it (measure/kernels.c; 1 still
 * left a 0.1 ns/call bias on this machine's harness probes, 4 and 16 none), near enough that few
 * calls see a neighbour's pending difference (about lead x size / window of them). */
#define MFB_DEFAULT_FLIP_LEAD 4
#define MFB_MAX_FLIP_LEAD 64
/* --batch-passes above this would make one batch of a fast variant last seconds. */
#define MFB_MAX_BATCH_PASSES 100000
/* Default --watchdog: far above any round's length (rounds last milliseconds to a second) and
 * any verification call's (orchestrate/guard.h). */
#define MFB_DEFAULT_WATCHDOG_S 60.0
#define MFB_MAX_WATCHDOG_S 86400.0
/* Rounds (--rounds, --warmup-rounds): a sample stores its round in 32 bits. */
#define MFB_MAX_ROUNDS 1000000000L
/* --time above this (31 years) is a typo, not a study; it also keeps the per-process share
 * printable for the children's command lines. */
#define MFB_MAX_TIME_S 1e9
/* Each process needs this many seconds of rounds at least: less and the warm-up alone uses
 * its share (about 1.5 s of set-up per process comes on top). */
#define MFB_MIN_PROCESS_TIME_S 0.1
/* Batches a run keeps (--max-batches; over all processes). Every batch is kept in memory until
 * the result is written (56 bytes each; the merged file takes about 110 bytes per batch), so
 * this bounds the memory and the file of a long run: at the default, 4,194,304 batches, about
 * 235 MB in memory and 460 MB on disk. The run then stops with stop_reason "batches". A
 * default study keeps about 60,000. */
#define MFB_DEFAULT_MAX_BATCHES (1L << 22)
#define MFB_MAX_MAX_BATCHES (1L << 26)
/* A process's share of --max-batches must allow a few rounds of every variant. */
#define MFB_MIN_PROCESS_BATCHES 64
/* Timing threads one run may have (--threads): a sample stores its thread in 16 bits, and each
 * thread keeps a working set of its own (a few MiB to 2 GiB). */
#define MFB_MAX_THREADS 64
/* CPUs --background may load. */
#define MFB_MAX_BACKGROUND 64
/* --icache-pressure: the generated block (machine/pressure.c) is whole 64-byte lines of jumps. */
enum { MFB_PRESSURE_LINE = 64 };
/* At most 1 MiB of code (16384 jumps, 73 us a run on the Zen 5 VM). Past the L1i the block's own
 * misses vary more between runs than any variant's difference (docs/methodology.md: at 64 KiB
 * already, at 1 MiB by +-200 ns), so larger blocks show nothing more; and the block runs after
 * every call, so 64 MiB (27 ms a call) made one batch take seconds and a default study hours. */
#define MFB_PRESSURE_MAX ((size_t)1 << 20)

/* --pgo's training replay: calls drawn once from the training distribution and replayed twice (an
 * uncounted pass, then the pass that trains: orchestrate/counts_replay.c). 200,000 calls of the
 * fleet tables reach every size class many times over (their rarest rows have a probability near
 * 1e-4), and the instrumented code runs them in well under a second. */
#define MFB_PGO_TRAIN_CALLS 200000u
/* --pgo's training seed unless --pgo-seed gives one ("pgotrain" in ASCII). Fixed, not drawn per
 * study: the same code trained on the same distribution then has the same profile, so NAME-pgo is
 * one code across studies (pooled, kept in history) and its build is found in the cache. The
 * timed calls come from the study's own seeds, which are checked to differ from it. */
#define MFB_PGO_DEFAULT_SEED 0x70676f747261696eull

struct mfb_study {
    enum mfb_func func;
    const char *distribution;          /* NULL: the function's fleet table */
    const char *variants[MFB_MAX_VARIANTS];
    int nvariants;                     /* 0: libc, every available built-in, noop */
    const char *variant_cflags;        /* --variant-cflags: a source variant's flags (NULL: $CFLAGS, else -O2) */
    struct mfb_params params;          /* --param: each source variant built once per setting of these macros */
    bool pgo;                          /* --pgo: each FILE.c variant NAME also as NAME-pgo, built with a profile */
    const char *pgo_train;             /* --pgo-train: the training calls' distribution (NULL: the study's) */
    uint64_t pgo_seed;                 /* --pgo-seed: the training replay's seed (default MFB_PGO_DEFAULT_SEED) */
    bool pgo_seed_given;
    double time_s;                     /* budget for the rounds; 0 with rounds: unlimited */
    bool time_given;
    long rounds;                       /* measured rounds; 0: until the time budget */
    long warmup_rounds;                /* -1: detected from the data */
    double target_ci;                  /* percent; 0: off */
    double watchdog_s;                 /* a variant call not returning for this long ends the run */
    struct mfb_deadlines deadlines;    /* --deadline: the bounds of the programs it starts (programs/kinds.h) */
    long max_batches;                  /* batches kept, over all processes (MFB_DEFAULT_MAX_BATCHES) */
    long processes;                    /* fresh processes whose samples are merged */
    bool processes_given;
    bool processes_fitted;             /* not given, and fewer than the default to fit a short --time */
    bool allow_single_process;         /* one process may give faster/slower verdicts */
    long batch_passes;                 /* passes per batch; 0: calibrated */
    double timer_hz;                   /* set by the parent: process 0's counter rate, checked by the others; 0: calibrate */
    bool no_prime;                     /* no untimed pass of the same variant before each batch */
    long flip_lead;                    /* compare functions: calls ahead a difference is stored */
    long process_index;                /* set by the parent for each child; -1 in the parent */
    uint64_t code_placement_seed;           /* set by the parent: the study's code-placement permutations */
    bool code_placement_seed_given;
    enum mfb_code_rotation code_rotation; /* --code-rotation: code placements per round or per process */
    enum mfb_placement placement;
    uint64_t small_max;                /* auto placement's largest small call; 0: default */
    bool large_sized;                  /* --large-window sized: no eviction, a window of 4 x LLC */
    bool by_class;                     /* --by-class */
    struct mfb_classes class_edges;    /* --by-class=E1,...: its edges, parsed (nedges 0: the default edges) */
    bool latency;                      /* --latency: dependent calls (measure/kernels.c) */
    enum mfb_counters_mode counters;   /* --counters (machine/counters.h); 0 is off */
    size_t icache_pressure;            /* --icache-pressure: bytes of generated code run after every call; 0 none */
    bool sweeping;                     /* memfbench sweep / --sweep SIZES; false: a replay */
    struct mfb_sweep sweep;            /* its points and, with --unpredictable, mode, parsed */
    const char *trace;                 /* --trace FILE: replay a recorded call sequence in order */
    bool unpredictable;                /* --unpredictable P|class given (sweep.mode holds it) */
    uint64_t align_src, align_dst;     /* --align-src/--align-dst (sweeps); 0: any offset */
    int cpu;                           /* -1: do not pin */
    bool cpu_given;
    long threads;                      /* --threads: timing threads; 0: one per --cpus CPU, else 1 */
    struct mfb_cpu_list cpus;          /* --cpus LIST: the timing threads' CPUs, thread 0's first (n 0: not given) */
    enum mfb_stressor background;      /* --background NAME; MFB_STRESS_NONE: none */
    struct mfb_cpu_list background_cpus; /* --background-cpus LIST; n 0: every allowed CPU left */
    uint64_t seed;
    bool seed_given;
    const char *output;
    struct mfb_label label;            /* --label, or git describe of a plugin's folder (orchestrate/gitlabel.c) */
    enum mfb_align_mode align_mode;
    enum mfb_clock_request clock;      /* --clock */
    size_t l1d, l2, llc;               /* cache overrides; 0: detect */
    const char *cache_from;            /* --cache-from: a probe file whose caches_found are used */
    const char *dist_dir;
    bool quiet;
    uint64_t quiet_warnings;           /* --quiet-warnings: mask over enum mfb_warning */
    int argc;                          /* the command line, recorded as given */
    char **argv;
};

#endif
