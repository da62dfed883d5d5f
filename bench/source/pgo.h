/* --pgo: a source variant NAME (-v FILE.c:SYMBOL[=NAME]) built again with the compiler's profile,
 * as NAME-pgo, so that a study times the code with and without profile-guided optimization in the
 * same rounds. The profile comes from a training replay that is not the timed calls: an
 * instrumented build of the same file and flags (GCC -fprofile-generate, clang
 * -fprofile-instr-generate) replays calls drawn from the training distribution (the study's own,
 * or --pgo-train's) with the seed of the study's stream MFB_STREAM_PGO, in a child of its own
 * (memfbench counts --replay: the variant verified on the calls, then replayed), which writes the
 * profile when it exits; clang's raw profiles are merged with llvm-profdata. The profile is kept in
 * the cache under a key of everything it depends on (the instrumented build, the training tables'
 * bytes, the seed, the calls), so the study's other processes, and the next run, find it and train
 * nothing; the trained build is cached like any source variant, the profile's digest in its key. */
#ifndef MFB_PGO_H
#define MFB_PGO_H

#include <stdint.h>

#include "base/error.h"
#include "base/functions.h"
#include "files/inputs.h"
#include "impl/source.h"
#include "programs/kinds.h"

struct mfb_pgo_request {
    enum mfb_func func;
    const char *dist_dir;      /* shipped distributions */
    const char *train;         /* --pgo-train as given; NULL: the study's distribution */
    const char *study_dist;    /* the study's -d, or the function's default distribution */
    uint64_t seed;             /* the training replay's seed */
    bool seed_given;           /* by --pgo-seed */
    uint32_t calls;
    const char *flags_option;  /* --variant-cflags (NULL: $CFLAGS, else the default) */
    const char *cache;         /* the study's --cache as L1D:L2:LLC bytes, for the replay's buffers
                                * (NULL: this machine's caches) */
    const struct mfb_deadlines *deadlines; /* the command's --deadline (NULL: the defaults) */
};

/* The checks of req for the source variant s (mfb_source_new's, unbuilt) that need nothing built:
 * s is a FILE.c, and the training distribution (--pgo-train's, else the study's) resolves, its
 * tables read. 0, or -1 with one line: a command calls it before the first build, so a bad
 * --pgo-train costs no compile and no training. */
int mfb_pgo_check(const struct mfb_pgo_request *req, const struct mfb_source *s, struct mfb_err *err);
/* The files the training reads (its table and siblings, --pgo-train's or the study's) added to in,
 * so no output of the study names one: 0, or -1 with one line. */
int mfb_pgo_train_inputs(const struct mfb_pgo_request *req, struct mfb_inputs *in, struct mfb_err *err);

/* Builds NAME-pgo of the source variant spec (its name: NAME-pgo where NAME is the spec's name):
 * the instrumented build, the training (or its cached profile), then the trained build at every
 * code placement; *out is the trained source, built but not loaded (impl/source.h), its pgo
 * facts filled. -1 with one line naming the variant: a kind other than FILE.c, a compiler that is
 * neither GCC nor clang, a training that fails (the replay's own line), a profile the compiler
 * refuses (its first error). */
int mfb_pgo_build(const char *spec, const struct mfb_pgo_request *req, struct mfb_source **out, struct mfb_err *err);

#endif
