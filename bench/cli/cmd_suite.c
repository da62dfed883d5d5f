/* memfbench suite [--set NAME] -o DIR [-- RUN OPTIONS]: the command line into a request; the
 * studies and the suite line are orchestrate/suite_run.c's. */
#include <stdio.h>
#include <string.h>

#include "base/flags.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "orchestrate/suite_run.h"

enum { OPT_SET = 256, OPT_DEADLINE };

static const struct mfb_flag suite_flags[] = {
    MFB_ROW("set", required_argument, OPT_SET, false, "NAME",
            "fleet (default): the five functions on their fleet tables;\n"
            "workloads: each function on fleetbench's workload tables 0-8"),
    MFB_ROW_OUTPUT("DIR", "the new folder of the studies' files (written whole or not at all)"),
    MFB_ROW_QUIET("each study quiet; the suite line is still printed"),
    MFB_ROW_DEADLINE(OPT_DEADLINE),
    MFB_ROW_HELP,
};

static void usage(FILE *out)
{
    fputs("usage: memfbench suite [--set NAME] -o DIR [-- RUN OPTIONS]\n\n"
          "One number across functions and distributions: a study (memfbench run, its defaults) of each\n"
          "function and table of the set, then each variant's geometric mean of its ratios to the\n"
          "baseline with an interval that carries each study's own (memfbench analyze suite DIR/*).\n"
          "RUN OPTIONS go to every study; {function} in them is each study's function, e.g.\n"
          "  memfbench suite -o s -- -v libc -v ./mylib.so:my_{function}=mine -c 1\n"
          "The suite's deadlines bound each study and go to it as its own (before the run options).\n\n", out);
    mfb_flags_usage(out, suite_flags, sizeof suite_flags / sizeof suite_flags[0]);
}

/* What the options fill: the request, and the deadlines it points to. */
struct suite_args {
    struct mfb_suite_request r;
    struct mfb_deadlines deadlines;
};

static int apply(int ch, char *arg, void *ctx, struct mfb_err *err)
{
    struct suite_args *a = ctx;
    int set;
    switch (ch) {
    case OPT_SET:
        if ((set = mfb_suite_set_parse(arg)) < 0)
            return mfb_fail(err, "memfbench suite: --set: '%s' is not fleet or workloads", arg);
        a->r.set = (enum mfb_suite_set)set;
        break;
    case 'o':
        a->r.out = arg;
        break;
    case 'q':
        a->r.quiet = true;
        break;
    case OPT_DEADLINE:
        return mfb_deadlines_parse(arg, &a->deadlines, err);
    }
    return 0;
}

/* Options end at the first run option (after --), which every study gets. */
static const struct mfb_flag_table suite_table = {.command = "memfbench suite", .rows = suite_flags,
                                                 .n = sizeof suite_flags / sizeof suite_flags[0], .apply = apply,
                                                 .operands = MFB_OPERANDS_AFTER,
                                                 .unknown_hint = "; run options go after --", .usage = usage};

/* The run options a suite sets for each study itself (-o, -f, -d in any spelling run takes). */
static const char *const suites_own[] = {"output", "function", "distribution"};

int mfb_cmd_suite(int argc, char **argv)
{
    struct suite_args a = {.r = {.set = MFB_SUITE_FLEET}};
    struct mfb_err err = {{0}};
    int run_args = argc;
    int rc = mfb_flags_each(&suite_table, argc, argv, &a, &run_args, &err);
    if (rc == 0)
        rc = mfb_options_output(suite_table.command, "DIR", false, a.r.out, &err);
    /* what follows is for every study; -o and -f, -d are the suite's */
    for (int i = run_args; i < argc && rc == 0; i++)
        if (mfb_options_run_sets(argv[i], suites_own, sizeof suites_own / sizeof suites_own[0]))
            rc = mfb_fail(&err, "memfbench suite: %s: the suite sets each study's function, table and file; give "
                                "the others after --", argv[i]);
    if (rc != 0)
        return mfb_options_end(rc, &err);
    a.r.run_args = argv + run_args;
    a.r.nrun_args = argc - run_args;
    a.r.deadlines = &a.deadlines;
    return mfb_suite_execute(&a.r);
}
