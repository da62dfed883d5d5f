/* The short human summary printed on stderr at the end of a run. The Python analysis computes
 * the full statistics; this is the at-a-glance view. */
#ifndef MFB_SUMMARY_H
#define MFB_SUMMARY_H

#include <stdio.h>

#include "measure/run.h"

/* The command that analyses a result file, as one line. */
void mfb_summary_analysis_command(FILE *out, const char *result_path);
void mfb_summary_print(FILE *out, const struct mfb_run *r, const char *output_path);

#endif
