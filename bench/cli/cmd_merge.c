/* memfbench merge -o DIR [--bpftrace FUNCTION:FILE]... FOLDER...: the command line into a request;
 * the merge is orchestrate/recordings_merge.c's. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "base/flags.h"
#include "files/inputs.h"
#include "orchestrate/recordings_merge.h"

/* --bpftrace options at most: the command line would be unwieldy long before. */
#define MAX_BPFTRACE 64

/* The options of memfbench merge, in the order --help lists them (base/flags.h). */
static const struct mfb_flag merge_flags[] = {
    MFB_ROW("output", required_argument, 'o', true, "DIR",
     "the new folder (refused if it exists; written whole or not\n"
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

int mfb_cmd_merge(int argc, char **argv)
{
    const char *out = NULL, *bpf[MAX_BPFTRACE];
    int nbpf = 0;
    enum { NFLAGS = sizeof merge_flags / sizeof merge_flags[0] };
    struct option opts[NFLAGS + 1];
    char shorts[MFB_FLAGS_SHORTS_CAP(NFLAGS)];
    mfb_flags_getopt(merge_flags, NFLAGS, false, opts, shorts);
    optind = 0;
    opterr = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, shorts, opts, NULL)) != -1) {
        if (ch == 'o') {
            out = optarg;
        } else if (ch == 'b') {
            if (nbpf == MAX_BPFTRACE) {
                fprintf(stderr, "memfbench merge: at most %d --bpftrace files\n", MAX_BPFTRACE);
                return MFB_EXIT_USAGE;
            }
            bpf[nbpf++] = optarg;
        } else if (ch == 'h') {
            usage(stdout);
            return MFB_EXIT_OK;
        } else {
            fprintf(stderr, "memfbench merge: %s '%s' (see memfbench merge --help)\n",
                    ch == ':' ? "a value is missing for" : "unknown option", argv[optind - 1]);
            return MFB_EXIT_USAGE;
        }
    }
    if (!out || (optind >= argc && nbpf == 0)) {
        fprintf(stderr, "memfbench merge: %s\n", !out ? "-o DIR is required" : "nothing to merge: give folders or --bpftrace");
        return MFB_EXIT_USAGE;
    }
    struct mfb_err err = {{0}};
    if (mfb_output_folder_check("memfbench merge", "-o", out, &err) < 0) {
        fprintf(stderr, "%s\n", err.msg);
        return MFB_EXIT_USAGE;
    }
    struct mfb_merge_request r = {.out = out, .folders = argv + optind, .nfolders = argc - optind, .bpf = bpf,
                                  .nbpf = nbpf};
    return mfb_recordings_merge(&r);
}
