#include "base/functions.h"

#include "base/parse.h"

static const char *const names[MFB_FUNC_COUNT] = {"memcpy", "memmove", "memset", "memcmp", "bcmp"};
static const char *const fleet[MFB_FUNC_COUNT] = {"fleetbench/Memcpy_Fleet", "fleetbench/Memmove_Fleet",
                                                  "fleetbench/Memset_Fleet", "fleetbench/Memcmp_Fleet",
                                                  "fleetbench/Bcmp_Fleet"};

const char *mfb_func_name(enum mfb_func f)
{
    return names[f];
}

int mfb_func_parse(const char *name, enum mfb_func *out)
{
    int i = mfb_parse_name(name, names, MFB_FUNC_COUNT);
    if (i >= 0)
        *out = (enum mfb_func)i;
    return i < 0 ? -1 : 0;
}

int mfb_func_roles(enum mfb_func f)
{
    return f == MFB_MEMSET ? 1 : 2;
}

bool mfb_func_allows_overlap(enum mfb_func f)
{
    return f == MFB_MEMMOVE || f == MFB_MEMCMP || f == MFB_BCMP;
}

bool mfb_func_compares(enum mfb_func f)
{
    return f == MFB_MEMCMP || f == MFB_BCMP;
}

const char *mfb_func_default_distribution(enum mfb_func f)
{
    return fleet[f];
}
