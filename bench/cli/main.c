/* memfbench: distribution-driven benchmark of memcpy, memmove, memset, memcmp and bcmp. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "config.h"

/* memfbench sweep SIZES [options] is memfbench run --sweep SIZES [options]: the same study, so
 * --processes children (which run `memfbench run` with the parent's options) sweep too. */
static int sweep_command(int argc, char **argv)
{
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        mfb_sweep_usage(stdout);
        return MFB_EXIT_OK;
    }
    if (argc < 2 || argv[1][0] == '-') {
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
    args[n++] = argv[1];
    for (int i = 2; i < argc; i++)
        args[n++] = argv[i];
    int rc = mfb_cmd_run(n, args);
    free(args);
    return rc;
}

static int version_command(int argc, char **argv)
{
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        printf("usage: memfbench version\n\nPrints memfbench's version.\n");
        return MFB_EXIT_OK;
    }
    if (argc >= 2) {
        fprintf(stderr, "memfbench version: unexpected argument '%s'\n", argv[1]);
        return MFB_EXIT_USAGE;
    }
    printf("memfbench %s\n", MFB_VERSION);
    return MFB_EXIT_OK;
}

static int help_command(int argc, char **argv);

/* The subcommands, in the order the usage lists them. Dispatching, the usage text and
 * `memfbench help --commands` (the list tests/py/test_matrix.py holds every subcommand to) all
 * read this table, so a subcommand exists, is documented and is tested by being a row. */
static const struct mfb_command COMMANDS[] = {
    {"run", {NULL}, mfb_cmd_run, "time variants of one function on a recorded distribution (memfbench run --help)"},
    {"sweep", {NULL}, sweep_command,
     "time against size: memfbench sweep SIZES [run options] (as run --sweep SIZES)"},
    {"suite", {NULL}, mfb_cmd_suite,
     "one number across functions: a study of each on its fleet table, then each\n"
     "variant's geometric mean with its interval (memfbench suite --help)"},
    {"tune", {NULL}, mfb_cmd_tune,
     "which of a family of implementations is fastest here: candidates raced in\n"
     "paired studies, the leader confirmed by a fresh one (memfbench tune --help)"},
    {"record", {NULL}, mfb_cmd_record,
     "record a program's calls as a distribution: memfbench record -o DIR -- PROGRAM ARGS"},
    {"merge", {NULL}, mfb_cmd_merge,
     "add recorded folders (and bpftrace histograms) into one: memfbench merge -o DIR A B"},
    {"ab", {NULL}, mfb_cmd_ab,
     "a program end to end under libc and each variant: memfbench ab -v V -o FILE\n"
     "-- PROGRAM ARGS (memfbench ab --help)"},
    {"probe", {NULL}, mfb_cmd_probe,
     "measure the memory system: latency and bandwidth per size, cache levels\n"
     "(memfbench probe --help)"},
    {"analyze", {NULL}, mfb_cmd_analyze,
     "the analysis: intervals, verdicts, reports (memfbench analyze --help; the\n"
     "Python package run by the interpreter this build found)"},
    {"counts", {NULL}, mfb_cmd_counts,
     "instructions, branches, simulated mispredictions and L1 misses per call of\n"
     "each variant under valgrind: memfbench counts -v V -o FILE (counts --help)"},
    {"list", {NULL}, mfb_cmd_list, "functions, variants available on this CPU, shipped distributions"},
    {"version", {"--version", NULL}, version_command, "print the version"},
    {"help", {"--help", "-h"}, help_command,
     "this text; memfbench help COMMAND is COMMAND --help; help --commands lists\n"
     "the commands' names, one a line"},
};
#define NCOMMANDS (sizeof COMMANDS / sizeof COMMANDS[0])

/* The row named (or aliased) name, or NULL. */
static const struct mfb_command *find_command(const char *name)
{
    for (size_t i = 0; i < NCOMMANDS; i++) {
        const struct mfb_command *c = &COMMANDS[i];
        if (!strcmp(c->name, name))
            return c;
        for (size_t a = 0; a < sizeof c->alias / sizeof c->alias[0]; a++)
            if (c->alias[a] && !strcmp(c->alias[a], name))
                return c;
    }
    return NULL;
}

/* The name column's width: the usage's summaries start in one column. */
#define NAME_WIDTH 9

static void usage(FILE *out)
{
    fputs("usage: memfbench <command> [options]\n\ncommands:\n", out);
    for (size_t i = 0; i < NCOMMANDS; i++) {
        const char *line = COMMANDS[i].summary;
        fprintf(out, "  %-*s ", NAME_WIDTH, COMMANDS[i].name);
        /* a summary's later lines start under its first */
        for (const char *nl; (nl = strchr(line, '\n')); line = nl + 1)
            fprintf(out, "%.*s\n  %-*s ", (int)(nl - line), line, NAME_WIDTH, "");
        fprintf(out, "%s\n", line);
    }
}

static int help_command(int argc, char **argv)
{
    if (argc < 2) {
        usage(stdout);
        return MFB_EXIT_OK;
    }
    const char *arg = argv[1];
    if (argc > 2) {
        fprintf(stderr, "memfbench help: unexpected argument '%s' (memfbench help [--commands | COMMAND])\n",
                argv[2]);
        return MFB_EXIT_USAGE;
    }
    if (!strcmp(arg, "--commands")) {
        for (size_t i = 0; i < NCOMMANDS; i++)
            printf("%s\n", COMMANDS[i].name);
        return MFB_EXIT_OK;
    }
    if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
        usage(stdout);
        return MFB_EXIT_OK;
    }
    const struct mfb_command *c = arg[0] == '-' ? NULL : find_command(arg);
    if (!c) {
        fprintf(stderr, "memfbench help: unknown %s '%s' (memfbench help [--commands | COMMAND])\n",
                arg[0] == '-' ? "option" : "command", arg);
        return MFB_EXIT_USAGE;
    }
    if (c->run == help_command) { /* help help: this text, not a loop */
        usage(stdout);
        return MFB_EXIT_OK;
    }
    char *args[] = {(char *)c->name, "--help", NULL};
    return c->run(2, args);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return MFB_EXIT_USAGE;
    }
    const struct mfb_command *c = find_command(argv[1]);
    if (!c) {
        fprintf(stderr, "memfbench: unknown command '%s' (see memfbench help)\n", argv[1]);
        return MFB_EXIT_USAGE;
    }
    return c->run(argc - 1, argv + 1);
}
