/* memfbench probe: the memory system a memcpy runs on. Latency per buffer size (random and
 * strided chains, on 4 KiB and on huge pages), the cache levels the curve shows, and read,
 * write and copy bandwidth per size, written atomically to one JSON file as `run` writes its. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/parse.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "base/flags.h"
#include "orchestrate/probe_run.h"
#include "probe/plan.h"

enum { OPT_LAT = 256, OPT_BW, OPT_MAX, OPT_MIN, OPT_STEPS, OPT_REP, OPT_HUGE, OPT_THREADS, OPT_CPUS, OPT_QUICK,
       OPT_CLOCK };

/* The options of memfbench probe, in the order --help lists them (base/flags.h). */
static const struct mfb_flag probe_flags[] = {
    MFB_ROW("output", required_argument, 'o', true, "FILE",
     "probe file (JSON, .json.gz compressed), written atomically; '-' stdout"),
    MFB_ROW("latency", no_argument, OPT_LAT, false, NULL, "measure latency (default: both latency and bandwidth)"),
    MFB_ROW("bandwidth", no_argument, OPT_BW, false, NULL, "measure bandwidth"),
    MFB_ROW("max-size", required_argument, OPT_MAX, false, "S",
     "largest buffer, up to 256G (default: max(1 GiB, 4x LLC), at most 1/4 of\n"
     "free memory)"),
    MFB_ROW("min-size", required_argument, OPT_MIN, false, "S", "smallest buffer (default 4K)"),
    MFB_ROW("steps", required_argument, OPT_STEPS, false, "N", "sizes per octave (default 4; bandwidth uses half as many)"),
    MFB_ROW("repeats", required_argument, OPT_REP, false, "N", "measurements per point, 1-32 (default 5)"),
    MFB_ROW("huge", required_argument, OPT_HUGE, false, "MODE",
     "auto|off|thp|hugetlb: huge pages for a second set of latency curves\n"
     "(default auto: reserved huge pages, else THP, else none)"),
    MFB_ROW_CPU("CPU for latency and one-thread bandwidth (default: last allowed)"),
    MFB_ROW("threads", required_argument, OPT_THREADS, false, "N", "bandwidth threads (default 1, or as many as --cpus lists)"),
    MFB_ROW("cpus", required_argument, OPT_CPUS, false, "LIST",
     "CPUs for the bandwidth threads in order, e.g. 1,0 (one thread per CPU;\n"
     "the first is latency's CPU)"),
    MFB_ROW("quick", no_argument, OPT_QUICK, false, NULL, "small and short: up to 4x L2, 2 sizes per octave, 5 repeats"),
    MFB_ROW_SEED("seed of the random chains (default: fresh, recorded)"),
    MFB_ROW("clock", required_argument, OPT_CLOCK, false, "NAME", "auto|tsc|cntvct|monotonic"),
    MFB_ROW_QUIET("no progress, no summary"),
    MFB_ROW_HELP,
};

/* MFB_PROBE_MAX_REPEATS is an enum: the help's "1-32" is checked against it here. */
_Static_assert(MFB_PROBE_MAX_REPEATS == 32, "--repeats' help names 32 as its maximum");

static void usage(FILE *out)
{
    fputs("usage: memfbench probe [options] -o FILE\n\n"
          "Measures the memory system: load latency per buffer size (a random chain through every\n"
          "line, and strided chains), the cache levels the curve shows, and read/write/copy bandwidth.\n\n", out);
    mfb_flags_usage(out, probe_flags, sizeof probe_flags / sizeof probe_flags[0]);
}

static int parse_count(const char *opt, const char *s, unsigned lo, unsigned hi, unsigned *out, struct mfb_err *err)
{
    uint64_t v;
    if (mfb_parse_u64(s, &v) < 0 || v < lo || v > hi)
        return mfb_fail(err, "memfbench probe: %s: '%s' is not a whole number from %u to %u", opt, s, lo, hi);
    *out = (unsigned)v;
    return 0;
}

/* What an option fills: the request, and what was given (for the checks after the options). */
struct probe_parse {
    struct mfb_probe_config *c;
    struct mfb_probe_given_args *a;
};

/* One option with its value (arg; NULL for a flag) into the configuration: 0, or -1 with err. */
static int apply(int ch, char *arg, void *ctx, struct mfb_err *err)
{
    struct mfb_probe_config *c = ((struct probe_parse *)ctx)->c;
    struct mfb_probe_given_args *a = ((struct probe_parse *)ctx)->a;
    static const char *const huge_names[] = {"auto", "off", "thp", "hugetlb"};
    int h;
    unsigned u = 0;
    switch (ch) {
    case 'o':
        c->output = arg;
        break;
    case OPT_LAT:
        c->latency = true;
        break;
    case OPT_BW:
        c->bandwidth = true;
        break;
    case OPT_MAX:
    case OPT_MIN: {
        size_t *dst = ch == OPT_MAX ? &c->max_size : &c->min_size;
        /* at most 2^32 lines of 64 bytes: the chains index lines with 32 bits */
        if (mfb_parse_bytes(arg, dst) < 0 || *dst < 4096 || *dst > ((size_t)1 << 38))
            return mfb_fail(err, "memfbench probe: %s: '%s' is not a size from 4K to 256G, e.g. 256M",
                            ch == OPT_MAX ? "--max-size" : "--min-size", arg);
        a->max_given |= ch == OPT_MAX;
        break;
    }
    case OPT_STEPS:
        if (parse_count("--steps", arg, 1, 16, &c->steps, err) < 0)
            return -1;
        a->steps_given = true;
        break;
    case OPT_REP:
        if (parse_count("--repeats", arg, 1, MFB_PROBE_MAX_REPEATS, &c->repeats, err) < 0)
            return -1;
        a->repeats_given = true;
        break;
    case OPT_HUGE:
        if ((h = mfb_parse_name(arg, huge_names, MFB_HUGE_COUNT)) < 0)
            return mfb_fail(err, "memfbench probe: --huge: '%s' is not auto, off, thp or hugetlb", arg);
        c->huge = (enum mfb_huge_request)h;
        break;
    case 'c':
        if (mfb_cpu_arg_parse("memfbench probe", arg, false, &c->cpu, err) < 0)
            return -1;
        a->cpu_given = true;
        break;
    case OPT_THREADS:
        if (parse_count("--threads", arg, 1, MFB_PROBE_MAX_THREADS, &u, err) < 0)
            return -1;
        c->threads = (int)u;
        a->threads_given = true;
        break;
    case OPT_CPUS:
        if (mfb_cpu_list_parse("memfbench probe", "--cpus", arg, MFB_PROBE_MAX_THREADS, &a->cpus, err) < 0)
            return -1;
        break;
    case OPT_QUICK:
        c->quick = true;
        break;
    case 's':
        if (mfb_parse_seed(arg, &c->seed) < 0)
            return -1; /* said from the row */
        a->seed_given = true;
        break;
    case OPT_CLOCK:
        if ((h = mfb_choice_parse(MFB_SET_CLOCK, arg)) < 0)
            return mfb_fail(err, "memfbench probe: --clock: '%s' is not auto, tsc, cntvct or monotonic", arg);
        c->clock = (enum mfb_clock_request)h;
        break;
    case 'q':
        c->quiet = true;
        break;
    }
    return 0;
}

static int parse(int argc, char **argv, struct mfb_probe_config *c, struct mfb_probe_given_args *a, struct mfb_err *err)
{
    *c = (struct mfb_probe_config){.min_size = MFB_PROBE_MIN_SIZE, .steps = MFB_PROBE_STEPS, .repeats = MFB_PROBE_REPEATS,
                                   .huge = MFB_HUGE_AUTO, .threads = 1, .cpu = -1, .argc = argc, .argv = argv};
    struct probe_parse ctx = {c, a};
    const struct mfb_flag_table t = {.command = "memfbench probe", .rows = probe_flags,
                                     .n = sizeof probe_flags / sizeof probe_flags[0], .apply = apply,
                                     .usage = usage};
    int rc = mfb_flags_each(&t, argc, argv, &ctx, NULL, err);
    if (rc != 0)
        return rc;
    if (mfb_options_output(t.command, "FILE", true, c->output, err) < 0)
        return -1;
    if (!c->latency && !c->bandwidth)
        c->latency = c->bandwidth = true;
    if (a->max_given && c->max_size < c->min_size)
        return mfb_fail(err, "memfbench probe: --max-size is below --min-size");
    return 0;
}

int mfb_cmd_probe(int argc, char **argv)
{
    struct mfb_probe_config cfg;
    struct mfb_probe_given_args a = {0};
    struct mfb_err err = {{0}};
    int rc = parse(argc, argv, &cfg, &a, &err);
    return rc != 0 ? mfb_options_end(rc, &err) : mfb_probe_execute(&cfg, &a);
}
