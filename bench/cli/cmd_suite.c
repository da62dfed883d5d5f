/* memfbench suite [--set NAME] -o DIR [-- RUN OPTIONS]: the command line into a request; the
 * studies and the suite line are orchestrate/suite_run.c's. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "base/flags.h"
#include "files/inputs.h"
#include "cli/commands.h"
#include "orchestrate/suite_run.h"

enum { OPT_SET = 256 };

static const struct mfb_flag suite_flags[] = {
    MFB_ROW("set", required_argument, OPT_SET, false, "NAME",
            "fleet (default): the five functions on their fleet tables;\n"
            "workloads: each function on fleetbench's workload tables 0-8"),
    MFB_ROW_OUTPUT("DIR", "the new folder of the studies' files (written whole or not at all)"),
    MFB_ROW_QUIET("each study quiet; the suite line is still printed"),
    MFB_ROW_HELP,
};

static void usage(FILE *out)
{
    fputs("usage: memfbench suite [--set NAME] -o DIR [-- RUN OPTIONS]\n\n"
          "One number across functions and distributions: a study (memfbench run, its defaults) of each\n"
          "function and table of the set, then each variant's geometric mean of its ratios to the\n"
          "baseline with an interval that carries each study's own (memfbench analyze suite DIR/*).\n"
          "RUN OPTIONS go to every study; {function} in them is each study's function, e.g.\n"
          "  memfbench suite -o s -- -v libc -v ./mylib.so:my_{function}=mine --cpu 1\n\n", out);
    mfb_flags_usage(out, suite_flags, sizeof suite_flags / sizeof suite_flags[0]);
}

int mfb_cmd_suite(int argc, char **argv)
{
    struct mfb_suite_request r = {.set = MFB_SUITE_FLEET};
    enum { NFLAGS = sizeof suite_flags / sizeof suite_flags[0] };
    struct option opts[NFLAGS + 1];
    char shorts[MFB_FLAGS_SHORTS_CAP(NFLAGS)];
    mfb_flags_getopt(suite_flags, NFLAGS, true, opts, shorts);
    optind = 0;
    opterr = 0;
    int ch, set;
    while ((ch = getopt_long(argc, argv, shorts, opts, NULL)) != -1) {
        switch (ch) {
        case OPT_SET:
            if ((set = mfb_suite_set_parse(optarg)) < 0) {
                fprintf(stderr, "memfbench suite: --set: '%s' is not fleet or workloads\n", optarg);
                return MFB_EXIT_USAGE;
            }
            r.set = (enum mfb_suite_set)set;
            break;
        case 'o':
            r.out = optarg;
            break;
        case 'q':
            r.quiet = true;
            break;
        case 'h':
            usage(stdout);
            return MFB_EXIT_OK;
        case ':':
            fprintf(stderr, "memfbench suite: %s needs a value\n", argv[optind - 1]);
            return MFB_EXIT_USAGE;
        default:
            fprintf(stderr, "memfbench suite: unknown option '%s' (see memfbench suite --help; run options go "
                            "after --)\n", argv[optind - 1]);
            return MFB_EXIT_USAGE;
        }
    }
    if (!r.out) {
        fprintf(stderr, "memfbench suite: -o DIR is required\n");
        return MFB_EXIT_USAGE;
    }
    struct mfb_err err = {{0}};
    if (mfb_output_folder_check("memfbench suite", "-o", r.out, &err) < 0) {
        fprintf(stderr, "%s\n", err.msg);
        return MFB_EXIT_USAGE;
    }
    /* what follows is for every study; -o and -f, -d are the suite's */
    for (int i = optind; i < argc; i++)
        if (!strcmp(argv[i], "-o") || !strncmp(argv[i], "--output", 8) || !strcmp(argv[i], "-f") ||
            !strncmp(argv[i], "--function", 10) || !strcmp(argv[i], "-d") || !strncmp(argv[i], "--distribution", 14)) {
            fprintf(stderr, "memfbench suite: %s: the suite sets each study's function, table and file; give the "
                            "others after --\n", argv[i]);
            return MFB_EXIT_USAGE;
        }
    r.run_args = argv + optind;
    r.nrun_args = argc - optind;
    return mfb_suite_execute(&r);
}
