/* The result document (everything but the samples, which report/columns.c streams): configuration as
 * resolved, seeds, host, timer, distribution with checksums and self-check, working set,
 * calibration, variants with their code addresses, and the run's status. */
#ifndef MFB_DOCUMENT_H
#define MFB_DOCUMENT_H

#include <cJSON.h>

#include "measure/run.h"

#define MFB_SCHEMA_VERSION 2

cJSON *mfb_document(const struct mfb_run *r, cJSON *host);

#endif
