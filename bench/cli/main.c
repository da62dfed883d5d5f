/* memfbench: distribution-driven benchmark of memcpy, memmove, memset, memcmp and bcmp. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "config.h"

static void usage(FILE *out)
{
    fprintf(out, "usage: memfbench <command> [options]\n\n"
                 "commands:\n"
                 "  run       time variants of one function on a recorded distribution (memfbench run --help)\n"
                 "  sweep     time against size: memfbench sweep SIZES [run options] (as run --sweep SIZES)\n"
                 "  suite     one number across functions: a study of each on its fleet table, then each\n"
                 "            variant's geometric mean with its interval (memfbench suite --help)\n"
                 "  record    record a program's calls as a distribution: memfbench record -o DIR -- PROGRAM ARGS\n"
                 "  merge     add recorded folders (and bpftrace histograms) into one: memfbench merge -o DIR A B\n"
                 "  ab        a program end to end under libc and each variant: memfbench ab -v V -o FILE\n"
                 "            -- PROGRAM ARGS (memfbench ab --help)\n"
                 "  probe     measure the memory system: latency and bandwidth per size, cache levels\n"
                 "            (memfbench probe --help)\n"
                 "  analyze   the analysis: intervals, verdicts, reports (memfbench analyze --help; the\n"
                 "            Python package run by the interpreter this build found)\n"
                 "  counts    instructions, branches, simulated mispredictions and L1 misses per call of\n"
                 "            each variant under valgrind: memfbench counts -v V -o FILE (counts --help)\n"
                 "  list      functions, variants available on this CPU, shipped distributions\n"
                 "  version   print the version\n"
                 "  help      this text\n");
}

/* memfbench sweep SIZES [options] is memfbench run --sweep SIZES [options]: the same study, so
 * --processes children (which run `memfbench run` with the parent's options) sweep too. */
static int sweep_command(int argc, char **argv)
{
    if (argc >= 3 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))) {
        mfb_sweep_usage(stdout);
        return MFB_EXIT_OK;
    }
    if (argc < 3 || argv[2][0] == '-') {
        fprintf(stderr, "memfbench sweep: give the sizes first, e.g. memfbench sweep 0-512:1,pow2:1K-16M "
                        "[run options]\n");
        return MFB_EXIT_USAGE;
    }
    /* run, --sweep, SIZES, then every option after SIZES; argv[argc] stays NULL */
    char **args = calloc((size_t)argc + 2, sizeof *args);
    if (!args) {
        fprintf(stderr, "memfbench sweep: out of memory\n");
        return MFB_EXIT_FAIL;
    }
    int n = 0;
    args[n++] = "run";
    args[n++] = "--sweep";
    args[n++] = argv[2];
    for (int i = 3; i < argc; i++)
        args[n++] = argv[i];
    int rc = mfb_cmd_run(n, args);
    free(args);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return MFB_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "run"))
        return mfb_cmd_run(argc - 1, argv + 1);
    if (!strcmp(cmd, "sweep"))
        return sweep_command(argc, argv);
    if (!strcmp(cmd, "record"))
        return mfb_cmd_record(argc - 1, argv + 1);
    if (!strcmp(cmd, "merge"))
        return mfb_cmd_merge(argc - 1, argv + 1);
    if (!strcmp(cmd, "probe"))
        return mfb_cmd_probe(argc - 1, argv + 1);
    if (!strcmp(cmd, "analyze"))
        return mfb_cmd_analyze(argc - 1, argv + 1);
    if (!strcmp(cmd, "ab"))
        return mfb_cmd_ab(argc - 1, argv + 1);
    if (!strcmp(cmd, "suite"))
        return mfb_cmd_suite(argc - 1, argv + 1);
    if (!strcmp(cmd, "counts"))
        return mfb_cmd_counts(argc - 1, argv + 1);
    if (!strcmp(cmd, "list"))
        return mfb_cmd_list(argc - 1, argv + 1);
    if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
        printf("memfbench %s\n", MFB_VERSION);
        return MFB_EXIT_OK;
    }
    if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
        usage(stdout);
        return MFB_EXIT_OK;
    }
    fprintf(stderr, "memfbench: unknown command '%s' (see memfbench help)\n", cmd);
    return MFB_EXIT_USAGE;
}
