/* The result document (everything but the samples, which report/columns.c streams): configuration as
 * resolved, seeds, host, timer, distribution with checksums and self-check, working set,
 * calibration, variants with their code addresses, and the run's status. */
#ifndef MFB_DOCUMENT_H
#define MFB_DOCUMENT_H

#include <cJSON.h>

#include "measure/run.h"
#include "report/host.h"

#define MFB_SCHEMA_VERSION 3

/* The study's command line as given (argv), for the file's command_line: a single run's and a
 * merged file's. */
cJSON *mfb_command_line_json(const struct mfb_study *s);
cJSON *mfb_document(const struct mfb_run *r, const struct mfb_host *host);

/* Parts every memfbench file shares (the run's, the probe's): the tool and its build, the
 * clock, the warnings, and a 64-bit value as a decimal string (JSON numbers stop at 2^53). */
cJSON *mfb_tool_json(void);
cJSON *mfb_timer_json(const struct mfb_timer *t);
cJSON *mfb_warnings_json(const struct mfb_warnings *w);
void mfb_json_add_u64_string(cJSON *o, const char *key, uint64_t v);
/* A distribution's files as the result file lists them: role, path, sha256 each (also the counts
 * file's). */
cJSON *mfb_dist_files_json(const struct mfb_dist *d);

#endif
