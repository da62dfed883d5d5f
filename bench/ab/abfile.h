/* The result file of memfbench ab (docs/schema/memfbench-ab.schema.json): what ran, where, and
 * every run's times in the order they ran. */
#ifndef MFB_ABFILE_H
#define MFB_ABFILE_H

#include <cJSON.h>

#include "ab/ab.h"

/* argv: the program's command line; cmd: memfbench's own. host: the host block (taken). */
cJSON *mfb_ab_document(const struct mfb_ab *ab, char **argv, int argc, char **cmd, int ncmd, cJSON *host);

#endif
