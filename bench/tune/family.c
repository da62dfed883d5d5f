#include "tune/family.h"

#include <stdio.h>
#include <string.h>

#include "config.h"

/* The grid both generated families share: each macro's values (families/memcpy.c and memset.c say
 * what each chooses). */
#define GRID {"SMALL_MAX=16,32,64,128,256", "BLOCK=16,32,64", "ALIGN=0,1", "REP_FROM=0,1024,4096,16384"}

/* The generated memcpy: 5 small-size limits x 3 loop blocks x 2 alignments x 4 rep-movsb thresholds
 * = 120 candidates (families/memcpy.c says what each macro chooses). The values span what fleet
 * tables ask of a memcpy: most calls under 128 bytes, a tail to megabytes. */
static const struct mfb_tune_family families[] = {
    {.name = "memcpy",
     .func = MFB_MEMCPY,
     .file = "families/memcpy.c",
     .symbol = "family_memcpy",
     .params = GRID,
     .about = "120 memcpys: size classes up to SMALL_MAX, a BLOCK loop, ALIGN, rep movsb from REP_FROM"},
    /* The generated memset: the same grid for a store-only function (families/memset.c), rep
     * stosb in place of rep movsb. */
    {.name = "memset",
     .func = MFB_MEMSET,
     .file = "families/memset.c",
     .symbol = "family_memset",
     .params = GRID,
     .about = "120 memsets: the memcpy family's choices, rep stosb from REP_FROM"},
};

const struct mfb_tune_family *mfb_tune_family_find(const char *name)
{
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
        if (!strcmp(families[i].name, name))
            return &families[i];
    return NULL;
}

const struct mfb_tune_family *mfb_tune_families(int *n)
{
    *n = (int)(sizeof families / sizeof families[0]);
    return families;
}

void mfb_tune_family_spec(const struct mfb_tune_family *f, char *out, size_t cap)
{
    snprintf(out, cap, "%s/%s:%s=family", MFB_SOURCE_ROOT, f->file, f->symbol);
}
