/* memfbench probe: the memory system a memcpy runs on. Latency per buffer size (random and
 * strided chains, on 4 KiB and on huge pages), the cache levels the curve shows, and read,
 * write and copy bandwidth per size, written atomically to one JSON file as `run` writes its. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/meminfo.h"
#include "base/parse.h"
#include "base/rng.h"
#include "cli/commands.h"
#include "base/flags.h"
#include "orchestrate/cpus.h"
#include "probe/file.h"
#include "probe/plan.h"
#include "probe/summary.h"
#include "probe/sweeps.h"
#include "report/hostinfo.h"
#include "report/output.h"

/* Set by SIGINT/SIGTERM/SIGHUP: a handler reaches static storage only. */
static volatile sig_atomic_t probe_stop;

static void on_signal(int sig)
{
    (void)sig;
    probe_stop = 1;
}

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

struct probe_args {
    bool max_given, cpu_given, threads_given, seed_given, steps_given, repeats_given;
    struct mfb_cpu_list cpus; /* --cpus, parsed (n 0: not given) */
};

static int parse_count(const char *opt, const char *s, unsigned lo, unsigned hi, unsigned *out, struct mfb_err *err)
{
    uint64_t v;
    if (mfb_parse_u64(s, &v) < 0 || v < lo || v > hi)
        return mfb_fail(err, "memfbench probe: %s: '%s' is not a whole number from %u to %u", opt, s, lo, hi);
    *out = (unsigned)v;
    return 0;
}

/* One option with its value (arg; NULL for a flag) into the configuration: 0, or -1 with err. */
static int apply(int ch, const char *arg, struct mfb_probe_config *c, struct probe_args *a, struct mfb_err *err)
{
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
        if (parse_count("--cpu", arg, 0, CPU_SETSIZE - 1, &u, err) < 0)
            return -1;
        c->cpu = (int)u;
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
            return mfb_fail(err, "memfbench probe: --seed: '%s' is not a 64-bit number", arg);
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

static int parse(int argc, char **argv, struct mfb_probe_config *c, struct probe_args *a, struct mfb_err *err)
{
    enum { NFLAGS = sizeof probe_flags / sizeof probe_flags[0] };
    struct option opts[NFLAGS + 1];
    char shorts[MFB_FLAGS_SHORTS_CAP(NFLAGS)];
    mfb_flags_getopt(probe_flags, NFLAGS, false, opts, shorts);
    *c = (struct mfb_probe_config){.min_size = MFB_PROBE_MIN_SIZE, .steps = MFB_PROBE_STEPS, .repeats = MFB_PROBE_REPEATS,
                                   .huge = MFB_HUGE_AUTO, .threads = 1, .cpu = -1, .argc = argc, .argv = argv};
    optind = 0;
    opterr = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, shorts, opts, NULL)) != -1) {
        if (ch == 'h') {
            usage(stdout);
            return 1;
        }
        if (ch == ':')
            return mfb_fail(err, "memfbench probe: %s needs a value", argv[optind - 1]);
        if (ch == '?')
            return mfb_fail(err, "memfbench probe: unknown option '%s' (see memfbench probe --help)", argv[optind - 1]);
        if (apply(ch, optarg, c, a, err) < 0)
            return -1;
    }
    if (optind < argc)
        return mfb_fail(err, "memfbench probe: unexpected argument '%s'", argv[optind]);
    if (!c->output)
        return mfb_fail(err, "memfbench probe: -o FILE is required ('-' for stdout)");
    if (!c->latency && !c->bandwidth)
        c->latency = c->bandwidth = true;
    if (a->max_given && c->max_size < c->min_size)
        return mfb_fail(err, "memfbench probe: --max-size is below --min-size");
    return 0;
}

/* The CPUs: latency's, and the bandwidth threads' (the first of which is latency's CPU), resolved
 * and checked as memfbench run's timing threads are (orchestrate/cpus.c). */
static int resolve_cpus(struct mfb_probe_config *c, const struct probe_args *a, struct mfb_err *err)
{
    struct mfb_cpu_request q = {.cmd = "memfbench probe", .list = &a->cpus, .threads = a->threads_given ? c->threads : 0,
                                .cpu = c->cpu, .cpu_given = a->cpu_given, .max = MFB_PROBE_MAX_THREADS};
    int n = 0;
    if (mfb_cpus_threads(&q, mfb_cpus_last_allowed(), c->cpus, &n, err) < 0)
        return -1;
    c->threads = n;
    c->cpu = c->cpus[0];
    return 0;
}

static int pin(int cpu, struct mfb_err *err)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0)
        return mfb_fail(err, "cannot pin to CPU %d: %s", cpu, strerror(errno));
    return 0;
}

int mfb_cmd_probe(int argc, char **argv)
{
    double t_start = mfb_probe_now_s();
    struct mfb_probe_config cfg;
    struct probe_args a = {0};
    struct mfb_err err = {{0}};
    int rc = parse(argc, argv, &cfg, &a, &err);
    if (rc == 1)
        return MFB_EXIT_OK;
    if (rc < 0) {
        fprintf(stderr, "%s\n", err.msg);
        return MFB_EXIT_USAGE;
    }
    if (resolve_cpus(&cfg, &a, &err) < 0) {
        fprintf(stderr, "%s\n", err.msg);
        return MFB_EXIT_USAGE;
    }
    if (!a.seed_given)
        cfg.seed = mfb_seed_fresh();
    struct mfb_probe_result res = {.levels_curve = -1, .bw_levels_curve = -1};
    res.warn.quiet = cfg.quiet;
    struct mfb_output out;
    struct mfb_timer timer;
    cJSON *host = NULL;
    int status = MFB_EXIT_FAIL;
    if (mfb_output_open(&out, cfg.output, &err) < 0) {
        fprintf(stderr, "memfbench probe: %s\n", err.msg);
        return MFB_EXIT_FAIL;
    }
    struct sigaction sa = {.sa_handler = on_signal};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    if (pin(cfg.cpu, &err) < 0 || mfb_timer_init(&timer, cfg.clock, &err) < 0)
        goto fail;
    mfb_cache_detect(&res.caches, cfg.cpu);
    mfb_probe_plan_sizes(&cfg, (struct mfb_probe_given){a.max_given, a.steps_given, a.repeats_given}, &res.caches, &res.warn);
    if (mfb_probe_check_memory(&cfg, &err) < 0)
        goto fail;
    res.vector = mfb_vector_best();
    res.huge_page_size = mfb_pages_huge_size();
    res.huge = mfb_probe_huge_mode(cfg.huge, cfg.max_size, res.huge_why, sizeof res.huge_why);
    if (res.huge_why[0] && cfg.huge != MFB_HUGE_OFF)
        mfb_warn(&res.warn, MFB_W_HUGE_PAGES, "%s: latency is measured on 4 KiB pages only", res.huge_why);
    /* Bandwidth on 4 KiB pages, as memfbench run's buffers and most heaps, unless huge pages
     * were asked for by name. */
    res.bw_pages = cfg.huge == MFB_HUGE_THP || cfg.huge == MFB_HUGE_HUGETLB ? res.huge : MFB_PAGES_4K;
    if (res.bw_pages == MFB_PAGES_HUGETLB && cfg.bandwidth) {
        /* each thread maps its share in whole huge pages */
        size_t hp = res.huge_page_size, share = cfg.max_size / (size_t)cfg.threads;
        size_t need = (size_t)cfg.threads * ((share + hp - 1) / hp) * hp;
        char why[256];
        if (*mfb_pages_unavailable(MFB_PAGES_HUGETLB, need, why, sizeof why)) {
            mfb_warn(&res.warn, MFB_W_HUGE_PAGES, "bandwidth: %s: measured on 4 KiB pages", why);
            res.bw_pages = MFB_PAGES_4K;
        }
    }
    /* the stages: the core clock, each latency curve, each bandwidth kernel, the levels */
    bool tty = isatty(STDERR_FILENO);
    struct mfb_probe_progress pg = {.point_lines = !cfg.quiet && tty, .stage_lines = !cfg.quiet && !tty, .t0 = t_start};
    pg.nstages = 2 + (cfg.latency ? 3 + (res.huge != MFB_PAGES_4K) : 0);
    for (int k = 0; cfg.bandwidth && k < MFB_STREAM_KERNEL_COUNT; k++)
        pg.nstages += mfb_stream_kernel((enum mfb_stream_kernel)k, res.vector) != NULL;
    mfb_probe_stage(&pg, "core clock and host");
    mfb_core_clock_measure(&res.clock, &timer);
    /* the host block and its checks (load, governor) before measuring: the probe's own load
     * must not read as another program's */
    host = mfb_host_json(&res.caches, cfg.cpu, &res.warn);
    struct mfb_probe_run run = {.cfg = &cfg, .timer = &timer, .stop = &probe_stop, .line = res.caches.line};
    if (cfg.latency && mfb_probe_latency_curves(&run, &res, &pg, &err) < 0)
        goto fail;
    if (cfg.bandwidth && !probe_stop && (pin(cfg.cpus[0], &err) < 0 || mfb_probe_bandwidth_curves(&run, &res, &pg, &err) < 0))
        goto fail;
    res.interrupted = probe_stop != 0;
    mfb_probe_stage(&pg, "levels, cross-check, file");
    mfb_probe_find_levels(&res);
    cJSON *doc = mfb_probe_document(&cfg, &res, &timer, host);
    host = NULL; /* the document owns it */
    rc = mfb_output_commit(&out, doc, NULL, &err);
    cJSON_Delete(doc);
    if (rc < 0)
        goto fail;
    if (!cfg.quiet) {
        mfb_probe_summary_print(stderr, &cfg, &res);
        fprintf(stderr, "written: %s (%.0f s)\n", cfg.output, mfb_probe_now_s() - t_start);
    }
    if (res.interrupted)
        fprintf(stderr, "memfbench probe: interrupted; %s holds the points measured (status.complete = false)\n",
                cfg.output);
    status = res.interrupted ? MFB_EXIT_INTERRUPTED : MFB_EXIT_OK;
    goto done;
fail:
    fprintf(stderr, "memfbench probe: %s\n", err.msg);
done:
    cJSON_Delete(host);
    mfb_output_abort(&out);
    mfb_probe_result_free(&res);
    return status;
}
