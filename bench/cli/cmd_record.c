/* memfbench record -o DIR [--rate 1/N] [--flush S] -- PROGRAM ARGS...: the command line into a
 * request; the recording is orchestrate/record_run.c's. */
#include <stdbool.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "base/flags.h"
#include "orchestrate/record_run.h"
#include "workload/trace.h"

enum { OPT_DEADLINE = 256 };

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
    MFB_ROW_DEADLINE(OPT_DEADLINE),
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
    struct mfb_deadlines deadlines;         /* --deadline */
};

static int apply(int ch, char *arg, void *ctx, struct mfb_err *err)
{
    struct record_args *a = ctx;
    switch (ch) {
    case 'o':
        a->out = arg;
        break;
    case 'r': {
        const char *n = strchr(arg, '/') ? strchr(arg, '/') + 1 : arg;
        if (!whole_in(n, 1, 1000000000L) || (strchr(arg, '/') && strncmp(arg, "1/", 2)))
            return mfb_fail(err, "memfbench record: --rate: '%s' is not 1/N with N from 1 to 10^9", arg);
        a->rate = n;
        break;
    }
    case 'f':
        if (!whole_in(arg, 1, 86400))
            return mfb_fail(err, "memfbench record: --flush: '%s' is not a whole number of seconds from 1 to 86400",
                            arg);
        a->flush = arg;
        break;
    case 't':
        if (!whole_in(arg, 1, (long)MFB_MAX_TRACE_CALLS))
            return mfb_fail(err, "memfbench record: --trace: '%s' is not a number of calls from 1 to %u", arg,
                            MFB_MAX_TRACE_CALLS);
        a->trace = arg;
        break;
    case OPT_DEADLINE:
        return mfb_deadlines_parse(arg, &a->deadlines, err);
    }
    return 0;
}

/* Options end at the program's name, so its own options are its own. */
static const struct mfb_flag_table record_table = {.command = "memfbench record", .rows = record_flags,
                                                  .n = sizeof record_flags / sizeof record_flags[0], .apply = apply,
                                                  .operands = MFB_OPERANDS_AFTER, .usage = usage};

int mfb_cmd_record(int argc, char **argv)
{
    struct record_args a = {.rate = "1"};
    struct mfb_err err = {{0}};
    int program = argc;
    int rc = mfb_flags_each(&record_table, argc, argv, &a, &program, &err);
    if (rc == 0)
        rc = mfb_options_output(record_table.command, "DIR", false, a.out, &err);
    if (rc == 0 && program >= argc)
        rc = mfb_fail(&err, "memfbench record: no program given (memfbench record -o DIR -- PROGRAM ARGS...)");
    if (rc != 0)
        return mfb_options_end(rc, &err);
    struct mfb_record_request r = {.out = a.out, .rate = a.rate, .flush = a.flush, .trace = a.trace,
                                   .program = argv + program, .deadlines = &a.deadlines};
    return mfb_record_execute(&r);
}
