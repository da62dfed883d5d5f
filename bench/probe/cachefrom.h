/* What `run --cache-from` reads back from a probe file: its caches_found (written by
 * probe/file.c from probe/found.c). Needs nothing of the probe but the file: the fuzz target
 * tests/fuzz/fuzz_probe_file.c compiles this file alone. */
#ifndef MFB_CACHEFROM_H
#define MFB_CACHEFROM_H

#include "base/error.h"
#include "machine/cache.h"

/* The cache sizes of path's caches_found (plain or gzip JSON). Fails, naming the file and the
 * field, on a file that is not a probe file, has none (a level the probe could not check), or whose
 * sizes are not whole byte counts with l1d < l2 <= llc. */
int mfb_probe_read_caches(const char *path, struct mfb_caches *c, struct mfb_err *err);

#endif
