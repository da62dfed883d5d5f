/* memfbench tune's built-in families: each a parametric C source shipped in families/ and the grid
 * of its macros' values, as data (a family is a row). */
#ifndef MFB_TUNE_FAMILY_H
#define MFB_TUNE_FAMILY_H

#include "base/functions.h"
#include "study/params.h"

struct mfb_tune_family {
    const char *name;                   /* --family NAME */
    enum mfb_func func;
    const char *file;                   /* under the source folder (MFB_SOURCE_ROOT) */
    const char *symbol;
    const char *params[MFB_PARAMS_MAX]; /* --param rows: "NAME=V1,V2,..." (NULL where unused) */
    const char *about;                  /* for --help and --family list */
};

/* The family named name, or NULL. */
const struct mfb_tune_family *mfb_tune_family_find(const char *name);
/* The family's source as -v takes it, FILE.c:SYMBOL=family with FILE under the source folder, into
 * out (cap bytes). */
void mfb_tune_family_spec(const struct mfb_tune_family *f, char *out, size_t cap);
/* The families, for --help: *n rows. */
const struct mfb_tune_family *mfb_tune_families(int *n);

#endif
