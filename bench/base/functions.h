/* The memory functions memfbench measures and what each one needs from a workload. */
#ifndef MFB_FUNCTIONS_H
#define MFB_FUNCTIONS_H

#include <stdbool.h>

enum mfb_func { MFB_MEMCPY, MFB_MEMMOVE, MFB_MEMSET, MFB_MEMCMP, MFB_BCMP, MFB_FUNC_COUNT };

const char *mfb_func_name(enum mfb_func f);
int mfb_func_parse(const char *name, enum mfb_func *out);
/* Number of distinct buffers ("roles") a call touches: source and destination, or one for memset. */
int mfb_func_roles(enum mfb_func f);
/* Whether overlapping source/destination is defined behaviour (memmove) or meaningful (compare). */
bool mfb_func_allows_overlap(enum mfb_func f);
bool mfb_func_compares(enum mfb_func f);
/* Distribution file prefix of the fleet-wide table shipped for this function. */
const char *mfb_func_default_distribution(enum mfb_func f);

#endif
