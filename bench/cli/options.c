#include "cli/options.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "base/parse.h"
#include "base/flags.h"
#include "base/warn.h"
#include "measure/evict.h"
#include "measure/layout.h"
#include "orchestrate/cpus.h"
#include "measure/pressure.h"
#include "workload/classes.h"
#include "workload/sweep.h"
#include "config.h"

enum { OPT_WARMUP = 256, OPT_ALIGN, OPT_CLOCK, OPT_CACHE, OPT_DISTDIR, OPT_TARGET, OPT_PROCS, OPT_PINDEX,
       OPT_SINGLE, OPT_PASSES, OPT_PRIME, OPT_FLIP, OPT_SMALLMAX, OPT_PLACESEED, OPT_MAXBATCHES, OPT_WATCHDOG,
       OPT_QUIETW, OPT_BYCLASS, OPT_LATENCY, OPT_SWEEP, OPT_UNPRED, OPT_ALIGNSRC, OPT_ALIGNDST, OPT_TRACE, OPT_CACHEFROM, OPT_COUNTERS, OPT_PRESSURE,
       OPT_THREADS, OPT_CPUS, OPT_BACKGROUND, OPT_BGCPUS, OPT_CODEROT, OPT_LARGEWIN, OPT_LABEL, OPT_VCFLAGS };

/* The options of memfbench run, in the order --help lists them (base/flags.h). */
static const struct mfb_flag run_flags[] = {
    {"function", required_argument, 'f', true, "F", "memcpy (default), memmove, memset, memcmp or bcmp"},
    {"distribution", required_argument, 'd', true, "D",
     "shipped name (see `memfbench list`), path to a _size.csv or a\n"
     "fleetbench key:prob file, or fixed:N, uniform:LO-HI, pow2:LO-HI\n"
     "(default: fleetbench/<Function>_Fleet)"},
    {"variant", required_argument, 'v', true, "V",
     "variant to time; repeat for more. The first is the baseline of\n"
     "the summary (default: libc, the available built-ins, noop)"},
    {"variant-cflags", required_argument, OPT_VCFLAGS, false, "FLAGS",
     "compiler flags of source variants (-v FILE.c:SYMBOL), built with\n"
     "$CC (default cc) at every code placement and cached (default:\n"
     "$CFLAGS, else -O2)"},
    {"time", required_argument, 't', true, "S",
     "seconds of rounds, warm-up included, over all processes\n"
     "(default 5; with --rounds alone: no limit)"},
    {"rounds", required_argument, 'r', true, "N", "stop after N measured rounds (after the warm-up)"},
    {"max-batches", required_argument, OPT_MAXBATCHES, false, "N",
     "keep at most N batches over all processes, then stop: the\n"
     "memory and file bound of a long run (default 4194304)"},
    {"warmup-rounds", required_argument, OPT_WARMUP, false, "N",
     "flag the first N rounds as warm-up (default: detected: rounds\n"
     "replay the first calls until their time settles)"},
    {"target-ci", required_argument, OPT_TARGET, false, "P",
     "stop once every variant's 95 % CI of its ratio to the baseline is\n"
     "within +-P % (time cap: --time, default 60 s with this option)"},
    {"processes", required_argument, OPT_PROCS, false, "K",
     "run K fresh processes (new address layout, buffers, seeds) and\n"
     "merge their samples with a process index; --time is split.\n"
     "Each process is one replicate of the verdict (default 10)"},
    {"allow-single-process", no_argument, OPT_SINGLE, false, NULL,
     "with --processes 1: let the analysis give faster/slower\n"
     "verdicts from one process (its interval covers that process only)"},
    {"batch-passes", required_argument, OPT_PASSES, false, "N",
     "passes over the call array per batch (default: sized on the\n"
     "function's libc, by the first process, for all of them)"},
    {"no-prime", no_argument, OPT_PRIME, false, NULL,
     "no untimed pass of the same variant (in an order of its own)\n"
     "before each timed batch"},
    {"placement", required_argument, 'p', true, "P",
     "auto (default: small calls in L1, large ones far beyond the LLC),\n"
     "or l1, l2, llc, dram for every call"},
    {"small-max", required_argument, OPT_SMALLMAX, false, "B",
     "auto placement: calls up to B bytes are small (default 2K, the\n"
     "same on every machine; must fit the L1 window)"},
    {"large-window", required_argument, OPT_LARGEWIN, false, "S",
     "evicted (default: 64 MiB per buffer, every line a timed batch's large\n"
     "calls touch flushed before it) or sized (4 x LLC per buffer, no flush)"},
    {"code-rotation", required_argument, OPT_CODEROT, false, "R",
     "process (default): one code placement per process, balanced over\n"
     "the study; round (experimental): the loop and each built-in move\n"
     "through all of theirs every 8 rounds (its intervals were too\n"
     "narrow on the Zen 5 VM: docs/methodology.md)"},
    {"flip-lead", required_argument, OPT_FLIP, false, "N",
     "memcmp/bcmp: store each call's injected difference N calls\n"
     "ahead, so its store has reached L1 (default 4; 0: right\n"
     "before the call, which penalises wide first loads)"},
    {"alignment-mode", required_argument, OPT_ALIGN, false, "M",
     "exact (default: alignment A means the address's largest\n"
     "power-of-two divisor is A) or at-least (a multiple of A)"},
    {"watchdog", required_argument, OPT_WATCHDOG, false, "S",
     "a variant that has not returned from a call for S seconds\n"
     "(verifying or timing) ends the run with its name (default 60)"},
    {"cpu", required_argument, 'c', true, "N", "pin to CPU N (default: the last allowed CPU); 'none' to not pin"},
    {"threads", required_argument, OPT_THREADS, false, "N",
     "N timing threads, each pinned to its CPU with its own buffers and\n"
     "calls, every batch started together; thread 0 also times each\n"
     "variant alone per round (interference). Default 1"},
    {"cpus", required_argument, OPT_CPUS, false, "LIST",
     "the timing threads' CPUs in thread order, e.g. 1,0 (default: --cpu\n"
     "first, then the other allowed CPUs); SMT siblings allowed"},
    {"background", required_argument, OPT_BACKGROUND, false, "NAME",
     "a stressor on other CPUs during the rounds: bandwidth (memcpy far\n"
     "beyond the LLC) or spin (register adds, no memory)"},
    {"background-cpus", required_argument, OPT_BGCPUS, false, "LIST",
     "its CPUs (default: every allowed CPU no timing thread uses)"},
    {"seed", required_argument, 's', true, "S",
     "64-bit seed of every random choice, decimal or 0x hex\n"
     "(default: fresh, recorded)"},
    {"clock", required_argument, OPT_CLOCK, false, "C", "auto (default), tsc, cntvct or monotonic"},
    {"cache", required_argument, OPT_CACHE, false, "L1D:L2:LLC", "override detected cache sizes, e.g. 48K:2M:32M"},
    {"cache-from", required_argument, OPT_CACHEFROM, false, "FILE",
     "the cache sizes a memfbench probe file found (where sysfs is wrong)"},
    {"icache-pressure", required_argument, OPT_PRESSURE, false, "S",
     "run S bytes of generated jumps after every call (inside the timed loop;\n"
     "the noop variant measures its cost), e.g. 16K"},
    {"counters", required_argument, OPT_COUNTERS, false, "MODE",
     "off|auto|on|fake: cycles, instructions, branch and L1d misses per batch\n"
     "(default off; auto: when the PMU allows; fake: clock-derived, for tests)"},
    {"dist-dir", required_argument, OPT_DISTDIR, false, "DIR",
     "folder of shipped distributions (default: " MFB_DIST_DIR ")"},
    {"quiet", no_argument, 'q', true, NULL, "no progress, warnings or summary on stderr"},
    {"latency", no_argument, OPT_LATENCY, false, NULL,
     "time dependent calls: each call's addresses wait for the previous\n"
     "call's result (its last byte written), so calls cannot overlap\n"
     "(default: independent calls, a throughput)"},
    {"sweep", required_argument, OPT_SWEEP, false, "SIZES",
     "a size sweep instead of a distribution (memfbench sweep SIZES):\n"
     "N, LO-HI:STEP, pow2:LO-HI, comma-separated; each size its own\n"
     "batches, every variant interleaved per size in every round"},
    {"unpredictable", required_argument, OPT_UNPRED, false, "P",
     "sweep: each call's size drawn within +-P % of the point, or\n"
     "'class': within its power-of-two class (default: the size itself)"},
    {"align-src", required_argument, OPT_ALIGNSRC, false, "A",
     "sweep: every call's source alignment (default: any offset)"},
    {"align-dst", required_argument, OPT_ALIGNDST, false, "A",
     "sweep: every call's destination alignment (default: any offset)"},
    {"trace", required_argument, OPT_TRACE, false, "FILE",
     "replay a recorded call sequence in its order (FUNCTION_trace.csv of\n"
     "memfbench record --trace): each round the next window of calls"},
    {"by-class", optional_argument, OPT_BYCLASS, false, "[=E,...]",
     "also time each size class of the distribution as its own batches\n"
     "in the same rounds, for the analysis's per-class attribution\n"
     "(default edges 0,2,4,8,...,small-max: classes 0, 1-2, 3-4, ...)"},
    {"quiet-warnings", required_argument, OPT_QUIETW, false, "L",
     "warnings of these codes (comma-separated, or 'all') are kept in the\n"
     "file but not printed; codes: memfbench list"},
    {"label", required_argument, OPT_LABEL, false, "TEXT",
     "what this result is a point of, for `memfbench analyze history`\n"
     "(a commit, a build, a date); default: git describe of the first\n"
     "plugin's folder when it is in a git repository, else none"},
    {"output", required_argument, 'o', true, "FILE", "result file, written atomically; '-' for stdout"},
    {"help", no_argument, 'h', true, NULL, "this text"},
    {"process-index", required_argument, OPT_PINDEX, false, "N", NULL}, /* internal: the --processes parent's */
    {"code-placement-seed", required_argument, OPT_PLACESEED, false, "N", NULL}, /* internal: the --processes parent's */
};

void mfb_options_usage(FILE *out)
{
    fputs("usage: memfbench run [options] -o FILE\n"
          "\n"
          "Replays a recorded call distribution against several implementations of one memory\n"
          "function in interleaved rounds, and writes every per-batch sample to FILE (JSON).\n"
          "\n", out);
    mfb_flags_usage(out, run_flags, sizeof run_flags / sizeof run_flags[0]);
}

/* A whole number in [lo, hi] for option opt; LONG_MAX as hi: no upper bound. */
static int parse_long(const char *opt, const char *s, long lo, long hi, long *out, struct mfb_err *err)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno)
        return mfb_fail(err, "memfbench run: %s: '%s' is not a whole number", opt, s);
    if (v < lo)
        return mfb_fail(err, "memfbench run: %s: %ld is below the minimum %ld", opt, v, lo);
    if (v > hi)
        return mfb_fail(err, "memfbench run: %s: at most %ld", opt, hi);
    *out = v;
    return 0;
}

/* What is replayed and where its data lies: the function, the distribution or a sweep or trace, the
 * variants, alignment and placement. 1 when ch is one of these (applied), 0 when not, -1 with err on a bad value. */
static int apply_workload(int ch, const char *arg, struct mfb_study *c, struct mfb_err *err)
{
    switch (ch) {
    case 'f':
        if (mfb_func_parse(arg, &c->func) < 0) {
            char names[MFB_FUNC_NAMES_CAP];
            return mfb_fail(err, "memfbench run: --function: '%s' is not %s", arg,
                            mfb_func_names(names, sizeof names));
        }
        return 1;
    case 'd':
        c->distribution = arg;
        return 1;
    case 'v':
        if (c->nvariants == MFB_MAX_VARIANTS)
            return mfb_fail(err, "memfbench run: --variant: at most %d variants", MFB_MAX_VARIANTS);
        c->variants[c->nvariants++] = arg;
        return 1;
    case OPT_VCFLAGS:
        c->variant_cflags = arg;
        return 1;
    case 'p':
        if (mfb_placement_parse(arg, &c->placement) < 0)
            return mfb_fail(err, "memfbench run: --placement: '%s' is not auto, l1, l2, llc or dram", arg);
        return 1;
    case OPT_ALIGN:
        if (mfb_align_mode_parse(arg, &c->align_mode) < 0)
            return mfb_fail(err, "memfbench run: --alignment-mode: '%s' is not exact or at-least", arg);
        return 1;
    case OPT_DISTDIR:
        c->dist_dir = arg;
        return 1;
    case OPT_SWEEP:
        c->sweeping = true;
        return mfb_sweep_parse_sizes(&c->sweep, arg, err) < 0 ? -1 : 1;
    case OPT_UNPRED:
        c->unpredictable = true;
        return mfb_sweep_parse_mode(&c->sweep, arg, err) < 0 ? -1 : 1;
    case OPT_ALIGNSRC:
    case OPT_ALIGNDST: {
        size_t a;
        const char *name = ch == OPT_ALIGNSRC ? "--align-src" : "--align-dst";
        if (mfb_parse_bytes(arg, &a) < 0 || a == 0 || a > MFB_MAX_ALIGN || (a & (a - 1)))
            return mfb_fail(err, "memfbench run: %s: '%s' is not a power of two from 1 to %u", name, arg,
                            MFB_MAX_ALIGN);
        *(ch == OPT_ALIGNSRC ? &c->align_src : &c->align_dst) = a;
        return 1;
    }
    case OPT_TRACE:
        c->trace = arg;
        return 1;
    case OPT_LATENCY:
        if (!mfb_latency_supported())
            return mfb_fail(err, "memfbench run: --latency: not available on this CPU architecture (needs "
                                 "x86-64 or AArch64)");
        c->latency = true;
        return 1;
    case OPT_BYCLASS:
        c->by_class = true;
        c->class_edges.nedges = 0; /* bare --by-class: the default edges, cut at the run's small_max */
        if (arg && mfb_classes_parse_edges(&c->class_edges, arg, err) < 0)
            return -1;
        return 1;
    case OPT_LARGEWIN: /* "evicted" needs a user-mode flush; "sized" works everywhere */
        c->large_sized = !strcmp(arg, "sized");
        if (!c->large_sized && (strcmp(arg, "evicted") || !mfb_evict_available()))
            return mfb_fail(err, "memfbench run: --large-window: '%s' is not evicted or sized%s", arg,
                            mfb_evict_available() ? "" : " (no user-mode cache flush here: sized only)");
        return 1;
    case OPT_SMALLMAX: {
        size_t v;
        if (mfb_parse_bytes(arg, &v) < 0 || v == 0 || v > MFB_SIZE_MASK)
            return mfb_fail(err, "memfbench run: --small-max: '%s' is not a size in bytes such as 2048 or 2K",
                            arg);
        c->small_max = v;
        return 1;
    }
    }
    return 0;
}

/* The machine side: CPUs and threads, stressors, clock, cache sizes, counters, icache pressure. 1 when ch is one of these (applied), 0 when not, -1 with err on a bad value. */
static int apply_machine(int ch, const char *arg, struct mfb_study *c, struct mfb_err *err)
{
    long v = 0;
    switch (ch) {
    case 'c':
        c->cpu_given = true;
        if (!strcmp(arg, "none")) {
            c->cpu = -1;
            return 1;
        }
        if (parse_long("--cpu", arg, 0, CPU_SETSIZE - 1, &v, err) < 0)
            return -1;
        c->cpu = (int)v;
        return 1;
    case OPT_CLOCK:
        if (mfb_clock_request_parse(arg, &c->clock) < 0)
            return mfb_fail(err, "--clock: '%s' is not auto, tsc, cntvct or monotonic", arg);
        return 1;
    case OPT_CACHE: {
        /* Three sizes of a few characters each: anything longer is not one (and would not fit). */
        char buf[64], *parts[4];
        int len = snprintf(buf, sizeof buf, "%s", arg);
        parts[0] = strtok(buf, ":");
        parts[1] = strtok(NULL, ":");
        parts[2] = strtok(NULL, ":");
        parts[3] = strtok(NULL, ":");
        size_t *dst[3] = {&c->l1d, &c->l2, &c->llc};
        for (int i = 0; i < 3; i++)
            if (len < 0 || (size_t)len >= sizeof buf || parts[3] || !parts[i] ||
                mfb_parse_bytes(parts[i], dst[i]) < 0 || *dst[i] < 4096)
                return mfb_fail(err, "memfbench run: --cache: '%s' is not L1D:L2:LLC sizes such as 48K:2M:32M",
                                arg);
        return 1;
    }
    case OPT_CACHEFROM:
        c->cache_from = arg;
        return 1;
    case OPT_PRESSURE:
        if (mfb_parse_bytes(arg, &c->icache_pressure) < 0 || c->icache_pressure < MFB_PRESSURE_LINE ||
            c->icache_pressure > MFB_PRESSURE_MAX || c->icache_pressure % MFB_PRESSURE_LINE)
            return mfb_fail(err, "memfbench run: --icache-pressure: '%s' is not a multiple of 64 bytes from 64 to "
                                 "1M, e.g. 16K", arg);
        if (!mfb_pressure_supported())
            return mfb_fail(err, "memfbench run: --icache-pressure: generated code is written for x86-64 only");
        return 1;
    case OPT_THREADS:
        if (parse_long("--threads", arg, 1, MFB_MAX_THREADS, &c->threads, err) < 0)
            return -1;
        return 1;
    case OPT_CPUS:
        if (mfb_cpu_list_parse("memfbench run", "--cpus", arg, MFB_MAX_THREADS, &c->cpus, err) < 0)
            return -1;
        return 1;
    case OPT_BACKGROUND: {
        int k = mfb_stressor_parse(arg);
        if (k < 0)
            return mfb_fail(err, "memfbench run: --background: '%s' is not bandwidth or spin", arg);
        c->background = (enum mfb_stressor)k;
        return 1;
    }
    case OPT_BGCPUS:
        if (mfb_cpu_list_parse("memfbench run", "--background-cpus", arg, MFB_MAX_BACKGROUND, &c->background_cpus,
                               err) < 0)
            return -1;
        return 1;
    case OPT_COUNTERS: {
        int m = mfb_counters_mode_parse(arg);
        if (m < 0)
            return mfb_fail(err, "memfbench run: --counters: '%s' is not off, auto, on or fake", arg);
        c->counters = (enum mfb_counters_mode)m;
        return 1;
    }
    }
    return 0;
}

/* How long and how often: time, rounds, processes and their stop rule, batches, seeds and code
 * placements, warnings, output. 1 when ch is one of these (applied), 0 when not, -1 with err on a bad value. */
static int apply_budget(int ch, const char *arg, struct mfb_study *c, struct mfb_err *err)
{
    switch (ch) {
    case 't': {
        char *end;
        errno = 0;
        c->time_s = strtod(arg, &end);
        if (end == arg || *end || errno || !isfinite(c->time_s) || c->time_s <= 0)
            return mfb_fail(err, "memfbench run: --time: '%s' is not a positive number of seconds", arg);
        if (c->time_s > MFB_MAX_TIME_S)
            return mfb_fail(err, "memfbench run: --time: at most %g seconds", MFB_MAX_TIME_S);
        c->time_given = true;
        return 1;
    }
    case 'r':
        if (parse_long("--rounds", arg, 1, MFB_MAX_ROUNDS, &c->rounds, err) < 0)
            return -1;
        return 1;
    case OPT_WARMUP:
        if (parse_long("--warmup-rounds", arg, 0, MFB_MAX_ROUNDS, &c->warmup_rounds, err) < 0)
            return -1;
        return 1;
    case 's':
        if (mfb_parse_seed(arg, &c->seed) < 0)
            return mfb_fail(err, "memfbench run: --seed: '%s' is not an unsigned 64-bit number (decimal, or hex "
                                 "with 0x)", arg);
        c->seed_given = true;
        return 1;
    case OPT_WATCHDOG: {
        char *end;
        errno = 0;
        c->watchdog_s = strtod(arg, &end);
        if (end == arg || *end || errno || !isfinite(c->watchdog_s) || c->watchdog_s < 0.1 ||
            c->watchdog_s > MFB_MAX_WATCHDOG_S)
            return mfb_fail(err, "memfbench run: --watchdog: '%s' is not a number of seconds from 0.1 to %g",
                            arg, MFB_MAX_WATCHDOG_S);
        return 1;
    }
    case OPT_TARGET: {
        char *end;
        errno = 0;
        c->target_ci = strtod(arg, &end);
        if (end == arg || *end || errno || !isfinite(c->target_ci) || c->target_ci <= 0 || c->target_ci >= 100)
            return mfb_fail(err, "memfbench run: --target-ci: '%s' is not a percentage between 0 and 100", arg);
        return 1;
    }
    case OPT_PROCS:
        if (parse_long("--processes", arg, 1, MFB_MAX_PROCESSES, &c->processes, err) < 0)
            return -1;
        c->processes_given = true;
        return 1;
    case OPT_PASSES:
        if (parse_long("--batch-passes", arg, 1, MFB_MAX_BATCH_PASSES, &c->batch_passes, err) < 0)
            return -1;
        return 1;
    case OPT_PRIME:
        c->no_prime = true;
        return 1;
    case OPT_MAXBATCHES:
        if (parse_long("--max-batches", arg, 1, MFB_MAX_MAX_BATCHES, &c->max_batches, err) < 0)
            return -1;
        return 1;
    case OPT_FLIP:
        if (parse_long("--flip-lead", arg, 0, MFB_MAX_FLIP_LEAD, &c->flip_lead, err) < 0)
            return -1;
        return 1;
    case OPT_SINGLE:
        c->allow_single_process = true;
        return 1;
    case OPT_PINDEX:
        if (parse_long("--process-index", arg, 0, MFB_MAX_PROCESSES - 1, &c->process_index, err) < 0)
            return -1;
        return 1;
    case OPT_CODEROT:
        if (mfb_code_rotation_parse(arg, &c->code_rotation) < 0)
            return mfb_fail(err, "memfbench run: --code-rotation: '%s' is not round or process", arg);
        return 1;
    case OPT_PLACESEED:
        if (mfb_parse_seed(arg, &c->code_placement_seed) < 0)
            return mfb_fail(err, "memfbench run: --code-placement-seed: '%s' is not an unsigned 64-bit number", arg);
        c->code_placement_seed_given = true;
        return 1;
    }
    return 0;
}

/* What the run writes and says: the result file, and which warnings reach the terminal. 1 when ch is
 * one of these (applied), 0 when not, -1 with err on a bad value. */
static int apply_output(int ch, const char *arg, struct mfb_study *c, struct mfb_err *err)
{
    switch (ch) {
    case OPT_QUIETW: {
        char bad[80];
        if (mfb_warning_mask(arg, &c->quiet_warnings, bad, sizeof bad) < 0) {
            char known[512] = "";
            for (int k = 0; k < MFB_W_COUNT; k++)
                snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", k ? ", " : "",
                         mfb_warning_kind((enum mfb_warning)k)->code);
            return mfb_fail(err, "memfbench run: --quiet-warnings: unknown code '%s' (codes: %s, or all)", bad,
                            known);
        }
        return 1;
    }
    case 'q':
        c->quiet = true;
        return 1;
    case 'o':
        c->output = arg;
        return 1;
    case OPT_LABEL:
        return mfb_label_given(&c->label, arg, err) < 0 ? -1 : 1;
    }
    return 0;
}

int mfb_options_parse(int argc, char **argv, struct mfb_study *c, struct mfb_err *err)
{
    mfb_study_defaults(c, getenv("MEMFBENCH_DISTRIBUTIONS") ? getenv("MEMFBENCH_DISTRIBUTIONS") : MFB_DIST_DIR);
    c->argc = argc;
    c->argv = argv;
    enum { NFLAGS = sizeof run_flags / sizeof run_flags[0] };
    struct option opts[NFLAGS + 1];
    char shorts[MFB_FLAGS_SHORTS_CAP(NFLAGS)];
    mfb_flags_getopt(run_flags, NFLAGS, false, opts, shorts);
    /* 0, not 1: glibc then also forgets the position inside a group of short options (-hq). */
    optind = 0;
    opterr = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, shorts, opts, NULL)) != -1) {
        if (ch == 'h') {
            mfb_options_usage(stdout);
            return 1;
        }
        if (ch == ':')
            return mfb_fail(err, "memfbench run: %s needs a value", argv[optind - 1]);
        int r = ch == '?' ? 0 : apply_workload(ch, optarg, c, err);
        if (r == 0 && ch != '?')
            r = apply_machine(ch, optarg, c, err);
        if (r == 0 && ch != '?')
            r = apply_budget(ch, optarg, c, err);
        if (r == 0 && ch != '?')
            r = apply_output(ch, optarg, c, err);
        if (r < 0)
            return -1;
        if (r == 0)
            return mfb_fail(err, "memfbench run: unknown option '%s' (see memfbench run --help)", argv[optind - 1]);
    }
    if (optind < argc)
        return mfb_fail(err, "memfbench run: unexpected argument '%s'", argv[optind]);
    return mfb_options_check(c, err);
}

int mfb_options_check(struct mfb_study *c, struct mfb_err *err)
{
    if (!c->output)
        return mfb_fail(err, "memfbench run: -o FILE is required ('-' for stdout)");
    if (c->background_cpus.n && !c->background)
        return mfb_fail(err, "memfbench run: --background-cpus needs --background NAME");
    if ((c->threads > 1 || c->cpus.n || c->background) && c->cpu_given && c->cpu < 0)
        return mfb_fail(err, "memfbench run: --cpu none: %s pins its threads", c->background ? "--background" :
                        "--threads/--cpus");
    /* checked here, so a CPU that is not there fails before any set-up; the run plans again */
    struct mfb_cpu_plan plan;
    bool placed = c->threads > 1 || c->cpus.n || c->background || (c->cpu_given && c->cpu >= 0);
    if (placed && mfb_cpus_plan(c, mfb_cpus_last_allowed(), &plan, err) < 0)
        return -1;
    /* each of thread 0's batches keeps one per thread, and with several its alone batch too */
    long kept = placed ? plan.threads + (plan.threads > 1) : 1;
    if (c->cache_from && c->l1d)
        return mfb_fail(err, "memfbench run: --cache and --cache-from both set the cache sizes: give one");
    if (c->target_ci > 0 && !c->time_given)
        c->time_s = 60;
    else if (c->rounds && !c->time_given)
        c->time_s = 0;
    mfb_study_fit_processes(c);
    long shares = c->target_ci > 0 ? MFB_MAX_PROCESSES : c->processes;
    if (c->process_index < 0 && c->max_batches / shares / kept < MFB_MIN_PROCESS_BATCHES)
        return mfb_fail(err, "memfbench run: --max-batches %ld leaves fewer than %d batches of thread 0 to each of %ld "
                        "processes%s", c->max_batches, MFB_MIN_PROCESS_BATCHES, shares,
                        kept > 1 ? " (each keeps a batch per thread and an alone batch)" : "");
    if (c->warmup_rounds >= c->max_batches)
        return mfb_fail(err, "memfbench run: --warmup-rounds %ld: each round keeps a batch per variant, so the warm-up "
                        "alone would pass --max-batches %ld", c->warmup_rounds, c->max_batches);
    /* --target-ci adds processes with a default share each; otherwise --time is split. */
    if (c->time_s > 0 && c->target_ci <= 0 && c->process_index < 0 && c->time_s / (double)c->processes < MFB_MIN_PROCESS_TIME_S)
        return mfb_fail(err, "memfbench run: --time %g over --processes %ld leaves %.3g s of rounds per process; at "
                        "least %g s each: raise --time or lower --processes", c->time_s, c->processes,
                        c->time_s / (double)c->processes, MFB_MIN_PROCESS_TIME_S);
    if (c->target_ci > 0 && c->nvariants == 1)
        return mfb_fail(err, "memfbench run: --target-ci needs a baseline and at least one other variant");
    if (!c->sweeping && (c->unpredictable || c->align_src || c->align_dst))
        return mfb_fail(err, "memfbench run: %s applies to sweeps (memfbench sweep SIZES); a distribution brings "
                        "its own sizes and alignments", c->unpredictable ? "--unpredictable" : c->align_src ?
                        "--align-src" : "--align-dst");
    if (c->trace && (c->distribution || c->sweeping || c->by_class))
        return mfb_fail(err, "memfbench run: --trace replays a recorded sequence; %s does not apply",
                        c->distribution ? "-d" : c->sweeping ? "--sweep" : "--by-class");
    /* A trace's window is timed once per batch: a second pass over the same window in the same
     * order would let the predictors learn a sequence the program never repeated. */
    if (c->trace && c->batch_passes == 0)
        c->batch_passes = 1;
    if (c->sweeping && (c->distribution || c->by_class || c->target_ci > 0))
        return mfb_fail(err, "memfbench sweep: %s does not apply to a sweep (its points are its sizes)",
                        c->distribution ? "-d" : c->by_class ? "--by-class" : "--target-ci");
    return 0;
}
