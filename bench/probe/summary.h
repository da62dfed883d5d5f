/* The probe's terminal summary: the levels found against the sizes the system reports, and
 * bandwidth at one size inside each level. */
#ifndef MFB_PROBE_SUMMARY_H
#define MFB_PROBE_SUMMARY_H

#include <stdio.h>

#include "probe/result.h"

void mfb_probe_summary_print(FILE *out, const struct mfb_probe_config *cfg, const struct mfb_probe_result *r);

#endif
