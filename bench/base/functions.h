/* The memory functions memfbench measures and what each one needs from a workload: one row of
 * traits per function (functions.c). Code that differs between functions asks for the trait it
 * depends on (a family, the roles, the auxiliary parameter, the result's meaning), never for a
 * function by name, so a new function of an existing family is one row. */
#ifndef MFB_FUNCTIONS_H
#define MFB_FUNCTIONS_H

#include <stdbool.h>
#include <stddef.h>

enum mfb_func { MFB_MEMCPY, MFB_MEMMOVE, MFB_MEMSET, MFB_MEMCMP, MFB_BCMP, MFB_FUNC_COUNT };

/* What a call does, and so which timed loop and which reference check it takes. */
enum mfb_family {
    MFB_FAMILY_COPY,    /* dst <- src, returns dst */
    MFB_FAMILY_SET,     /* dst <- one byte, returns dst */
    MFB_FAMILY_COMPARE  /* reads two buffers, returns how they compare */
};

/* The call's third argument beside the pointers and the size (a call record's aux field). */
enum mfb_aux {
    MFB_AUX_NONE,
    MFB_AUX_FILL_BYTE, /* the byte written (memset's c) */
    MFB_AUX_MISMATCH   /* where and how the compared buffers differ (workload/call.h) */
};

/* What a compare's result means, for the correctness check. */
enum mfb_result {
    MFB_RESULT_POINTER,  /* copy and set: the destination */
    MFB_RESULT_ORDER,    /* memcmp: the sign orders the first differing bytes */
    MFB_RESULT_EQUALITY  /* bcmp: zero or not, the sign is free */
};

struct mfb_func_traits {
    const char *name;                 /* the C symbol, also the option value and the file name */
    enum mfb_family family;
    int roles;                        /* buffers a call touches: source and destination, or one */
    bool overlap_defined;             /* overlapping buffers are allowed (memmove, the compares) */
    enum mfb_aux aux;
    enum mfb_result result;
    const char *default_distribution; /* the fleet-wide table shipped for it */
    /* A built-in of the function that a study of prebuilt plugins adds, run from every code
     * placement, to measure how far identical code moves with its placement on this machine (a
     * plugin has one layout: orchestrate/assemble.c). memcpy's is the thin wrapper of libc's, the
     * shape that moved most with its alignment on the Zen 5 VM (about 2 %, where sizeclass moved
     * too little to measure); the other functions have no such wrapper and take a built-in. */
    const char *layout_sentinel;
};

const struct mfb_func_traits *mfb_func_traits(enum mfb_func f);
const char *mfb_func_name(enum mfb_func f);
int mfb_func_parse(const char *name, enum mfb_func *out);
/* Room for every name in one list (MFB_FUNC_COUNT names of under 16 characters and separators). */
#define MFB_FUNC_NAMES_CAP 128
/* Writes "memcpy, memmove, memset, memcmp or bcmp" (every name, for messages) into out; returns out. */
const char *mfb_func_names(char *out, size_t cap);
/* Number of distinct buffers ("roles") a call touches: source and destination, or one for memset. */
int mfb_func_roles(enum mfb_func f);
/* Whether overlapping source/destination is defined behaviour (memmove) or meaningful (compare). */
bool mfb_func_allows_overlap(enum mfb_func f);
bool mfb_func_compares(enum mfb_func f);
/* Distribution file prefix of the fleet-wide table shipped for this function. */
const char *mfb_func_default_distribution(enum mfb_func f);

#endif
