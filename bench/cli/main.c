/* memfbench: distribution-driven benchmark of memcpy, memmove, memset, memcmp and bcmp. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "config.h"

static void usage(FILE *out)
{
    fprintf(out, "usage: memfbench <command> [options]\n\n"
                 "commands:\n"
                 "  run       time variants of one function on a recorded distribution (memfbench run --help)\n"
                 "  list      functions, variants available on this CPU, shipped distributions\n"
                 "  version   print the version\n"
                 "  help      this text\n");
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
