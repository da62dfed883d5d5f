/* memfbench ab [-v VARIANT]... [--runs N] -o FILE -- PROGRAM [ARGS...]: a program run end to end
 * under the C library's functions and under each variant (ab/ab.h), the file written,
 * then the verdict printed by the analysis (memfbench analyze ab FILE). */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/flags.h"
#include "base/parse.h"
#include "base/rng.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "ab/ab.h"
#include "ab/abstudy.h"
#include "orchestrate/cpus.h"

enum { OPT_RUNS = 256, OPT_WARMUP, OPT_OUTPUT_OF, OPT_PREDICT, OPT_REPLAY_TIME, OPT_BY_CLASS, OPT_WATCHDOG,
       OPT_DEADLINE };

/* The runs of a default comparison: ten blocks give a t interval over ten paired differences. */
#define AB_DEFAULT_RUNS 10

static const struct mfb_flag ab_flags[] = {
    MFB_ROW("variant", required_argument, 'v', true, "V",
     "a built-in (memfbench list) or PATH:SYMBOL[=NAME]; repeat for more"),
    MFB_ROW("function", required_argument, 'f', true, "F", "the function the variants implement (default memcpy)"),
    MFB_ROW("runs", required_argument, OPT_RUNS, false, "N",
     "blocks of runs, each running the program once per arm (default 10)"),
    MFB_ROW("warmup", required_argument, OPT_WARMUP, false, "N",
     "blocks run first and not counted: page cache, first-touch (default 1)"),
    MFB_ROW_CPU("pin the program (and its children) to CPU N; none: not\n"
                                                "pinned (default: the last allowed CPU)"),
    MFB_ROW_SEED("the seed of the arms' order (default: fresh)"),
    MFB_ROW("program-output", required_argument, OPT_OUTPUT_OF, false, "FILE",
     "append each run's stdout and stderr here under a line naming the run\n"
     "(1 MiB of each run's: its head and tail; the file stops at 64 MiB;\n"
     "default /dev/null)"),
    MFB_ROW("watchdog", required_argument, OPT_WATCHDOG, false, "S",
     "stop a run (the program and all it started) that has not ended after\n"
     "S seconds, and the study with it (default: 600 s for the first run,\n"
     "then 10 times the longest run, at least 60 s)"),
    MFB_ROW_DEADLINE(OPT_DEADLINE),
    MFB_ROW("predict-from", required_argument, OPT_PREDICT, false, "DIR",
     "a recording of this program (memfbench record): also replay its table\n"
     "(a default study, FILE.replay.json; its trace in order too when it\n"
     "has one, FILE.trace-replay.json) and print the difference each\n"
     "predicts beside the one measured"),
    MFB_ROW("replay-time", required_argument, OPT_REPLAY_TIME, false, "S",
     "with --predict-from: each replay's seconds of rounds (default: a\n"
     "default study's)"),
    MFB_ROW("by-class", no_argument, OPT_BY_CLASS, false, NULL,
     "with --predict-from: time each size class in the replay too, and\n"
     "predict the difference class by class"),
    MFB_ROW_OUTPUT("FILE", "the result file, written atomically"),
    MFB_ROW_QUIET("no progress and no verdict"),
    MFB_ROW_HELP,
};

static void usage(FILE *out)
{
    fputs("usage: memfbench ab -v VARIANT [-v VARIANT]... [--runs N] -o FILE -- PROGRAM [ARGS...]\n\n"
          "Runs PROGRAM end to end, alternating between the C library's functions and each variant\n"
          "(routed by a preloaded shim), and compares each variant's wall and CPU time with libc's\n"
          "(docs/program-ab.md). The program must exit 0 on every run.\n\n", out);
    mfb_flags_usage(out, ab_flags, sizeof ab_flags / sizeof ab_flags[0]);
}

struct ab_args {
    struct mfb_ab *ab;
    const char *variants[MFB_AB_MAX_VARIANTS + 1];
    int nvariants;
    const char *output;
    const char *predict_from;
    bool quiet, seed_given;
};

static bool cpu_allowed(uint64_t cpu)
{
    cpu_set_t set;
    return cpu < CPU_SETSIZE && sched_getaffinity(0, sizeof set, &set) == 0 && CPU_ISSET((int)cpu, &set);
}

/* A number of seconds from lo to hi into *out: 0, or -1 (NaN, a word and trailing text refused). */
static int seconds_arg(const char *arg, double lo, double hi, double *out)
{
    char *end;
    double t = strtod(arg, &end);
    if (end == arg || *end || !(t >= lo && t <= hi))
        return -1;
    *out = t;
    return 0;
}

static int apply(int ch, char *arg, void *ctx, struct mfb_err *err)
{
    struct ab_args *a = ctx;
    struct mfb_ab *ab = a->ab;
    uint64_t v;
    switch (ch) {
    case 'v':
        if (a->nvariants == MFB_AB_MAX_VARIANTS)
            return mfb_fail(err, "memfbench ab: -v: at most %d variants (%s is the ninth)", MFB_AB_MAX_VARIANTS, arg);
        a->variants[a->nvariants++] = arg;
        break;
    case 'f':
        if (mfb_func_parse(arg, &ab->func) < 0)
            return mfb_fail(err, "memfbench ab: -f: '%s' is not memcpy, memmove, memset, memcmp or bcmp", arg);
        break;
    case OPT_RUNS:
        if (mfb_parse_u64(arg, &v) < 0 || v < 2 || v > MFB_AB_MAX_RUNS)
            return mfb_fail(err, "memfbench ab: --runs: '%s' is not a number of blocks from 2 to %d", arg,
                            MFB_AB_MAX_RUNS);
        ab->runs = (int)v;
        break;
    case OPT_WARMUP:
        if (mfb_parse_u64(arg, &v) < 0 || v > 100)
            return mfb_fail(err, "memfbench ab: --warmup: '%s' is not a number of blocks from 0 to 100", arg);
        ab->warmup = (int)v;
        break;
    case 'c':
        if (mfb_cpu_arg_parse("memfbench ab", arg, true, &ab->cpu, err) < 0)
            return -1;
        if (ab->cpu >= 0 && !cpu_allowed((uint64_t)ab->cpu))
            return mfb_fail(err, "memfbench ab: --cpu: '%s' is not a CPU this process may run on (or none)", arg);
        break;
    case 's':
        if (mfb_parse_seed(arg, &ab->seed) < 0)
            return -1; /* said from the row */
        a->seed_given = true;
        break;
    case OPT_OUTPUT_OF:
        ab->program_output = arg;
        break;
    case 'o':
        a->output = arg;
        break;
    case OPT_PREDICT:
        a->predict_from = arg;
        break;
    case OPT_REPLAY_TIME: /* at least 0.1 s for each of a default study's 10 processes */
        if (seconds_arg(arg, 1, 3600, &ab->replay_time_s) < 0)
            return mfb_fail(err, "memfbench ab: --replay-time: '%s' is not a number of seconds from 1 to 3600", arg);
        break;
    case OPT_WATCHDOG:
        if (seconds_arg(arg, 0.1, 86400, &ab->watchdog_s) < 0)
            return mfb_fail(err, "memfbench ab: --watchdog: '%s' is not a number of seconds from 0.1 to 86400", arg);
        break;
    case OPT_DEADLINE:
        return mfb_deadlines_parse(arg, &ab->deadlines, err);
    case OPT_BY_CLASS:
        ab->by_class = true;
        break;
    case 'q':
        a->quiet = true;
        break;
    }
    return 0;
}

/* Options end at the program's name, so its own options are its own. */
static const struct mfb_flag_table ab_table = {.command = "memfbench ab", .rows = ab_flags,
                                              .n = sizeof ab_flags / sizeof ab_flags[0], .apply = apply,
                                              .operands = MFB_OPERANDS_AFTER, .usage = usage};

/* The options before the program: 0, 1 at --help, or -1 with err; *program is its argv index. */
static int parse(int argc, char **argv, struct ab_args *a, int *program, struct mfb_err *err)
{
    int rc = mfb_flags_each(&ab_table, argc, argv, a, program, err);
    if (rc != 0)
        return rc;
    if (*program >= argc)
        return mfb_fail(err, "memfbench ab: no program: give it after the options, e.g. memfbench ab -v rep_movsb "
                             "-o ab.json -- gzip -k -c FILE");
    if (mfb_options_output(ab_table.command, "FILE", false, a->output, err) < 0)
        return -1;
    if (a->ab->by_class && !a->predict_from)
        return mfb_fail(err, "memfbench ab: --by-class needs --predict-from DIR (it is how the replay is timed)");
    /* the program's runs have their own bound, which follows how long they take */
    if (a->ab->deadlines.s[MFB_PROG_PROGRAM] != 0)
        return mfb_fail(err, "memfbench ab: --deadline program: ab bounds each run of the program with --watchdog S");
    if (a->predict_from && !strcmp(a->output, "-"))
        return mfb_fail(err, "memfbench ab: --predict-from needs -o FILE (its replay is written beside it)");
    return 0;
}

int mfb_cmd_ab(int argc, char **argv)
{
    struct mfb_ab ab = {.func = MFB_MEMCPY, .runs = AB_DEFAULT_RUNS, .warmup = 1, .cpu = mfb_cpus_last_allowed(),
                        .program_output = "/dev/null"};
    struct ab_args a = {.ab = &ab};
    struct mfb_err err = {{0}};
    int program = argc;
    int rc = parse(argc, argv, &a, &program, &err);
    if (rc != 0)
        return mfb_options_end(rc, &err);
    if (!a.seed_given)
        ab.seed = mfb_seed_fresh();
    struct mfb_ab_request rq = {.variants = a.variants, .nvariants = a.nvariants, .output = a.output,
                                .predict_from = a.predict_from, .quiet = a.quiet, .program = argv + program,
                                .nprogram = argc - program, .command = argv - 1, .ncommand = program + 1};
    return mfb_ab_study(&ab, &rq);
}
