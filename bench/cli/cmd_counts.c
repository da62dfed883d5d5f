/* memfbench counts: argv into a counts request (orchestrate/counts.h) and a dispatch to its driver:
 * the parent that runs each variant under callgrind, or (--replay, internal) the replay it runs. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/flags.h"
#include "files/inputs.h"
#include "base/parse.h"
#include "cli/commands.h"
#include "config.h"
#include "counts/counts.h"

enum { OPT_CALLS = 256, OPT_REPLAY, OPT_CACHE };

/* The options of memfbench counts, in the order --help lists them (base/flags.h). */
static const struct mfb_flag counts_flags[] = {
    MFB_ROW("function", required_argument, 'f', true, "F", "memcpy|memmove|memset|memcmp|bcmp (default memcpy)"),
    MFB_ROW("distribution", required_argument, 'd', true, "DIST",
     "a shipped name, a CSV path or fixed:/uniform:/pow2: as run -d takes\n"
     "(default: the function's fleet distribution)"),
    MFB_ROW("variant", required_argument, 'v', true, "V,...",
     "variants to count (repeatable): built-ins (memfbench list), a plugin\n"
     "LIB.so:SYMBOL[=NAME] or source FILE.c:SYMBOL[=NAME] (built with $CC\n"
     "and $CFLAGS as run builds it); libc, the baseline, is always first"),
    MFB_ROW("calls", required_argument, OPT_CALLS, false, "N", "calls drawn and counted per variant, 100-16777216 (default 20000)"),
    MFB_ROW_SEED("seed of the calls (default 1: the same calls every time)"),
    MFB_ROW("cache", required_argument, OPT_CACHE, false, "L1D:L2:LLC",
     "the cache sizes the buffers are laid out for, as run's --cache\n"
     "(default: this machine's)"),
    MFB_ROW_OUTPUT("FILE", "counts file (JSON), written atomically"),
    MFB_ROW("replay", no_argument, OPT_REPLAY, false, NULL, NULL),
    MFB_ROW_QUIET("no progress lines"),
    MFB_ROW_HELP,
};

static void usage(FILE *out)
{
    fputs("usage: memfbench counts [-f F] [-d DIST] -v V[,V...] [--calls N] [--seed S] -o FILE\n\n"
          "Counts instructions, branches, simulated branch mispredictions and simulated L1 misses per call\n"
          "of each variant on the same drawn calls, under valgrind's callgrind (Debian package valgrind).\n"
          "No host load moves them; read them beside a time ratio (docs/methodology.md, \"Counts under\n"
          "valgrind\"; memfbench analyze counts FILE).\n\n", out);
    mfb_flags_usage(out, counts_flags, sizeof counts_flags / sizeof counts_flags[0]);
}

/* A -v value: names separated by commas, each added once, after libc. */
static int add_variants(struct mfb_counts_config *c, char *list, struct mfb_err *err)
{
    char *save = NULL;
    for (char *name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
        bool seen = false;
        for (int i = 0; i < c->nvariants; i++)
            seen |= !strcmp(c->variants[i], name);
        if (seen)
            continue;
        if (c->nvariants == MFB_COUNTS_MAX_VARIANTS)
            return mfb_fail(err, "memfbench counts: -v: more than %d variants", MFB_COUNTS_MAX_VARIANTS);
        c->variants[c->nvariants++] = name;
    }
    return 0;
}

static int apply(int ch, char *arg, void *ctx, struct mfb_err *err)
{
    struct mfb_counts_config *c = ctx;
    uint64_t v;
    switch (ch) {
    case 'f':
        if (mfb_func_parse(arg, &c->func) < 0)
            return mfb_fail(err, "memfbench counts: -f: '%s' is not memcpy, memmove, memset, memcmp or bcmp", arg);
        break;
    case 'd':
        c->dist = arg;
        break;
    case 'v': {
        /* split a copy: argv stays as given, for the file's echo of the command */
        if (c->nlists == MFB_COUNTS_MAX_VARIANTS)
            return mfb_fail(err, "memfbench counts: -v: more than %d values", MFB_COUNTS_MAX_VARIANTS);
        char *copy = strdup(arg);
        if (!copy)
            return mfb_fail(err, "memfbench counts: out of memory");
        c->lists[c->nlists++] = copy;
        return add_variants(c, copy, err);
    }
    case OPT_CALLS:
        if (mfb_parse_u64(arg, &v) < 0 || v < 100 || v > MFB_COUNTS_MAX_CALLS)
            return mfb_fail(err, "memfbench counts: --calls: '%s' is not a whole number from 100 to %u", arg,
                            MFB_COUNTS_MAX_CALLS);
        c->calls = (uint32_t)v;
        break;
    case 's':
        if (mfb_parse_seed(arg, &c->seed) < 0)
            return mfb_fail(err, "memfbench counts: --seed: '%s' is not a 64-bit number (" MFB_SEED_FORMS ")", arg);
        break;
    case 'o':
        c->output = arg;
        break;
    case OPT_REPLAY:
        c->replay = true;
        break;
    case OPT_CACHE:
        if (mfb_parse_cache_sizes(arg, c->caches) < 0)
            return mfb_fail(err, "memfbench counts: --cache: '%s' is not " MFB_CACHE_SIZES_FORM, arg);
        c->cache = arg;
        break;
    case 'q':
        c->quiet = true;
        break;
    }
    return 0;
}

static int parse(int argc, char **argv, struct mfb_counts_config *c, struct mfb_err *err)
{
    const char *dists = getenv("MEMFBENCH_DISTRIBUTIONS");
    *c = (struct mfb_counts_config){.func = MFB_MEMCPY, .calls = MFB_COUNTS_DEFAULT_CALLS,
                                    .seed = MFB_COUNTS_DEFAULT_SEED, .dist_dir = dists ? dists : MFB_DIST_DIR,
                                    .argc = argc, .argv = argv};
    static char libc[] = "libc";
    c->variants[c->nvariants++] = libc;
    int rc = mfb_flags_each("memfbench counts", counts_flags, sizeof counts_flags / sizeof counts_flags[0], argc, argv,
                            apply, c, err);
    if (rc == 1)
        usage(stdout);
    if (rc != 0)
        return rc;
    if (!c->dist)
        c->dist = mfb_func_default_distribution(c->func);
    if (c->replay) {
        /* the replay counts one variant, the one named after libc (or libc itself) */
        if (c->nvariants > 2)
            return mfb_fail(err, "memfbench counts --replay: one variant");
        c->variants[0] = c->variants[c->nvariants - 1];
        c->nvariants = 1;
        return 0;
    }
    if (!c->output)
        return mfb_fail(err, "memfbench counts: -o FILE is required");
    return mfb_output_folder_check("memfbench counts", "-o", c->output, err);
}

int mfb_cmd_counts(int argc, char **argv)
{
    struct mfb_counts_config cfg;
    struct mfb_err err = {{0}};
    int rc = parse(argc, argv, &cfg, &err);
    int status = MFB_EXIT_OK;
    if (rc < 0) {
        fprintf(stderr, "%s\n", err.msg);
        status = MFB_EXIT_USAGE;
    } else if (rc != 1) {
        status = cfg.replay ? mfb_counts_replay(&cfg) : mfb_counts_execute(&cfg);
    }
    for (int i = 0; i < cfg.nlists; i++)
        free(cfg.lists[i]);
    return status;
}
