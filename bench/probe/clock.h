/* The core clock while the probe runs, measured rather than read: a chain of dependent integer
 * adds takes one core cycle per add on every x86-64 and AArch64 core, so adds per nanosecond
 * is the core's frequency, turbo and VM included, which /proc/cpuinfo does not tell. */
#ifndef MFB_CLOCK_H
#define MFB_CLOCK_H

#include <stdbool.h>

#include "machine/timer.h"

struct mfb_core_clock {
    bool known;        /* false on other architectures: cycles are then not reported */
    double ghz;        /* median of the repeats */
    double ghz_min, ghz_max;
    unsigned repeats;
};

void mfb_core_clock_measure(struct mfb_core_clock *c, const struct mfb_timer *t);

#endif
