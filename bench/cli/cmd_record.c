/* memfbench record -o DIR [--rate 1/N] [--flush S] -- PROGRAM ARGS...: the command line into a
 * request; the recording is orchestrate/record_run.c's. */
#include <stdbool.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "base/flags.h"
#include "files/inputs.h"
#include "orchestrate/record_run.h"
#include "workload/trace.h"

/* The options of memfbench record, in the order --help lists them (base/flags.h). */
static const struct mfb_flag record_flags[] = {
    MFB_ROW_OUTPUT("DIR", "the folder to create"),
    MFB_ROW("rate", required_argument, 'r', false, "1/N",
     "count the shape (size, alignment, ...) of every Nth call only (default 1/1);\n"
     "every call is still counted"),
    MFB_ROW("flush", required_argument, 'f', false, "S",
     "also write the counts every S seconds and on SIGUSR1 (long-lived services)"),
    MFB_ROW("trace", required_argument, 't', false, "N",
     "also keep each process's first N calls in order, with their callers:\n"
     "FUNCTION_trace.csv (memfbench run --trace FILE replays it) and callsites.csv"),
    MFB_ROW_HELP,
};

static void usage(FILE *out)
{
    fputs("usage: memfbench record -o DIR [--rate 1/N] [--flush S] -- PROGRAM [ARGS...]\n\n"
          "Runs PROGRAM with the recorder preloaded and writes the distribution of its calls to\n"
          "memcpy, memmove, memset, memcmp and bcmp as tables in DIR (a new folder):\n"
          "FUNCTION_size.csv and siblings, and provenance.json. Replay one with\n"
          "memfbench run -f FUNCTION -d DIR/FUNCTION_size.csv. PROGRAM's exit status is passed through.\n\n", out);
    mfb_flags_usage(out, record_flags, sizeof record_flags / sizeof record_flags[0]);
}

/* Whether s is a whole number from lo to hi. */
static bool whole_in(const char *s, long lo, long hi)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    return end != s && !*end && !errno && v >= lo && v <= hi;
}

struct record_args {
    const char *out, *rate, *flush, *trace; /* -o; --rate's N (of 1/N); --flush, --trace as given */
    int program;                            /* argv index of the program to record */
};

/* The options before the program's name: 0, or the exit status to end with (--help, a usage
 * error, said on stderr in one line). */
static int parse_args(int argc, char **argv, struct record_args *a)
{
    *a = (struct record_args){.rate = "1"};
    enum { NFLAGS = sizeof record_flags / sizeof record_flags[0] };
    struct option opts[NFLAGS + 1];
    char shorts[MFB_FLAGS_SHORTS_CAP(NFLAGS)];
    /* options end at the program's name, so its own options are its own */
    mfb_flags_getopt(record_flags, NFLAGS, true, opts, shorts);
    optind = 0;
    opterr = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, shorts, opts, NULL)) != -1) {
        switch (ch) {
        case 'o':
            a->out = optarg;
            break;
        case 'r': {
            const char *n = strchr(optarg, '/') ? strchr(optarg, '/') + 1 : optarg;
            if (!whole_in(n, 1, 1000000000L) || (strchr(optarg, '/') && strncmp(optarg, "1/", 2))) {
                fprintf(stderr, "memfbench record: --rate: '%s' is not 1/N with N from 1 to 10^9\n", optarg);
                return MFB_EXIT_USAGE;
            }
            a->rate = n;
            break;
        }
        case 'f':
            if (!whole_in(optarg, 1, 86400)) {
                fprintf(stderr, "memfbench record: --flush: '%s' is not a whole number of seconds from 1 to 86400\n",
                        optarg);
                return MFB_EXIT_USAGE;
            }
            a->flush = optarg;
            break;
        case 't':
            if (!whole_in(optarg, 1, (long)MFB_MAX_TRACE_CALLS)) {
                fprintf(stderr, "memfbench record: --trace: '%s' is not a number of calls from 1 to %u\n", optarg,
                        MFB_MAX_TRACE_CALLS);
                return MFB_EXIT_USAGE;
            }
            a->trace = optarg;
            break;
        case 'h':
            usage(stdout);
            return MFB_EXIT_OK;
        case ':':
            fprintf(stderr, "memfbench record: %s needs a value\n", argv[optind - 1]);
            return MFB_EXIT_USAGE;
        default:
            fprintf(stderr, "memfbench record: unknown option '%s' (see memfbench record --help)\n", argv[optind - 1]);
            return MFB_EXIT_USAGE;
        }
    }
    if (!a->out) {
        fprintf(stderr, "memfbench record: -o DIR is required\n");
        return MFB_EXIT_USAGE;
    }
    struct mfb_err err = {{0}};
    if (mfb_output_folder_check("memfbench record", "-o", a->out, &err) < 0) {
        fprintf(stderr, "%s\n", err.msg);
        return MFB_EXIT_USAGE;
    }
    if (optind >= argc) {
        fprintf(stderr, "memfbench record: no program given (memfbench record -o DIR -- PROGRAM ARGS...)\n");
        return MFB_EXIT_USAGE;
    }
    a->program = optind;
    return -1;
}

int mfb_cmd_record(int argc, char **argv)
{
    struct record_args a;
    int parsed = parse_args(argc, argv, &a);
    if (parsed >= 0)
        return parsed;
    struct mfb_record_request r = {.out = a.out, .rate = a.rate, .flush = a.flush, .trace = a.trace,
                                   .program = argv + a.program};
    return mfb_record_execute(&r);
}
