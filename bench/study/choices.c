#include "study/choices.h"

#include <stddef.h>

#include "base/parse.h"

/* Each set's names in its enum's order, and the first an option accepts. */
struct choice_table {
    const char *const *names;
    int first, n;
};

static const char *const stressors[] = {[MFB_STRESS_NONE] = "none", [MFB_STRESS_BANDWIDTH] = "bandwidth",
                                        [MFB_STRESS_SPIN] = "spin"};
static const char *const counters[] = {[MFB_COUNTERS_OFF] = "off", [MFB_COUNTERS_AUTO] = "auto",
                                       [MFB_COUNTERS_ON] = "on", [MFB_COUNTERS_FAKE] = "fake"};
static const char *const clocks[] = {[MFB_CLOCK_AUTO] = "auto", [MFB_CLOCK_TSC] = "tsc", [MFB_CLOCK_CNTVCT] = "cntvct",
                                     [MFB_CLOCK_ANY_COUNTER] = "counter", [MFB_CLOCK_MONOTONIC_RAW] = "monotonic"};
static const char *const placements[] = {[MFB_PL_AUTO] = "auto", [MFB_PL_L1] = "l1", [MFB_PL_L2] = "l2",
                                         [MFB_PL_LLC] = "llc", [MFB_PL_DRAM] = "dram"};
static const char *const align_modes[] = {[MFB_ALIGN_EXACT] = "exact", [MFB_ALIGN_AT_LEAST] = "at-least"};
static const char *const rotations[] = {[MFB_ROTATE_ROUND] = "round", [MFB_ROTATE_PROCESS] = "process"};

#define TABLE(names, first) {names, first, (int)(sizeof names / sizeof names[0])}

static const struct choice_table tables[MFB_SET_COUNT] = {
    [MFB_SET_STRESSOR] = TABLE(stressors, MFB_STRESS_BANDWIDTH),
    [MFB_SET_COUNTERS] = TABLE(counters, 0),
    [MFB_SET_CLOCK] = TABLE(clocks, 0),
    [MFB_SET_PLACEMENT] = TABLE(placements, 0),
    [MFB_SET_ALIGN_MODE] = TABLE(align_modes, 0),
    [MFB_SET_ROTATION] = TABLE(rotations, 0),
};

int mfb_choice_count(enum mfb_choice_set s)
{
    return tables[s].n;
}

const char *mfb_choice_name(enum mfb_choice_set s, int v)
{
    return v >= 0 && v < tables[s].n ? tables[s].names[v] : "?";
}

int mfb_choice_parse(enum mfb_choice_set s, const char *word)
{
    const struct choice_table *t = &tables[s];
    int i = mfb_parse_name(word, t->names + t->first, t->n - t->first);
    return i < 0 ? -1 : i + t->first;
}
