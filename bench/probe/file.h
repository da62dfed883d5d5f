/* The probe file (docs/schema/memfbench-probe.schema.json), and what `run --cache-from` reads
 * back from one. */
#ifndef MFB_PROBE_FILE_H
#define MFB_PROBE_FILE_H

#include <cJSON.h>

#include "measure/cache.h"
#include "probe/result.h"

#define MFB_PROBE_SCHEMA_VERSION 1

cJSON *mfb_probe_document(const struct mfb_probe_config *cfg, const struct mfb_probe_result *r,
                          const struct mfb_timer *t, cJSON *host);

/* The cache sizes a probe file found: its first boundary is the L1d, its second the L2, its
 * last (third or later) the LLC; with two, the L2 is also the LLC. Fails, naming the file and
 * field, on a file that is not a complete probe file with at least two boundaries. */
int mfb_probe_read_caches(const char *path, struct mfb_caches *c, struct mfb_err *err);

#endif
