/* Fuzz target: the command line of `memfbench run`, mfb_options_parse (bench/cli/options.c,
 * compiled into this target; it is not in a library). The input is the argument list, one
 * argument per line (argv[0] is "run"). On success the study must be within the ranges the
 * options document; nothing is run. */
#include <getopt.h>

#include "cli/options.h"
#include "fuzz_common.h"
#include "workload/call.h"

enum { MAX_ARGS = 64 };

/* getopt_long keeps state between calls (the position inside a cluster such as "-qh"), and
 * mfb_options_parse sets optind = 1, which does not reset it: a previous input's cluster would
 * point into freed memory. optind = 0 plus one empty scan is glibc's full re-initialisation. */
static void reset_getopt(void)
{
    static char arg0[] = "reset";
    char *argv[] = {arg0, NULL};
    optind = 0;
    opterr = 0;
    while (getopt_long(1, argv, "", NULL, NULL) != -1) {
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int once;
    if (!once) {
        once = 1;
        /* --help prints the usage on stdout: not at every execution. */
        if (!freopen("/dev/null", "w", stdout))
            abort();
        unsetenv("MEMFBENCH_DISTRIBUTIONS");
    }
    char *buf = fuzz_strdup(data, size);
    char arg0[] = "run";
    char *argv[MAX_ARGS + 2];
    int argc = 0;
    argv[argc++] = arg0;
    for (char *p = buf; argc <= MAX_ARGS;) {
        argv[argc++] = p;
        char *nl = strchr(p, '\n');
        if (!nl)
            break;
        *nl = '\0';
        p = nl + 1;
    }
    argv[argc] = NULL;
    char *copy[MAX_ARGS + 2];
    memcpy(copy, argv, sizeof copy);

    reset_getopt();
    struct mfb_study s;
    struct mfb_err err = {{0}};
    struct mfb_cpu_plan plan;
    int rc = mfb_options_parse(argc, argv, &s, &plan, &err);
    FUZZ_CHECK(rc >= -1 && rc <= 1);
    FUZZ_CHECK(rc != -1 || err.msg[0] != '\0');
    /* getopt_long permutes argv, never replaces it. */
    for (int i = 0; i < argc; i++) {
        int found = 0;
        for (int j = 0; j < argc; j++)
            found |= argv[i] == copy[j];
        FUZZ_CHECK(found);
    }
    if (rc == 0) {
        FUZZ_CHECK(s.output != NULL);
        FUZZ_CHECK(s.func < MFB_FUNC_COUNT);
        FUZZ_CHECK(s.nvariants >= 0 && s.nvariants <= MFB_MAX_VARIANTS);
        for (int i = 0; i < s.nvariants; i++)
            FUZZ_CHECK(s.variants[i] != NULL);
        FUZZ_CHECK(isfinite(s.time_s) && s.time_s >= 0);
        FUZZ_CHECK(s.rounds >= 0 && s.warmup_rounds >= -1);
        FUZZ_CHECK(isfinite(s.target_ci) && s.target_ci >= 0 && s.target_ci < 100);
        FUZZ_CHECK(s.processes >= 1 && s.processes <= MFB_MAX_PROCESSES);
        FUZZ_CHECK(s.batch_passes >= 0 && s.batch_passes <= MFB_MAX_BATCH_PASSES);
        FUZZ_CHECK(s.flip_lead >= 0 && s.flip_lead <= MFB_MAX_FLIP_LEAD);
        FUZZ_CHECK(s.process_index >= -1);
        FUZZ_CHECK(s.small_max <= MFB_SIZE_MASK);
        /* -1 is "do not pin"; any other negative CPU would be a wrapped-around number. */
        FUZZ_CHECK(s.cpu >= -1);
        FUZZ_CHECK(s.l1d == 0 || s.l1d >= 4096);
        FUZZ_CHECK(s.l2 == 0 || s.l2 >= 4096);
        FUZZ_CHECK(s.llc == 0 || s.llc >= 4096);
        FUZZ_CHECK(s.clock >= MFB_CLOCK_AUTO && s.clock <= MFB_CLOCK_MONOTONIC_RAW && s.dist_dir != NULL);
        FUZZ_CHECK(s.argc == argc && s.argv == argv);
    }
    free(buf);
    return 0;
}
