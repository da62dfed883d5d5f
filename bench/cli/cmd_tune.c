/* memfbench tune -o DIR (--family NAME | -v FILE.c:SYMBOL[=NAME] --param ...) [options] [-- RUN
 * OPTIONS]: the command line into a request; the race, the fresh study, the checks and the folder
 * are tune/race.c's. */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/flags.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "study/study.h"
#include "tune/family.h"
#include "tune/race.h"

enum {
    OPT_FAMILY = 256, OPT_PARAM, OPT_BUDGET, OPT_MARGIN, OPT_ALPHA, OPT_STEP_PROCESSES, OPT_STEP_TIME, OPT_GROUP,
    OPT_CHECK_ON, OPT_NO_CHECKS, OPT_CHECK_PROCESSES, OPT_CHECK_TIME, OPT_FINAL_PROCESSES, OPT_FINAL_TIME,
    OPT_DEADLINE
};

struct tune_args {
    struct mfb_tune_request r;
    struct mfb_deadlines deadlines;
    const char *function;
    int nparams;
    char source[4096]; /* a built-in family's -v: its file in the source folder */
};

/* The rows whose values the shared parser applies (REAL) fill these members; the others are the
 * apply switch's, which refuses a value without a line so that the row's good says what is. */
#define AT(m) offsetof(struct tune_args, m)
#define PROCESSES_GOOD "a number of processes from 2 to 256"
#define SECONDS_GOOD "a number of seconds from 0.05 to 3600"

static const struct mfb_flag tune_flags[] = {
    MFB_ROW_OUTPUT("DIR", "the new folder of the tune (written whole or not at all)"),
    MFB_ROW("family", required_argument, OPT_FAMILY, false, "NAME",
            "a built-in family: memcpy or memset (120 generated candidates\n"
            "each, families/); or give your own with -v and --param"),
    MFB_ROW("variant", required_argument, 'v', true, "FILE.c:SYM",
            "your family's source (FILE.c:SYMBOL[=NAME]), built once per\n"
            "setting of its --param macros"),
    MFB_ROW("param", required_argument, OPT_PARAM, false, "NAME=V,...",
            "a macro of your family and its values (repeat: every\n"
            "combination is a candidate; at most 4 macros of 16 values)"),
    MFB_ROW("function", required_argument, 'f', true, "F",
            "the function (default: the family's; memcpy for -v)"),
    MFB_ROW("distribution", required_argument, 'd', true, "D",
            "the race's and the fresh study's distribution, as run -d takes\n"
            "it (default: the function's fleet table)"),
    MFB_ROW("baseline", required_argument, 'b', true, "V",
            "what every candidate is compared with: a variant as run -v\n"
            "takes it, or a setting of the family, A=1,B=2 (default libc)"),
    {"budget", required_argument, OPT_BUDGET, false, "TIME",
     "the race's wall time: seconds, or 90s, 10m, 1h (default 10m); the\n"
     "fresh study and the checks come after it",
     .good = "a time (seconds, or 90s, 10m, 1h)"},
    {"margin", required_argument, OPT_MARGIN, false, "PCT",
     "a candidate is dropped when it is slower than the leader by\n"
     "more than this, with the race's confidence (default 0.5)",
     .kind = MFB_FLAG_REAL, .member = AT(r.margin_pct), .lo = 0, .hi = 50, .good = "a percentage from 0 to 50"},
    {"alpha", required_argument, OPT_ALPHA, false, "A",
     "the chance the race drops its best candidate, at most (default\n"
     "0.05; spent over the steps, docs/methodology.md)",
     .kind = MFB_FLAG_REAL, .member = AT(r.alpha), .lo = 1e-6, .hi = 0.5, .good = "a probability from 1e-6 to 0.5"},
    {"step-processes", required_argument, OPT_STEP_PROCESSES, false, "N", "processes of each race study (default 4)",
     .good = PROCESSES_GOOD},
    {"step-time", required_argument, OPT_STEP_TIME, false, "S",
     "seconds of rounds of each race study, over its processes\n"
     "(default 2)",
     .kind = MFB_FLAG_REAL, .member = AT(r.step_time_s), .lo = 0.05, .hi = 3600, .good = SECONDS_GOOD},
    {"group", required_argument, OPT_GROUP, false, "N", "candidates in one race study at most (default 24; 1 to 30)",
     .good = "a number of candidates from 1 to 30"},
    {"final-processes", required_argument, OPT_FINAL_PROCESSES, false, "N",
     "processes of the fresh study (default: run's, 32)", .good = PROCESSES_GOOD},
    {"final-time", required_argument, OPT_FINAL_TIME, false, "S", "seconds of rounds of the fresh study (default: run's, 5)",
     .kind = MFB_FLAG_REAL, .member = AT(r.final_time_s), .lo = 0.05, .hi = 3600, .good = SECONDS_GOOD},
    MFB_ROW("check-on", required_argument, OPT_CHECK_ON, false, "D",
            "also check the leader on this distribution (a table, a record\n"
            "folder); the function's shipped tables are always checked"),
    MFB_ROW("no-checks", no_argument, OPT_NO_CHECKS, false, NULL,
            "no cross-distribution checks: the race and the fresh study only"),
    {"check-processes", required_argument, OPT_CHECK_PROCESSES, false, "N", "processes of each check study (default 8)",
     .good = PROCESSES_GOOD},
    {"check-time", required_argument, OPT_CHECK_TIME, false, "S",
     "seconds of rounds of each check study, over its processes\n"
     "(default 2)",
     .kind = MFB_FLAG_REAL, .member = AT(r.check_time_s), .lo = 0.05, .hi = 3600, .good = SECONDS_GOOD},
    MFB_ROW_QUIET("no progress lines; the tune's summary is still printed"),
    MFB_ROW_DEADLINE(OPT_DEADLINE),
    MFB_ROW_HELP,
};

static void usage(FILE *out)
{
    fputs("usage: memfbench tune -o DIR (--family NAME | -v FILE.c:SYMBOL[=NAME] --param NAME=V,...)\n"
          "                      [options] [-- RUN OPTIONS]\n\n"
          "Which member of a family of implementations is fastest on a distribution here: every\n"
          "candidate (a setting of the family's macros) raced against the baseline in paired studies;\n"
          "after each step the analysis drops those slower than the leader by more than the margin\n"
          "(simultaneous intervals, the error spent over the steps), until one is left, the rest are\n"
          "within the margin of the leader, or the budget is spent. Then a fresh study (the run\n"
          "defaults) of the leader, the runner-up and the baseline gives the leader's interval, and a\n"
          "shorter study on each other shipped distribution of the function says where its gain holds.\n"
          "DIR gets every study's file, race.json (each candidate's history), tune.json, and winner.c:\n"
          "the leader's source with its settings defined, to build as it is. RUN OPTIONS go to every\n"
          "study (a CPU to pin, the compiler's flags, the caches: memfbench run's options), e.g.\n"
          "  memfbench tune --family memcpy -o tuned -- -c 1\n"
          "Then: memfbench analyze tune DIR.\n\n", out);
    mfb_flags_usage(out, tune_flags, sizeof tune_flags / sizeof tune_flags[0]);
    int n;
    const struct mfb_tune_family *fam = mfb_tune_families(&n);
    fputs("\nfamilies:\n", out);
    for (int i = 0; i < n; i++)
        fprintf(out, "  %-8s %s\n", fam[i].name, fam[i].about);
}


/* A positive number, optionally with s, m or h after it: seconds into *out. */
static int parse_time(const char *arg, double *out)
{
    char *end;
    double v = strtod(arg, &end), unit = 1;
    if (end == arg)
        return -1;
    if (*end == 's' || *end == 'm' || *end == 'h') {
        unit = *end == 's' ? 1 : *end == 'm' ? 60 : 3600;
        end++;
    }
    if (*end || !isfinite(v) || v <= 0 || v * unit > 1e7)
        return -1;
    *out = v * unit;
    return 0;
}

/* A whole number in [lo, hi] into *out: 0, or -1. */
static int parse_count(const char *arg, long lo, long hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(arg, &end, 10);
    if (end == arg || *end || errno || v < lo || v > hi)
        return -1;
    *out = (int)v;
    return 0;
}

#define CMD "memfbench tune"

static int apply(int ch, char *arg, void *ctx, struct mfb_err *err)
{
    struct tune_args *a = ctx;
    struct mfb_tune_request *r = &a->r;
    switch (ch) {
    case 'o':
        r->out = arg;
        break;
    case OPT_FAMILY:
        if (!mfb_tune_family_find(arg))
            return mfb_fail(err, CMD ": --family: '%s' is not a built-in family (memfbench tune --help lists them)", arg);
        r->family = arg;
        break;
    case 'v':
        if (r->source)
            return mfb_fail(err, CMD ": -v: one family's source (its settings are the candidates)");
        r->source = arg;
        break;
    case OPT_PARAM:
        if (mfb_params_add(&r->params, arg, err) < 0)
            return -1;
        r->param_args[a->nparams++] = arg;
        break;
    case 'f':
        a->function = arg;
        break;
    case 'd':
        r->distribution = arg;
        break;
    case 'b':
        r->baseline = arg;
        break;
    case OPT_BUDGET:
        return parse_time(arg, &r->budget_s);
    case OPT_STEP_PROCESSES:
        return parse_count(arg, 2, 256, &r->step_processes);
    case OPT_CHECK_PROCESSES:
        return parse_count(arg, 2, 256, &r->check_processes);
    case OPT_FINAL_PROCESSES:
        return parse_count(arg, 2, 256, &r->final_processes);
    case OPT_GROUP:
        return parse_count(arg, 1, 30, &r->group);
    case OPT_CHECK_ON:
        if (r->nchecks == MFB_TUNE_CHECKS_MAX)
            return mfb_fail(err, CMD ": --check-on: at most %d", MFB_TUNE_CHECKS_MAX);
        r->checks[r->nchecks++] = arg;
        break;
    case OPT_NO_CHECKS:
        r->no_checks = true;
        break;
    case 'q':
        r->quiet = true;
        break;
    case OPT_DEADLINE:
        return mfb_deadlines_parse(arg, &a->deadlines, err);
    }
    return 0;
}

static const struct mfb_flag_table tune_table = {.command = CMD, .rows = tune_flags,
                                                .n = sizeof tune_flags / sizeof tune_flags[0], .apply = apply,
                                                .operands = MFB_OPERANDS_AFTER,
                                                .unknown_hint = "; run options go after --", .usage = usage};

/* The run options the tune sets for each study itself (in any spelling run takes), and --pgo, which
 * a family's settings cannot take. */
static const char *const tunes_own[] = {"output", "function", "distribution", "variant", "param", "setting",
                                        "processes", "time", "pgo"};

/* The family's source and macros: the built-in's, or the user's -v and --param. */
static int family(struct tune_args *a, struct mfb_err *err)
{
    struct mfb_tune_request *r = &a->r;
    if (r->family && (r->source || r->params.n))
        return mfb_fail(err, CMD ": --family %s and %s: give a built-in family or your own source, not both",
                        r->family, r->source ? "-v" : "--param");
    if (!r->family && !r->source)
        return mfb_fail(err, CMD ": no family: give --family NAME, or -v FILE.c:SYMBOL[=NAME] with --param NAME=V,...");
    if (r->source && !r->params.n)
        return mfb_fail(err, CMD ": -v %s: no --param: a family is the settings of its macros", r->source);
    if (r->family) {
        const struct mfb_tune_family *f = mfb_tune_family_find(r->family);
        mfb_tune_family_spec(f, a->source, sizeof a->source);
        r->source = a->source;
        for (int i = 0; i < MFB_PARAMS_MAX && f->params[i]; i++) {
            if (mfb_params_add(&r->params, f->params[i], err) < 0)
                return -1;
            r->param_args[a->nparams++] = f->params[i];
        }
        if (!a->function)
            r->func = f->func;
        else if (r->func != f->func)
            return mfb_fail(err, CMD ": -f %s: the %s family is of %s", a->function, r->family, mfb_func_name(f->func));
    }
    return 0;
}

int mfb_cmd_tune(int argc, char **argv)
{
    struct tune_args a = {.r = {.baseline = "libc", .budget_s = MFB_TUNE_BUDGET_S, .margin_pct = MFB_TUNE_MARGIN_PCT,
                                .alpha = MFB_TUNE_ALPHA, .step_processes = MFB_TUNE_STEP_PROCESSES,
                                .step_time_s = MFB_TUNE_STEP_TIME_S, .group = MFB_TUNE_GROUP,
                                .check_processes = MFB_TUNE_CHECK_PROCESSES, .check_time_s = MFB_TUNE_CHECK_TIME_S,
                                .func = MFB_MEMCPY}};
    struct mfb_err err = {{0}};
    int run_args = argc;
    int rc = mfb_flags_each(&tune_table, argc, argv, &a, &run_args, &err);
    if (rc == 0)
        rc = mfb_options_output(tune_table.command, "DIR", false, a.r.out, &err);
    if (rc == 0 && a.function && mfb_func_parse(a.function, &a.r.func) < 0)
        rc = mfb_fail(&err, CMD ": -f: '%s' is not a function (memfbench list)", a.function);
    if (rc == 0)
        rc = family(&a, &err);
    for (int i = run_args; i < argc && rc == 0; i++) {
        const char *own = mfb_options_run_sets(argv[i], tunes_own, sizeof tunes_own / sizeof tunes_own[0]);
        if (own)
            rc = mfb_fail(&err, CMD ": %s after --: the tune sets each study's --%s; give it as a tune option%s", argv[i],
                          own, !strcmp(own, "processes") || !strcmp(own, "time")
                                   ? " (--step-processes, --step-time, --check-processes, --check-time)" : "");
    }
    /* each study's share of its time per process, as run refuses it, before the race starts */
    struct { const char *what; double t; int p; } shapes[] = {
        {"--step-time over --step-processes", a.r.step_time_s, a.r.step_processes},
        {"--check-time over --check-processes", a.r.check_time_s, a.r.check_processes},
        {"--final-time over --final-processes", a.r.final_time_s, a.r.final_processes}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0] && rc == 0; i++)
        if (shapes[i].t > 0 && shapes[i].p > 0 && shapes[i].t / shapes[i].p < MFB_MIN_PROCESS_TIME_S)
            rc = mfb_fail(&err, CMD ": %s leaves %.3g s of rounds per process; at least %g", shapes[i].what,
                          shapes[i].t / shapes[i].p, MFB_MIN_PROCESS_TIME_S);
    if (rc != 0)
        return mfb_options_end(rc, &err);
    a.r.run_args = argv + run_args;
    a.r.nrun_args = argc - run_args;
    a.r.deadlines = &a.deadlines;
    return mfb_tune_execute(&a.r);
}
