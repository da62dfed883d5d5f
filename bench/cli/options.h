/* Command-line parsing of `memfbench run` into a study description (measure/study.h), with
 * defaults left unresolved (0/NULL/-1) so the run can record what it resolved them to. */
#ifndef MFB_OPTIONS_H
#define MFB_OPTIONS_H

#include <stdio.h>

#include "base/error.h"
#include "measure/study.h"

void mfb_options_usage(FILE *out);
/* Returns 0 to run, 1 when --help was printed, -1 on a bad command line (message in err). */
int mfb_options_parse(int argc, char **argv, struct mfb_study *s, struct mfb_err *err);

#endif
