/* Load latency against buffer size: a chain through the buffer's lines is walked once to warm
 * it, then walked again, timed, a number of times. */
#ifndef MFB_LATENCY_H
#define MFB_LATENCY_H

#include "probe/probe.h"

/* Measures curve c (its chase and pages set, its sizes in points[i].size) point by point;
 * progress(i) is called before each point. Stops early, with npoints cut to what was measured,
 * when *run->stop is set. */
int mfb_latency_curve(const struct mfb_probe_run *run, struct mfb_lat_curve *c, void (*progress)(const struct mfb_lat_curve *, size_t, void *),
                      void *ctx, struct mfb_err *err);

#endif
