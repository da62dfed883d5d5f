/* The closed sets a study chooses from, each an enum and the names the command line and the
 * result file give its values. The mechanisms (machine/, measure/) include this header for the
 * enum alone; the option table (study/options.c) parses and echoes every set through the same
 * names, so an option's accepted words, its messages and the file's values cannot disagree. */
#ifndef MFB_CHOICES_H
#define MFB_CHOICES_H

#include "base/code_placement.h"
#include "workload/sampler.h"

/* --background: a stressor on the CPUs the timing threads leave. */
enum mfb_stressor {
    MFB_STRESS_NONE,
    MFB_STRESS_BANDWIDTH, /* libc memcpy between two buffers far beyond the LLC: memory bandwidth and LLC */
    MFB_STRESS_SPIN       /* dependent register adds: the core's ports (an SMT sibling), no memory */
};

/* --counters: off (the default: reading the counters is a system call between the priming pass
 * and the timed batch, which disturbs the very state the priming set up, so a run counts only when
 * asked), auto (count if the PMU allows, else a note), on (the same, but a warning when it does
 * not), fake (the clock-derived source, for tests). */
enum mfb_counters_mode { MFB_COUNTERS_OFF, MFB_COUNTERS_AUTO, MFB_COUNTERS_ON, MFB_COUNTERS_FAKE, MFB_COUNTERS_MODES };

/* What --clock asks for: the best trustworthy clock (auto), the cycle counter by its name on
 * this architecture (tsc, cntvct, or counter for either), or clock_gettime. */
enum mfb_clock_request { MFB_CLOCK_AUTO, MFB_CLOCK_TSC, MFB_CLOCK_CNTVCT, MFB_CLOCK_ANY_COUNTER, MFB_CLOCK_MONOTONIC_RAW };

/* --placement: where every call's data lies (auto: small calls in L1, large ones beyond the LLC). */
enum mfb_placement { MFB_PL_AUTO, MFB_PL_L1, MFB_PL_L2, MFB_PL_LLC, MFB_PL_DRAM };

/* The sets, for the two functions below. */
enum mfb_choice_set {
    MFB_SET_STRESSOR,   /* enum mfb_stressor */
    MFB_SET_COUNTERS,   /* enum mfb_counters_mode */
    MFB_SET_CLOCK,      /* enum mfb_clock_request */
    MFB_SET_PLACEMENT,  /* enum mfb_placement */
    MFB_SET_ALIGN_MODE, /* enum mfb_align_mode (workload/sampler.h) */
    MFB_SET_ROTATION,   /* enum mfb_code_rotation (base/code_placement.h) */
    MFB_SET_COUNT
};

/* How many values set s has (its names are values 0 .. count - 1). */
int mfb_choice_count(enum mfb_choice_set s);
/* The name of value v of set s, as the result file writes it. */
const char *mfb_choice_name(enum mfb_choice_set s, int v);
/* The value named word among those an option accepts (a stressor is never "none"), or -1. */
int mfb_choice_parse(enum mfb_choice_set s, const char *word);

#endif
