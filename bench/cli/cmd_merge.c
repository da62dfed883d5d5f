/* memfbench merge -o DIR [--bpftrace FUNCTION:FILE]... FOLDER...: the command line into a request;
 * the merge is orchestrate/recordings_merge.c's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "base/flags.h"
#include "orchestrate/recordings_merge.h"

/* --bpftrace options at most: the command line would be unwieldy long before. */
#define MAX_BPFTRACE 64

/* The options of memfbench merge, in the order --help lists them (base/flags.h). */
static const struct mfb_flag merge_flags[] = {
    MFB_ROW_OUTPUT("DIR", "the new folder (refused if it exists; written whole or not\n"
                          "at all)"),
    MFB_ROW("bpftrace", required_argument, 'b', false, "FUNCTION:FILE",
     "a bpftrace histogram of FUNCTION's sizes (repeatable)"),
    MFB_ROW_HELP,
};

static void usage(FILE *out)
{
    fputs("usage: memfbench merge -o DIR [--bpftrace FUNCTION:FILE]... [FOLDER...]\n\n"
          "Adds the tables of recorded folders (memfbench record's; weights are call counts) and\n"
          "bpftrace size histograms (lines '@[SIZE]: COUNT') into a new folder DIR.\n\n", out);
    mfb_flags_usage(out, merge_flags, sizeof merge_flags / sizeof merge_flags[0]);
}

/* What the options fill: the new folder and the histograms. */
struct merge_args {
    const char *out, *bpf[MAX_BPFTRACE];
    int nbpf;
};

static int apply(int ch, char *arg, void *ctx, struct mfb_err *err)
{
    struct merge_args *a = ctx;
    if (ch == 'o') {
        a->out = arg;
    } else if (ch == 'b') {
        if (a->nbpf == MAX_BPFTRACE)
            return mfb_fail(err, "memfbench merge: --bpftrace: at most %d files", MAX_BPFTRACE);
        a->bpf[a->nbpf++] = arg;
    }
    return 0;
}

static const struct mfb_flag_table merge_table = {.command = "memfbench merge", .rows = merge_flags,
                                                 .n = sizeof merge_flags / sizeof merge_flags[0], .apply = apply,
                                                 .operands = MFB_OPERANDS_AMONG, .usage = usage};

int mfb_cmd_merge(int argc, char **argv)
{
    struct merge_args a = {0};
    struct mfb_err err = {{0}};
    int folders = argc;
    int rc = mfb_flags_each(&merge_table, argc, argv, &a, &folders, &err);
    if (rc == 0)
        rc = mfb_options_output(merge_table.command, "DIR", false, a.out, &err);
    if (rc == 0 && folders >= argc && a.nbpf == 0)
        rc = mfb_fail(&err, "memfbench merge: nothing to merge: give folders or --bpftrace");
    if (rc != 0)
        return mfb_options_end(rc, &err);
    struct mfb_merge_request r = {.out = a.out, .folders = argv + folders, .nfolders = argc - folders, .bpf = a.bpf,
                                  .nbpf = a.nbpf};
    return mfb_recordings_merge(&r);
}
