/* memfbench counts: instructions, branches, simulated mispredictions and simulated cache misses per
 * call of each variant, counted by valgrind's callgrind on one replayed call sequence, so that no
 * host load can move them. The parent (counts_run.c) runs this binary under callgrind once per
 * variant in the internal replay mode (counts_replay.c) and writes one JSON file. */
#ifndef MFB_COUNTS_H
#define MFB_COUNTS_H

#include <stdbool.h>
#include <stdint.h>

#include "base/functions.h"
#include "programs/kinds.h"

/* --calls: enough that the loop's fixed cost (a few hundred instructions) is below 0.1 instruction
 * per call by default, few enough that callgrind (about 50-100x slower than native) takes a second. */
#define MFB_COUNTS_DEFAULT_CALLS 20000u
#define MFB_COUNTS_MAX_CALLS (1u << 24)
/* The default seed is fixed, not fresh: counts are for re-running and comparing, so two runs of
 * the same command must count the same calls. */
#define MFB_COUNTS_DEFAULT_SEED 1u
#define MFB_COUNTS_MAX_VARIANTS 32

struct mfb_counts_config {
    enum mfb_func func;
    const char *dist;      /* -d as given, or the function's default distribution */
    const char *dist_dir;  /* shipped distributions */
    const char *variants[MFB_COUNTS_MAX_VARIANTS]; /* the baseline, libc, first */
    int nvariants;
    char *lists[MFB_COUNTS_MAX_VARIANTS]; /* the -v values split in copies (argv stays as given, for
                                           * the file's echo); variants points into them */
    int nlists;
    uint32_t calls;
    uint64_t seed;
    const char *cache;     /* --cache L1D:L2:LLC as given (NULL: this machine's), checked */
    size_t caches[3];      /* its sizes */
    const char *output;    /* the parent's file */
    bool replay;           /* the internal mode: replay variants[0] (under callgrind) */
    bool quiet;
    struct mfb_deadlines deadlines; /* --deadline: the builds' and valgrind's */
    int argc;              /* the command line, echoed */
    char **argv;
};

/* The parent: every variant under callgrind, then the file. An exit status (base/error.h). */
int mfb_counts_execute(const struct mfb_counts_config *cfg);
/* The internal mode: draws the calls, verifies variants[0] on them, replays them once uncounted
 * and once in the counted loop, and prints its code's symbol and object on stdout. */
int mfb_counts_replay(const struct mfb_counts_config *cfg);

#endif
