/* The probe file (docs/schema/memfbench-probe.schema.json). */
#ifndef MFB_PROBE_FILE_H
#define MFB_PROBE_FILE_H

#include <cJSON.h>

#include "machine/cache.h"
#include "probe/result.h"
#include "report/host.h"

/* 2: cross_check, and caches_found names each level's source (l1d_from, l2_from, llc_from). */
#define MFB_PROBE_SCHEMA_VERSION 2

cJSON *mfb_probe_document(const struct mfb_probe_config *cfg, const struct mfb_probe_result *r,
                          const struct mfb_timer *t, const struct mfb_host *host);

#endif
