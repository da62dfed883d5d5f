#include "study/options.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "base/parse.h"
#include "base/rng.h"
#include "base/target.h"
#include "base/warn.h"
#include "workload/call.h"
#include "workload/table.h"
#include "config.h"

#define CMD "memfbench run"

enum { OPT_WARMUP = 256, OPT_ALIGN, OPT_CLOCK, OPT_CACHE, OPT_DISTDIR, OPT_TARGET, OPT_PROCS, OPT_PINDEX,
       OPT_SINGLE, OPT_PASSES, OPT_TIMERHZ, OPT_PRIME, OPT_FLIP, OPT_SMALLMAX, OPT_PLACESEED, OPT_MAXBATCHES,
       OPT_WATCHDOG,
       OPT_QUIETW, OPT_BYCLASS, OPT_LATENCY, OPT_SWEEP, OPT_UNPRED, OPT_ALIGNSRC, OPT_ALIGNDST, OPT_TRACE,
       OPT_CACHEFROM, OPT_COUNTERS, OPT_PRESSURE, OPT_THREADS, OPT_CPUS, OPT_BACKGROUND, OPT_BGCPUS, OPT_CODEROT,
       OPT_LARGEWIN, OPT_LABEL, OPT_VCFLAGS, OPT_PGO, OPT_PGOTRAIN, OPT_PGOSEED,
       OPT_DEADLINE, OPT_PARAM, OPT_SETTING };

/* The longest option name (code-placement-seed, allow-single-process) and the longest number a
 * parent writes (a 64-bit seed, a real at %.17g: at most 24 characters), with room to spare. */
#define MFB_FLAG_NAME_MAX 24
#define MFB_FLAG_NUMBER_MAX 40

#define AT(m) offsetof(struct mfb_study, m)
#define GIVEN(m) (AT(m) + 1)

/* The parsers of the rows whose value is more than one number or word. */

static int parse_function(const char *arg, void *req, struct mfb_err *err)
{
    struct mfb_study *s = req;
    if (mfb_func_parse(arg, &s->func) == 0)
        return 0;
    char names[MFB_FUNC_NAMES_CAP];
    return mfb_fail(err, CMD ": --function: '%s' is not %s", arg, mfb_func_names(names, sizeof names));
}

static int parse_variant(const char *arg, void *req, struct mfb_err *err)
{
    struct mfb_study *s = req;
    if (s->nvariants == MFB_MAX_VARIANTS)
        return mfb_fail(err, CMD ": --variant: at most %d variants", MFB_MAX_VARIANTS);
    s->variants[s->nvariants++] = arg;
    return 0;
}

static int parse_param(const char *arg, void *req, struct mfb_err *err)
{
    return mfb_params_add(&((struct mfb_study *)req)->params, arg, err);
}

static int parse_setting(const char *arg, void *req, struct mfb_err *err)
{
    return mfb_params_choose(&((struct mfb_study *)req)->params, arg, err);
}

static int parse_sweep(const char *arg, void *req, struct mfb_err *err)
{
    struct mfb_study *s = req;
    s->sweeping = true;
    return mfb_sweep_parse_sizes(&s->sweep, arg, err);
}

static int parse_unpredictable(const char *arg, void *req, struct mfb_err *err)
{
    struct mfb_study *s = req;
    s->unpredictable = true;
    return mfb_sweep_parse_mode(&s->sweep, arg, err);
}

static int parse_alignment(const char *name, const char *arg, uint64_t *out, struct mfb_err *err)
{
    size_t a;
    if (mfb_parse_bytes(arg, &a) < 0 || a == 0 || a > MFB_MAX_ALIGN || (a & (a - 1)))
        return mfb_fail(err, CMD ": %s: '%s' is not a power of two from 1 to %u", name, arg, MFB_MAX_ALIGN);
    *out = a;
    return 0;
}

static int parse_align_src(const char *arg, void *req, struct mfb_err *err)
{
    return parse_alignment("--align-src", arg, &((struct mfb_study *)req)->align_src, err);
}

static int parse_align_dst(const char *arg, void *req, struct mfb_err *err)
{
    return parse_alignment("--align-dst", arg, &((struct mfb_study *)req)->align_dst, err);
}

/* Edges that cut nothing are refused rather than timed as classes that can hold no call or that
 * are the whole again. An edge is the largest size of its class and the last class holds the
 * sizes above the last edge, so an edge at or above MFB_MAX_SIZE (the largest call any
 * distribution, trace or sweep may have: a hard limit of the parameters and buffers, checked on
 * load) leaves that class empty in every study. 0 is an edge of the defaults (the class of calls
 * of size 0, 8.7 % of fleet memcpy), so it may open a list; but alone it sets apart only the calls
 * that move no byte, which is no attribution by size, and "--by-class=0" reads as "no classes".
 * Bounds that depend on the distribution (its largest size, small_max) are not checked here: the
 * same edges serve every study of a suite, and a class without calls is left out (classes.h). */
static int parse_by_class(const char *arg, void *req, struct mfb_err *err)
{
    struct mfb_study *s = req;
    s->by_class = true;
    s->class_edges.nedges = 0; /* bare --by-class: the default edges, cut at the run's small_max */
    if (!arg)
        return 0;
    if (mfb_classes_parse_edges(&s->class_edges, arg, err) < 0)
        return -1;
    const struct mfb_classes *cl = &s->class_edges;
    uint64_t last = cl->edges[cl->nedges - 1];
    if (last >= MFB_MAX_SIZE)
        return mfb_fail(err, CMD ": --by-class: edge %llu leaves no size above it (no call is larger than %u "
                             "bytes): each edge is the largest size of its class, so every edge must be below %u",
                        (unsigned long long)last, MFB_MAX_SIZE, MFB_MAX_SIZE);
    if (last == 0)
        return mfb_fail(err, CMD ": --by-class: an edge at 0 alone sets apart only the calls of size 0; give "
                             "each class's largest size (e.g. --by-class=16,256,4096, with 0 first for a class of "
                             "size 0), --by-class alone for the default edges, or leave it out for no classes");
    return 0;
}

/* "evicted" needs a user-mode flush; "sized" works everywhere. */
static int parse_large_window(const char *arg, void *req, struct mfb_err *err)
{
    struct mfb_study *s = req;
    s->large_sized = !strcmp(arg, "sized");
    if (!s->large_sized && (strcmp(arg, "evicted") || !mfb_target_user_flush()))
        return mfb_fail(err, CMD ": --large-window: '%s' is not evicted or sized%s", arg,
                        mfb_target_user_flush() ? "" : " (no user-mode cache flush here: sized only)");
    return 0;
}

static int parse_cpu(const char *arg, void *req, struct mfb_err *err)
{
    return mfb_cpu_arg_parse(CMD, arg, true, &((struct mfb_study *)req)->cpu, err);
}

static int parse_cpus(const char *arg, void *req, struct mfb_err *err)
{
    return mfb_cpu_list_parse(CMD, "--cpus", arg, MFB_MAX_THREADS, &((struct mfb_study *)req)->cpus, err);
}

static int parse_background_cpus(const char *arg, void *req, struct mfb_err *err)
{
    return mfb_cpu_list_parse(CMD, "--background-cpus", arg, MFB_MAX_BACKGROUND,
                              &((struct mfb_study *)req)->background_cpus, err);
}

static int parse_quiet_warnings(const char *arg, void *req, struct mfb_err *err)
{
    char bad[80];
    if (mfb_warning_mask(arg, &((struct mfb_study *)req)->quiet_warnings, bad, sizeof bad) == 0)
        return 0;
    char known[512] = "";
    for (int k = 0; k < MFB_W_COUNT; k++)
        snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", k ? ", " : "",
                 mfb_warning_kind((enum mfb_warning)k)->code);
    return mfb_fail(err, CMD ": --quiet-warnings: unknown code '%s' (codes: %s, or all)", bad, known);
}

static int parse_label(const char *arg, void *req, struct mfb_err *err)
{
    return mfb_label_given(&((struct mfb_study *)req)->label, arg, err);
}

/* The options of memfbench run, in the order --help lists them. */
static const struct mfb_flag run_flags[] = {
    {"function", required_argument, 'f', true, "F", "memcpy (default), memmove, memset, memcmp or bcmp",
     .kind = MFB_FLAG_CUSTOM, .parse = parse_function, .echo = "function"},
    {"distribution", required_argument, 'd', true, "D",
     "shipped name (see `memfbench list`), path to a _size.csv or a\n"
     "fleetbench key:prob file, or fixed:N, uniform:LO-HI, pow2:LO-HI\n"
     "(default: fleetbench/<Function>_Fleet)",
     .kind = MFB_FLAG_TEXT, .member = AT(distribution)},
    {"variant", required_argument, 'v', true, "V",
     "variant to time; repeat for more. The first is the baseline of\n"
     "the summary (default: libc, the available built-ins, noop)",
     .kind = MFB_FLAG_CUSTOM, .parse = parse_variant},
    {"variant-cflags", required_argument, OPT_VCFLAGS, false, "FLAGS",
     "compiler flags of source variants (-v FILE.c:SYMBOL), built with\n"
     "$CC (default cc) at every code placement and cached (default:\n"
     "$CFLAGS, else -O2)",
     .kind = MFB_FLAG_TEXT, .member = AT(variant_cflags), .echo = "variant_cflags"},
    {"param", required_argument, OPT_PARAM, false, "NAME=V,...",
     "each source variant (-v FILE.c:SYMBOL[=NAME]) built once per value,\n"
     "with -DNAME=V, each its own variant NAME[NAME=V]; repeat for more\n"
     "macros (every combination; at most 4 macros of 16 values)",
     .kind = MFB_FLAG_CUSTOM, .parse = parse_param, .echo = "params"},
    {"setting", required_argument, OPT_SETTING, false, "A=1,B=2",
     "with --param: build this setting of the macros (repeat for more)\n"
     "instead of every combination (memfbench tune races a subset)",
     .kind = MFB_FLAG_CUSTOM, .parse = parse_setting, .echo = "settings"},
    {"pgo", no_argument, OPT_PGO, false, NULL,
     "each source variant NAME (-v FILE.c:SYMBOL[=NAME]) is also timed as\n"
     "NAME-pgo: built with the compiler's profile (GCC or clang) from a\n"
     "training replay of its own seed, never the timed calls (analyze pgo)",
     .kind = MFB_FLAG_SET, .member = AT(pgo), .echo = "pgo"},
    {"pgo-train", required_argument, OPT_PGOTRAIN, false, "SPEC",
     "--pgo's training calls: a distribution as -d takes, or a\n"
     "`memfbench record` folder (default: the study's distribution)",
     .kind = MFB_FLAG_TEXT, .member = AT(pgo_train)},
    {"pgo-seed", required_argument, OPT_PGOSEED, false, "S",
     "--pgo's training seed (default 0x70676f747261696e, fixed: the same\n"
     "code and training give the same profile in every study)",
     .kind = MFB_FLAG_SEED, .member = AT(pgo_seed), .given = GIVEN(pgo_seed_given),
     .good = "an unsigned 64-bit number (" MFB_SEED_FORMS ")"},
    {"time", required_argument, 't', true, "S",
     "seconds of rounds, warm-up included, over all processes\n"
     "(default 5; with --rounds alone: no limit)",
     .kind = MFB_FLAG_REAL, .member = AT(time_s), .given = GIVEN(time_given), .lo = 0, .lo_open = true,
     .hi = MFB_MAX_TIME_S, .good = "a positive number of seconds (at most 1e9)", .child = MFB_CHILD_PARENT,
     .echo = "time_budget_s", .null_when = MFB_NULL_UNLESS_POSITIVE, .has_initial = true, .initial = MFB_DEFAULT_TIME_S},
    {"rounds", required_argument, 'r', true, "N", "stop after N measured rounds (after the warm-up)",
     .kind = MFB_FLAG_LONG, .member = AT(rounds), .lo = 1, .hi = MFB_MAX_ROUNDS, .echo = "rounds_limit",
     .null_when = MFB_NULL_UNLESS_POSITIVE},
    {"max-batches", required_argument, OPT_MAXBATCHES, false, "N",
     "keep at most N batches over all processes, then stop: the\n"
     "memory and file bound of a long run (default 4194304)",
     .kind = MFB_FLAG_LONG, .member = AT(max_batches), .lo = 1, .hi = MFB_MAX_MAX_BATCHES,
     .child = MFB_CHILD_PARENT, .echo = "max_batches", .has_initial = true, .initial = MFB_DEFAULT_MAX_BATCHES},
    {"warmup-rounds", required_argument, OPT_WARMUP, false, "N",
     "flag the first N rounds as warm-up (default: detected: rounds\n"
     "replay the first calls until their time settles)",
     .kind = MFB_FLAG_LONG, .member = AT(warmup_rounds), .lo = 0, .hi = MFB_MAX_ROUNDS, .echo = "warmup_rounds",
     .null_when = MFB_NULL_IF_NEGATIVE, .has_initial = true, .initial = -1},
    {"target-ci", required_argument, OPT_TARGET, false, "P",
     "stop once every variant's 95 % CI of its ratio to the baseline is\n"
     "within +-P % (time cap: --time, default 60 s with this option)",
     .kind = MFB_FLAG_REAL, .member = AT(target_ci), .lo = 0, .hi = 100, .lo_open = true, .hi_open = true,
     .good = "a percentage between 0 and 100", .child = MFB_CHILD_DROP, .echo = "target_ci_percent",
     .null_when = MFB_NULL_UNLESS_POSITIVE},
    {"processes", required_argument, OPT_PROCS, false, "K",
     "run K fresh processes (new address layout, buffers, seeds) and\n"
     "merge their samples with a process index; --time is split.\n"
     "Each process is one replicate of the verdict (default 32)",
     .kind = MFB_FLAG_LONG, .member = AT(processes), .given = GIVEN(processes_given), .lo = 1,
     .hi = MFB_MAX_PROCESSES, .child = MFB_CHILD_PARENT, .echo = "processes", .has_initial = true, .initial = MFB_DEFAULT_PROCESSES},
    {"allow-single-process", no_argument, OPT_SINGLE, false, NULL,
     "with --processes 1: let the analysis give faster/slower\n"
     "verdicts from one process (its interval covers that process only)",
     .kind = MFB_FLAG_SET, .member = AT(allow_single_process), .echo = "allow_single_process"},
    {"batch-passes", required_argument, OPT_PASSES, false, "N",
     "passes over the call array per batch (default: sized on the\n"
     "function's libc, by the first process, for all of them)",
     .kind = MFB_FLAG_LONG, .member = AT(batch_passes), .lo = 1, .hi = MFB_MAX_BATCH_PASSES,
     .child = MFB_CHILD_PARENT, .echo = "batch_passes", .null_when = MFB_NULL_UNLESS_POSITIVE},
    {"no-prime", no_argument, OPT_PRIME, false, NULL,
     "no untimed pass of the same variant (in an order of its own)\n"
     "before each timed batch",
     .kind = MFB_FLAG_SET, .member = AT(no_prime), .echo = "prime"},
    {"placement", required_argument, 'p', true, "P",
     "auto (default: small calls in L1, large ones far beyond the LLC),\n"
     "or l1, l2, llc, dram for every call",
     .kind = MFB_FLAG_CHOICE, .member = AT(placement), .choice = MFB_SET_PLACEMENT,
     .good = "auto, l1, l2, llc or dram", .echo = "placement", .has_initial = true, .initial = MFB_PL_AUTO},
    {"small-max", required_argument, OPT_SMALLMAX, false, "B",
     "auto placement: calls up to B bytes are small (default 2K, the\n"
     "same on every machine; must fit the L1 window)",
     .kind = MFB_FLAG_BYTES, .member = AT(small_max), .lo = 1, .hi = MFB_SIZE_MASK,
     .good = "a size in bytes such as 2048 or 2K", .echo = "small_max", .null_when = MFB_NULL_UNLESS_POSITIVE},
    {"large-window", required_argument, OPT_LARGEWIN, false, "S",
     "evicted (default: 64 MiB per buffer, every line a timed batch's large\n"
     "calls touch flushed before it) or sized (4 x LLC per buffer, no flush)",
     .kind = MFB_FLAG_CUSTOM, .parse = parse_large_window, .echo = "large_window"},
    {"code-rotation", required_argument, OPT_CODEROT, false, "R",
     "process (default): one code placement per process, balanced over\n"
     "the study; round (experimental): the loop and each built-in move\n"
     "through all of theirs every 8 rounds (its intervals were too\n"
     "narrow on the Zen 5 VM: docs/methodology.md)", /* hence process, the default */
     .kind = MFB_FLAG_CHOICE, .member = AT(code_rotation), .choice = MFB_SET_ROTATION,
     .good = "round or process", .echo = "code_rotation", .has_initial = true, .initial = MFB_ROTATE_PROCESS},
    {"flip-lead", required_argument, OPT_FLIP, false, "N",
     "memcmp/bcmp: store each call's injected difference N calls\n"
     "ahead, so its store has reached L1 (default 4; 0: right\n"
     "before the call, which penalises wide first loads)",
     .kind = MFB_FLAG_LONG, .member = AT(flip_lead), .lo = 0, .hi = MFB_MAX_FLIP_LEAD, .echo = "flip_lead", .has_initial = true, .initial = MFB_DEFAULT_FLIP_LEAD},
    {"alignment-mode", required_argument, OPT_ALIGN, false, "M",
     "exact (default: alignment A means the address's largest\n"
     "power-of-two divisor is A) or at-least (a multiple of A)",
     .kind = MFB_FLAG_CHOICE, .member = AT(align_mode), .choice = MFB_SET_ALIGN_MODE,
     .good = "exact or at-least", .echo = "alignment_mode", .has_initial = true, .initial = MFB_ALIGN_EXACT},
    {"watchdog", required_argument, OPT_WATCHDOG, false, "S",
     "a variant that has not returned from a call for S seconds\n"
     "(verifying or timing) ends the run with its name (default 60)",
     .kind = MFB_FLAG_REAL, .member = AT(watchdog_s), .lo = 0.1, .hi = MFB_MAX_WATCHDOG_S,
     .good = "a number of seconds from 0.1 to 86400", .echo = "watchdog_s", .has_initial = true, .initial = MFB_DEFAULT_WATCHDOG_S},
    MFB_ROW_DEADLINE(OPT_DEADLINE),
    {"cpu", required_argument, 'c', true, "N", "pin to CPU N (default: the last allowed CPU); 'none' to not pin",
     .kind = MFB_FLAG_CUSTOM, .parse = parse_cpu, .given = GIVEN(cpu_given), .echo = "cpu"},
    {"threads", required_argument, OPT_THREADS, false, "N",
     "N timing threads, each pinned to its CPU with its own buffers and\n"
     "calls, every batch started together; thread 0 also times each\n"
     "variant alone per round (interference). Default 1",
     .kind = MFB_FLAG_LONG, .member = AT(threads), .lo = 1, .hi = MFB_MAX_THREADS},
    {"cpus", required_argument, OPT_CPUS, false, "LIST",
     "the timing threads' CPUs in thread order, e.g. 1,0 (default: --cpu\n"
     "first, then the other allowed CPUs); SMT siblings allowed",
     .kind = MFB_FLAG_CUSTOM, .parse = parse_cpus},
    {"background", required_argument, OPT_BACKGROUND, false, "NAME",
     "a stressor on other CPUs during the rounds: bandwidth (memcpy far\n"
     "beyond the LLC) or spin (register adds, no memory)",
     .kind = MFB_FLAG_CHOICE, .member = AT(background), .choice = MFB_SET_STRESSOR, .good = "bandwidth or spin"},
    {"background-cpus", required_argument, OPT_BGCPUS, false, "LIST",
     "its CPUs (default: every allowed CPU no timing thread uses)",
     .kind = MFB_FLAG_CUSTOM, .parse = parse_background_cpus},
    {"seed", required_argument, 's', true, "S",
     "64-bit seed of every random choice, decimal or 0x hex\n"
     "(default: fresh, recorded)",
     .kind = MFB_FLAG_SEED, .member = AT(seed), .given = GIVEN(seed_given),
     .good = "an unsigned 64-bit number (" MFB_SEED_FORMS ")", .child = MFB_CHILD_PARENT},
    {"clock", required_argument, OPT_CLOCK, false, "C", "auto (default), tsc, cntvct or monotonic",
     .kind = MFB_FLAG_CHOICE, .member = AT(clock), .choice = MFB_SET_CLOCK,
     .good = "auto, tsc, cntvct or monotonic", .echo = "clock_requested", .has_initial = true, .initial = MFB_CLOCK_AUTO},
    MFB_ROW_CACHE(OPT_CACHE),
    {"cache-from", required_argument, OPT_CACHEFROM, false, "FILE",
     "the cache sizes a memfbench probe file found (where sysfs is wrong)",
     .kind = MFB_FLAG_TEXT, .member = AT(cache_from), .echo = "cache_from"},
    {"icache-pressure", required_argument, OPT_PRESSURE, false, "S",
     "run S bytes of generated jumps after every call (inside the timed loop;\n"
     "the noop variant measures its cost), e.g. 16K",
     .kind = MFB_FLAG_BYTES, .member = AT(icache_pressure), .lo = MFB_PRESSURE_LINE, .hi = MFB_PRESSURE_MAX,
     .step = MFB_PRESSURE_LINE, .good = "a multiple of 64 bytes from 64 to 1M, e.g. 16K"},
    {"counters", required_argument, OPT_COUNTERS, false, "MODE",
     "off|auto|on|fake: cycles, instructions, branch and L1d misses per batch\n"
     "(default off; auto: when the PMU allows; fake: clock-derived, for tests)",
     .kind = MFB_FLAG_CHOICE, .member = AT(counters), .choice = MFB_SET_COUNTERS, .good = "off, auto, on or fake"},
    {"dist-dir", required_argument, OPT_DISTDIR, false, "DIR",
     "folder of shipped distributions (default: " MFB_DIST_DIR ")",
     .kind = MFB_FLAG_TEXT, .member = AT(dist_dir), .echo = "distribution_dir"},
    {"quiet", no_argument, 'q', true, NULL, "no progress, warnings or summary on stderr",
     .kind = MFB_FLAG_SET, .member = AT(quiet), .child = MFB_CHILD_PARENT},
    {"latency", no_argument, OPT_LATENCY, false, NULL,
     "time dependent calls: each call's addresses wait for the previous\n"
     "call's result (its last byte written), so calls cannot overlap\n"
     "(default: independent calls, a throughput)",
     .kind = MFB_FLAG_SET, .member = AT(latency), .echo = "measure"},
    {"sweep", required_argument, OPT_SWEEP, false, "SIZES",
     "a size sweep instead of a distribution (memfbench sweep SIZES):\n"
     "N, LO-HI:STEP, pow2:LO-HI, comma-separated; each size its own\n"
     "batches, every variant interleaved per size in every round",
     .kind = MFB_FLAG_CUSTOM, .parse = parse_sweep},
    {"unpredictable", required_argument, OPT_UNPRED, false, "P",
     "sweep: each call's size drawn within +-P % of the point, or\n"
     "'class': within its power-of-two class (default: the size itself)",
     .kind = MFB_FLAG_CUSTOM, .parse = parse_unpredictable},
    {"align-src", required_argument, OPT_ALIGNSRC, false, "A",
     "sweep: every call's source alignment (default: any offset)",
     .kind = MFB_FLAG_CUSTOM, .parse = parse_align_src},
    {"align-dst", required_argument, OPT_ALIGNDST, false, "A",
     "sweep: every call's destination alignment (default: any offset)",
     .kind = MFB_FLAG_CUSTOM, .parse = parse_align_dst},
    {"trace", required_argument, OPT_TRACE, false, "FILE",
     "replay a recorded call sequence in its order (FUNCTION_trace.csv of\n"
     "memfbench record --trace): each round the next window of calls",
     .kind = MFB_FLAG_TEXT, .member = AT(trace), .echo = "trace"},
    {"by-class", optional_argument, OPT_BYCLASS, false, "[=E,...]",
     "also time each size class of the distribution as its own batches\n"
     "in the same rounds, for the analysis's per-class attribution\n"
     "(default edges 0,2,4,8,...,small-max: classes 0, 1-2, 3-4, ...)",
     .kind = MFB_FLAG_CUSTOM, .parse = parse_by_class},
    {"quiet-warnings", required_argument, OPT_QUIETW, false, "L",
     "warnings of these codes (comma-separated, or 'all') are kept in the\n"
     "file but not printed; codes: memfbench list",
     .kind = MFB_FLAG_CUSTOM, .parse = parse_quiet_warnings, .echo = "quiet_warnings"},
    {"label", required_argument, OPT_LABEL, false, "TEXT",
     "what this result is a point of, for `memfbench analyze history`\n"
     "(a commit, a build, a date); default: git describe of the first\n"
     "plugin's folder when it is in a git repository, else none",
     .kind = MFB_FLAG_CUSTOM, .parse = parse_label, .echo = "label"},
    {"output", required_argument, 'o', true, "FILE", "result file, written atomically; '-' for stdout",
     .kind = MFB_FLAG_TEXT, .member = AT(output), .child = MFB_CHILD_PARENT},
    {"help", no_argument, 'h', true, NULL, "this text", .kind = MFB_FLAG_ACTION},
    /* internal: a --processes parent's, for each child */
    {"process-index", required_argument, OPT_PINDEX, false, "N", NULL,
     .kind = MFB_FLAG_LONG, .member = AT(process_index), .lo = 0, .hi = MFB_MAX_PROCESSES - 1,
     .child = MFB_CHILD_PARENT, .has_initial = true, .initial = -1},
    {"timer-hz", required_argument, OPT_TIMERHZ, false, "HZ", NULL,
     .kind = MFB_FLAG_REAL, .member = AT(timer_hz), .lo = 0, .lo_open = true, .hi = 1e12,
     .good = "a positive rate in Hz", .child = MFB_CHILD_PARENT},
    {"code-placement-seed", required_argument, OPT_PLACESEED, false, "N", NULL,
     .kind = MFB_FLAG_SEED, .member = AT(code_placement_seed), .given = GIVEN(code_placement_seed_given),
     .good = "an unsigned 64-bit number (" MFB_SEED_FORMS ")", .child = MFB_CHILD_PARENT},
};

static int parse_choice(int set, const char *word)
{
    return mfb_choice_parse((enum mfb_choice_set)set, word);
}

/* The rows every command with them shares (base/flags.h), into the study. */
static int apply_shared(int id, char *arg, void *req, struct mfb_err *err)
{
    struct mfb_study *s = req;
    size_t v[3];
    switch (id) {
    case OPT_DEADLINE:
        return mfb_deadlines_parse(arg, &s->deadlines, err);
    case OPT_CACHE:
        if (mfb_parse_cache_sizes(arg, v) < 0)
            return -1; /* said from the row */
        s->l1d = v[0];
        s->l2 = v[1];
        s->llc = v[2];
        return 0;
    }
    return 0;
}

static const struct mfb_flag_table run_table = {.command = CMD, .rows = run_flags,
                                               .n = sizeof run_flags / sizeof run_flags[0], .choice = parse_choice,
                                               .apply = apply_shared, .operands = MFB_OPERANDS_NONE};

const struct mfb_flag_table *mfb_study_flags(void)
{
    return &run_table;
}

void mfb_study_defaults(struct mfb_study *s, const char *dist_dir)
{
    memset(s, 0, sizeof *s);
    s->func = MFB_MEMCPY;
    mfb_flags_initial(&run_table, s);
    s->cpu = -1; /* not decided: the CPU plan's default (the last allowed CPU) */
    s->dist_dir = dist_dir;
}

/* A short --time with the default processes: fewer processes, so that each keeps its least share
 * of rounds (MFB_MIN_PROCESS_TIME_S): whole blocks of MFB_CODE_PLACEMENTS where two or more fit,
 * which keeps every code placement equally often (machine/layout.h). Nothing for a given
 * --processes, a child, --target-ci or rounds without a time limit. */
static void fit_processes(struct mfb_study *s)
{
    if (s->processes_given || s->time_s <= 0 || s->target_ci > 0 || s->process_index >= 0 ||
        s->time_s / (double)s->processes >= MFB_MIN_PROCESS_TIME_S)
        return;
    long fit = (long)(s->time_s / MFB_MIN_PROCESS_TIME_S);
    s->processes = fit >= 2 * MFB_CODE_PLACEMENTS ? fit / MFB_CODE_PLACEMENTS * MFB_CODE_PLACEMENTS : fit > 1 ? fit : 1;
    s->processes_fitted = true;
}

/* Where --processes came from, for the result file. */
static const char *processes_source(const struct mfb_study *s)
{
    return s->processes_given ? "given" : s->processes_fitted ? "default, fewer to fit --time" : "default";
}

void mfb_study_resolve(struct mfb_study *s)
{
    if (!s->seed_given)
        s->seed = mfb_seed_fresh();
    if (s->target_ci > 0 && !s->time_given)
        s->time_s = 60;
    else if (s->rounds && !s->time_given)
        s->time_s = 0;
    /* A trace's window is timed once per batch: a second pass over the same window in the same
     * order would let the predictors learn a sequence the program never repeated. */
    if (s->trace && s->batch_passes == 0)
        s->batch_passes = 1;
    fit_processes(s);
}

/* The options that need another, or exclude one: 0, or -1 with err. */
static int check_combinations(const struct mfb_study *c, struct mfb_err *err)
{
    if (!c->output)
        return mfb_fail(err, CMD ": -o FILE is required ('-' for stdout)");
    if (c->latency && !mfb_target_dependent_zero())
        return mfb_fail(err, CMD ": --latency: not available on this CPU architecture (needs x86-64 or AArch64)");
    if (c->icache_pressure && !mfb_target_code_generation())
        return mfb_fail(err, CMD ": --icache-pressure: generated code is written for x86-64 only");
    if (c->background_cpus.n && !c->background)
        return mfb_fail(err, CMD ": --background-cpus needs --background NAME");
    if ((c->threads > 1 || c->cpus.n || c->background) && c->cpu_given && c->cpu < 0)
        return mfb_fail(err, CMD ": --cpu none: %s pins its threads", c->background ? "--background" :
                        "--threads/--cpus");
    if (c->cache_from && c->l1d)
        return mfb_fail(err, CMD ": --cache and --cache-from both set the cache sizes: give one");
    if (c->target_ci > 0 && c->nvariants == 1)
        return mfb_fail(err, CMD ": --target-ci needs a baseline and at least one other variant");
    if (!c->sweeping && (c->unpredictable || c->align_src || c->align_dst))
        return mfb_fail(err, CMD ": %s applies to sweeps (memfbench sweep SIZES); a distribution brings "
                        "its own sizes and alignments", c->unpredictable ? "--unpredictable" : c->align_src ?
                        "--align-src" : "--align-dst");
    if (c->params.n && c->pgo)
        return mfb_fail(err, CMD ": --param and --pgo: each setting would need its own training; give one");
    if (mfb_params_check(&c->params, err) < 0)
        return -1;
    if ((c->pgo_train || c->pgo_seed_given) && !c->pgo)
        return mfb_fail(err, CMD ": %s needs --pgo", c->pgo_train ? "--pgo-train" : "--pgo-seed");
    if (c->pgo && (c->trace || c->sweeping) && !c->pgo_train)
        return mfb_fail(err, CMD ": --pgo with %s: name the training calls with --pgo-train SPEC (a distribution or "
                        "a record folder)", c->trace ? "--trace" : "a sweep");
    if (c->trace && (c->distribution || c->sweeping || c->by_class))
        return mfb_fail(err, CMD ": --trace replays a recorded sequence; %s does not apply",
                        c->distribution ? "-d" : c->sweeping ? "--sweep" : "--by-class");
    if (c->sweeping && (c->distribution || c->by_class || c->target_ci > 0))
        return mfb_fail(err, "memfbench sweep: %s does not apply to a sweep (its points are its sizes)",
                        c->distribution ? "-d" : c->by_class ? "--by-class" : "--target-ci");
    return 0;
}

/* The budgets: every process keeps enough batches and seconds of rounds. */
static int check_budgets(const struct mfb_study *c, long threads, struct mfb_err *err)
{
    /* each of thread 0's batches keeps one per thread, and with several its alone batch too */
    long kept = threads > 1 ? threads + 1 : 1;
    long shares = c->target_ci > 0 ? MFB_MAX_PROCESSES : c->processes;
    if (c->process_index < 0 && c->max_batches / shares / kept < MFB_MIN_PROCESS_BATCHES)
        return mfb_fail(err, CMD ": --max-batches %ld leaves fewer than %d batches of thread 0 to each of %ld "
                        "processes%s", c->max_batches, MFB_MIN_PROCESS_BATCHES, shares,
                        kept > 1 ? " (each keeps a batch per thread and an alone batch)" : "");
    if (c->warmup_rounds >= c->max_batches)
        return mfb_fail(err, CMD ": --warmup-rounds %ld: each round keeps a batch per variant, so the warm-up "
                        "alone would pass --max-batches %ld", c->warmup_rounds, c->max_batches);
    /* --target-ci adds processes with a default share each; otherwise --time is split. */
    if (c->time_s > 0 && c->target_ci <= 0 && c->process_index < 0 &&
        c->time_s / (double)c->processes < MFB_MIN_PROCESS_TIME_S)
        return mfb_fail(err, CMD ": --time %g over --processes %ld leaves %.3g s of rounds per process; at "
                        "least %g s each: raise --time or lower --processes", c->time_s, c->processes,
                        c->time_s / (double)c->processes, MFB_MIN_PROCESS_TIME_S);
    return 0;
}

int mfb_study_check(const struct mfb_study *s, long threads, struct mfb_err *err)
{
    return check_combinations(s, err) < 0 || check_budgets(s, threads, err) < 0 ? -1 : 0;
}

/* --label (base/label.h): null without one. */
static cJSON *label_json(const struct mfb_label *l)
{
    if (l->source == MFB_LABEL_NONE)
        return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "text", l->text);
    cJSON_AddStringToObject(o, "source", mfb_label_source_name(l->source));
    if (l->source == MFB_LABEL_GIT)
        cJSON_AddStringToObject(o, "folder", l->folder);
    else
        cJSON_AddNullToObject(o, "folder");
    if (l->time[0])
        cJSON_AddStringToObject(o, "commit_time", l->time);
    else
        cJSON_AddNullToObject(o, "commit_time");
    return o;
}

static cJSON *number_or_null(double v, enum mfb_flag_null when)
{
    bool null = (when == MFB_NULL_UNLESS_POSITIVE && v <= 0) || (when == MFB_NULL_IF_NEGATIVE && v < 0);
    return null ? cJSON_CreateNull() : cJSON_CreateNumber(v);
}

/* The rows whose echo is not their member as it is: a name, a list, an object, a word for a flag,
 * a number that only some functions have. NULL: the row's member as it is. */
static cJSON *echo_custom(const struct mfb_flag *r, const struct mfb_study *s)
{
    switch (r->id) {
    case 'f':
        return cJSON_CreateString(mfb_func_name(s->func));
    case OPT_PRIME:
        return cJSON_CreateBool(!s->no_prime);
    case OPT_PGO: {
        if (!s->pgo)
            return cJSON_CreateNull();
        cJSON *o = cJSON_CreateObject();
        if (s->pgo_train)
            cJSON_AddStringToObject(o, "train", s->pgo_train);
        else
            cJSON_AddNullToObject(o, "train");
        cJSON_AddNumberToObject(o, "calls", MFB_PGO_TRAIN_CALLS);
        char seed[24];
        snprintf(seed, sizeof seed, "0x%016llx", (unsigned long long)mfb_study_pgo_seed(s));
        cJSON_AddStringToObject(o, "seed", seed);
        return o;
    }
    case OPT_PARAM:
        return mfb_params_json(&s->params);
    case OPT_SETTING:
        return mfb_params_settings_json(&s->params);
    case OPT_LATENCY:
        return cJSON_CreateString(s->latency ? "latency" : "throughput");
    case OPT_LARGEWIN:
        return cJSON_CreateString(s->large_sized ? "sized" : "evicted");
    case OPT_FLIP: /* the compare functions' alone */
        return mfb_func_compares(s->func) ? cJSON_CreateNumber((double)s->flip_lead) : cJSON_CreateNull();
    case 'c':
        return s->cpu >= 0 ? cJSON_CreateNumber(s->cpu) : cJSON_CreateNull();
    case OPT_LABEL:
        return label_json(&s->label);
    case OPT_DEADLINE: { /* every kind's, resolved: seconds, or null for none */
        cJSON *o = cJSON_CreateObject();
        for (int k = 0; k < MFB_PROG_KINDS; k++) {
            double v = mfb_deadline_of(&s->deadlines, (enum mfb_prog_kind)k);
            cJSON_AddItemToObject(o, mfb_prog_kind((enum mfb_prog_kind)k)->name,
                                  v > 0 ? cJSON_CreateNumber(v) : cJSON_CreateNull());
        }
        return o;
    }
    case OPT_QUIETW: {
        cJSON *quiet = cJSON_CreateArray();
        for (int k = 0; k < MFB_W_COUNT; k++)
            if (s->quiet_warnings >> k & 1)
                cJSON_AddItemToArray(quiet, cJSON_CreateString(mfb_warning_kind((enum mfb_warning)k)->code));
        return quiet;
    }
    }
    return NULL;
}

static cJSON *echo_row(const struct mfb_flag *r, const struct mfb_study *s)
{
    const void *m = (const char *)s + r->member;
    cJSON *own = echo_custom(r, s);
    if (own)
        return own;
    switch (r->kind) {
    case MFB_FLAG_TEXT:
        return *(const char *const *)m ? cJSON_CreateString(*(const char *const *)m) : cJSON_CreateNull();
    case MFB_FLAG_LONG:
        return number_or_null((double)*(const long *)m, r->null_when);
    case MFB_FLAG_REAL:
        return number_or_null(*(const double *)m, r->null_when);
    case MFB_FLAG_BYTES:
        return number_or_null((double)*(const uint64_t *)m, r->null_when);
    case MFB_FLAG_CHOICE:
        return cJSON_CreateString(mfb_choice_name((enum mfb_choice_set)r->choice, *(const int *)m));
    case MFB_FLAG_SET:
        return cJSON_CreateBool(*(const bool *)m);
    default:
        return cJSON_CreateNull(); /* a row with an echo key and no echo of its own: not in the table */
    }
}

uint64_t mfb_study_pgo_seed(const struct mfb_study *s)
{
    return s->pgo_seed_given ? s->pgo_seed : MFB_PGO_DEFAULT_SEED;
}

void mfb_study_echo(cJSON *cfg, const struct mfb_study *s)
{
    for (size_t i = 0; i < run_table.n; i++) {
        const struct mfb_flag *r = &run_flags[i];
        if (!r->echo)
            continue;
        cJSON_AddItemToObject(cfg, r->echo, echo_row(r, s));
        /* where the value came from, beside it */
        if (r->id == OPT_PROCS)
            cJSON_AddStringToObject(cfg, "processes_source", processes_source(s));
        else if (r->id == 'c')
            cJSON_AddStringToObject(cfg, "cpu_source", s->cpus.n ? "--cpus (thread 0's)" : s->cpu_given ? "given" :
                                    "default: last allowed CPU");
    }
}

/* A row the parent sets, written when the child's study holds a value for it. */
static int child_value(const struct mfb_flag *r, const struct mfb_study *c, char *buf, size_t cap)
{
    const void *m = (const char *)c + r->member;
    switch (r->kind) {
    case MFB_FLAG_LONG:
        return *(const long *)m >= (long)r->lo ? snprintf(buf, cap, "%ld", *(const long *)m) : -1;
    case MFB_FLAG_REAL:
        /* %.17g reads back as the same double: the child's share of --time and its clock rate are
         * the parent's own (at %.6f a rate of 2599998058.3432984 Hz came back 4e-7 Hz off) */
        return *(const double *)m > r->lo ? snprintf(buf, cap, "%.17g", *(const double *)m) : -1;
    case MFB_FLAG_SEED:
        return !r->given || *(const bool *)((const char *)c + r->given - 1)
                   ? snprintf(buf, cap, "%llu", (unsigned long long)*(const uint64_t *)m) : -1;
    case MFB_FLAG_SET:
        return *(const bool *)m ? 0 : -1;
    case MFB_FLAG_TEXT: /* the child's file: passed as the pointer it is */
        return *(const char *const *)m ? snprintf(buf, cap, "-") : -1;
    default:
        return -1; /* a parent sets numbers, flags and its file only */
    }
}

/* Appends "--NAME" (and "=VALUE" for an optional value) to the text area: the copy. */
static char *long_form(char **text, const struct mfb_flag *r, const char *value)
{
    char *s = *text;
    int len = value ? sprintf(s, "--%s=%s", r->name, value) : sprintf(s, "--%s", r->name);
    *text += len + 1;
    return s;
}

int mfb_study_child_argv(const struct mfb_study *parent, const struct mfb_study *child, char ***argv_out,
                         struct mfb_err *err)
{
    /* "memfbench run", each of the parent's arguments at most once (an option and its value), the
     * rows the parent sets (two each), the NULL; then the text of the long forms and the values the
     * parent writes: at most each argument again with its name, and each row's name and number. */
    size_t slots = 2 + (size_t)parent->argc + 2 * run_table.n + 1;
    size_t text_cap = (child->output ? strlen(child->output) + 1 : 0);
    for (int i = 0; i < parent->argc; i++)
        text_cap += strlen(parent->argv[i]) + MFB_FLAG_NAME_MAX + 4;
    text_cap += run_table.n * (MFB_FLAG_NAME_MAX + 4 + MFB_FLAG_NUMBER_MAX);
    char **argv = calloc(1, slots * sizeof *argv + text_cap);
    struct option *opts = calloc(run_table.n + 1, sizeof *opts);
    char shorts[MFB_FLAGS_SHORTS_CAP(sizeof run_flags / sizeof run_flags[0])];
    if (!argv || !opts) {
        free(argv);
        free(opts);
        return mfb_fail(err, CMD ": out of memory for a child's command line");
    }
    char *text = (char *)(argv + slots);
    size_t n = 0;
    argv[n++] = "memfbench";
    argv[n++] = "run";
    /* the parent's own options, passed on as given: read again with the same rows */
    mfb_flags_getopt(run_flags, run_table.n, false, opts, shorts);
    optind = 0;
    opterr = 0;
    int ch;
    while ((ch = getopt_long(parent->argc, parent->argv, shorts, opts, NULL)) != -1) {
        const struct mfb_flag *r = mfb_flags_row(&run_table, ch);
        if (!r || r->child != MFB_CHILD_PASS)
            continue;
        argv[n++] = long_form(&text, r, r->has_arg == optional_argument ? optarg : NULL);
        if (r->has_arg == required_argument)
            argv[n++] = optarg;
    }
    free(opts);
    /* the rows the parent sets, from the child's typed study */
    for (size_t i = 0; i < run_table.n; i++) {
        const struct mfb_flag *r = &run_flags[i];
        char value[MFB_FLAG_NUMBER_MAX];
        if (r->child != MFB_CHILD_PARENT || child_value(r, child, value, sizeof value) < 0)
            continue;
        argv[n++] = long_form(&text, r, NULL);
        if (r->kind == MFB_FLAG_TEXT) {
            argv[n++] = (char *)*(const char *const *)((const char *)child + r->member);
        } else if (r->kind != MFB_FLAG_SET) {
            argv[n++] = strcpy(text, value);
            text += strlen(value) + 1;
        }
    }
    argv[n] = NULL;
    *argv_out = argv;
    return 0;
}
