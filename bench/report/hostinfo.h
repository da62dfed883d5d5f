/* Host context read at run time (CPU, caches, frequency policy, SMT, THP, ASLR, load, kernel),
 * and the environment checks that warn, with how to fix, when it invites noise. */
#ifndef MFB_HOSTINFO_H
#define MFB_HOSTINFO_H

#include "base/warn.h"
#include "machine/cache.h"
#include "report/host.h"

/* The host as the run sees it (cpu: the CPU the run is pinned to, -1: not pinned), with the
 * environment checks' warnings into w. */
void mfb_host_read(struct mfb_host *h, const struct mfb_caches *c, int cpu, struct mfb_warnings *w);
/* First "model name" of /proc/cpuinfo, for the summary. */
void mfb_cpu_model(char *buf, size_t n);

#endif
