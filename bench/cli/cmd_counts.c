/* memfbench counts: argv into a counts request (orchestrate/counts.h) and a dispatch to its driver:
 * the parent that runs each variant under callgrind, or (--replay, internal) the replay it runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/flags.h"
#include "base/parse.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "config.h"
#include "counts/counts.h"

enum { OPT_CALLS = 256, OPT_REPLAY, OPT_CACHE, OPT_DEADLINE };

/* The options of memfbench counts, in the order --help lists them (base/flags.h). */
static const struct mfb_flag counts_flags[] = {
    MFB_ROW("function", required_argument, 'f', true, "F", "memcpy|memmove|memset|memcmp|bcmp (default memcpy)"),
    MFB_ROW("distribution", required_argument, 'd', true, "DIST",
     "a shipped name, a CSV path or fixed:/uniform:/pow2: as run -d takes\n"
     "(default: the function's fleet distribution)"),
    MFB_ROW("variant", required_argument, 'v', true, "V,...",
     "variants to count (repeatable), each named once: built-ins (memfbench\n"
     "list), a plugin LIB.so:SYMBOL[=NAME] or source FILE.c:SYMBOL[=NAME]\n"
     "(built with $CC and $CFLAGS as run builds it); libc, the baseline,\n"
     "is always first"),
    MFB_ROW("calls", required_argument, OPT_CALLS, false, "N", "calls drawn and counted per variant, 100-16777216 (default 20000)"),
    MFB_ROW_SEED("seed of the calls (default 1: the same calls every time)"),
    MFB_ROW_CACHE(OPT_CACHE),
    MFB_ROW_DEADLINE(OPT_DEADLINE),
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
        /* kept whole here and split once the mode is known (the replay's one variant is taken
         * as it is); split in a copy: argv stays as given, for the file's echo of the command */
        if (c->nlists == MFB_COUNTS_MAX_VARIANTS)
            return mfb_fail(err, "memfbench counts: -v: more than %d values", MFB_COUNTS_MAX_VARIANTS);
        if (!(c->lists[c->nlists] = strdup(arg)))
            return mfb_fail(err, "memfbench counts: out of memory");
        c->nlists++;
        break;
    }
    case OPT_CALLS:
        if (mfb_parse_u64(arg, &v) < 0 || v < 100 || v > MFB_COUNTS_MAX_CALLS)
            return mfb_fail(err, "memfbench counts: --calls: '%s' is not a whole number from 100 to %u", arg,
                            MFB_COUNTS_MAX_CALLS);
        c->calls = (uint32_t)v;
        break;
    case 's':
        if (mfb_parse_seed(arg, &c->seed) < 0)
            return -1; /* said from the row */
        break;
    case 'o':
        c->output = arg;
        break;
    case OPT_REPLAY:
        c->replay = true;
        break;
    case OPT_CACHE:
        if (mfb_parse_cache_sizes(arg, c->caches) < 0)
            return -1; /* said from the row */
        c->cache = arg;
        break;
    case OPT_DEADLINE:
        return mfb_deadlines_parse(arg, &c->deadlines, err);
    case 'q':
        c->quiet = true;
        break;
    }
    return 0;
}

static const struct mfb_flag_table counts_table = {.command = "memfbench counts", .rows = counts_flags,
                                                  .n = sizeof counts_flags / sizeof counts_flags[0], .apply = apply,
                                                  .usage = usage};

/* The -v values into the variants after libc: the replay's one value whole (a path may hold a
 * comma), the parent's split at commas with each name given once (base/flags.h); libc is the
 * baseline, always counted first, so the parent refuses it as a name (the replay counts it when
 * asked). */
static int variants(struct mfb_counts_config *c, struct mfb_err *err)
{
    if (c->replay) {
        if (c->nlists > 1)
            return mfb_fail(err, "memfbench counts --replay: one variant");
        if (c->nlists == 1)
            c->variants[0] = c->lists[0];
        return 0;
    }
    int given = 0;
    for (int i = 0; i < c->nlists; i++)
        if (mfb_flags_names(counts_table.command, "-v", c->lists[i], c->variants + 1, &given,
                            MFB_COUNTS_MAX_VARIANTS - 1, err) < 0)
            return -1;
    for (int i = 1; i <= given; i++)
        if (!strcmp(c->variants[i], c->variants[0]))
            return mfb_fail(err, "memfbench counts: -v: libc is the baseline, counted first always: leave it out");
    c->nvariants = 1 + given;
    return 0;
}

static int parse(int argc, char **argv, struct mfb_counts_config *c, struct mfb_err *err)
{
    const char *dists = getenv("MEMFBENCH_DISTRIBUTIONS");
    *c = (struct mfb_counts_config){.func = MFB_MEMCPY, .calls = MFB_COUNTS_DEFAULT_CALLS,
                                    .seed = MFB_COUNTS_DEFAULT_SEED, .dist_dir = dists ? dists : MFB_DIST_DIR,
                                    .argc = argc, .argv = argv};
    c->variants[0] = "libc";
    c->nvariants = 1;
    int rc = mfb_flags_each(&counts_table, argc, argv, c, NULL, err);
    if (rc != 0 || variants(c, err) < 0)
        return rc != 0 ? rc : -1;
    if (!c->dist)
        c->dist = mfb_func_default_distribution(c->func);
    if (c->replay)
        return 0;
    return mfb_options_output(counts_table.command, "FILE", false, c->output, err);
}
int mfb_cmd_counts(int argc, char **argv)
{
    struct mfb_counts_config cfg;
    struct mfb_err err = {{0}};
    int rc = parse(argc, argv, &cfg, &err);
    int status = rc != 0 ? mfb_options_end(rc, &err) : cfg.replay ? mfb_counts_replay(&cfg) : mfb_counts_execute(&cfg);
    for (int i = 0; i < cfg.nlists; i++)
        free(cfg.lists[i]);
    return status;
}
