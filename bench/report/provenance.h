/* provenance.json of a recorded folder (memfbench record, merge): what made it, when, and how many
 * calls each function's tables hold. */
#ifndef MFB_PROVENANCE_H
#define MFB_PROVENANCE_H

#include <cJSON.h>

#include "workload/recording.h"

/* The common head: schema, version, tool, created_utc. */
cJSON *mfb_provenance_new(void);
/* "calls": {FUNCTION: {calls, sampled}} for every function with calls. */
void mfb_provenance_add_calls(cJSON *p, const struct mfb_recording *rec);

#endif
