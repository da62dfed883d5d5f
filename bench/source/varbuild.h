/* Builds a source variant (impl/source.h) at every code placement, into a cache: the user's code
 * compiled once (FILE.c with the variant compiler and flags; FILE.o as it is; from FILE.a, the
 * members defining the symbol, by `cc -r`) into one relocatable object, then linked once per
 * placement into a shared object whose text opens that placement's pad into a page
 * (base/code_placement.h: the built-ins' own pads). The cache entry is named by SHA-256 of what
 * the build depends on: the input file's bytes (and, for FILE.c, every header it included, checked
 * on each lookup), the compiler's executable (path, size, time), the flags and the placement
 * scheme. A second run, and every process of a study after the parent's, finds it there and
 * compiles nothing. A build that fails leaves nothing behind. */
#ifndef MFB_VARBUILD_H
#define MFB_VARBUILD_H

#include "base/error.h"
#include "files/inputs.h"
#include "impl/source.h"
#include "programs/kinds.h"

/* The flags of a source variant when neither --variant-cflags nor CFLAGS gives them. */
#define MFB_VARBUILD_DEFAULT_FLAGS "-O2"

/* Fills s's build facts (compiler, flags, dir, key, cached, build_s) for s->path, s->symbol and
 * s->kind, from the cache or by building; flags_option is --variant-cflags (NULL: $CFLAGS, else the
 * default); dl the command's --deadline (NULL: the defaults). -1 with one line naming the file: the
 * compiler's first error, a symbol that is not a function the build can export, a link that needs
 * more than the C library, a step past its deadline, or a stop request (programs/stop.h), after
 * which nothing of the build is left. */
int mfb_varbuild(struct mfb_source *s, const char *flags_option, const struct mfb_deadlines *dl, struct mfb_err *err);

/* The files a built source variant s was made from, added to in: its file and, for FILE.c, every
 * header it included (its manifest's). The headers are known once it is built (or found built):
 * a command checks its outputs against its other inputs before the build, and against these
 * after it, before it writes anything. 0, or -1 with err (out of memory). */
int mfb_varbuild_add_inputs(const struct mfb_source *s, struct mfb_inputs *in, struct mfb_err *err);

/* What `$CC --version` says (up to cap bytes), CC as every build takes it (default cc): 0, or -1 with one line
 * naming spec (the variant asking) when it cannot be run. */
int mfb_varbuild_cc_version(const char *spec, const struct mfb_deadlines *dl, char *out, size_t cap,
                            struct mfb_err *err);
/* mkdir -p of path, for the cache's folders (variants/, profiles/): 0, or -1 with errno. */
int mfb_make_dirs(const char *path);

#endif
