#include "base/functions.h"

#include <stdio.h>
#include <string.h>

#include "base/parse.h"

static const struct mfb_func_traits traits[MFB_FUNC_COUNT] = {
    [MFB_MEMCPY] = {"memcpy", MFB_FAMILY_COPY, 2, false, MFB_AUX_NONE, MFB_RESULT_POINTER, "fleetbench/Memcpy_Fleet", "libc-wrapped"},
    [MFB_MEMMOVE] = {"memmove", MFB_FAMILY_COPY, 2, true, MFB_AUX_NONE, MFB_RESULT_POINTER,
                     "fleetbench/Memmove_Fleet", "sizeclass"},
    [MFB_MEMSET] = {"memset", MFB_FAMILY_SET, 1, false, MFB_AUX_FILL_BYTE, MFB_RESULT_POINTER,
                    "fleetbench/Memset_Fleet", "sizeclass"},
    [MFB_MEMCMP] = {"memcmp", MFB_FAMILY_COMPARE, 2, true, MFB_AUX_MISMATCH, MFB_RESULT_ORDER,
                    "fleetbench/Memcmp_Fleet", "words"},
    [MFB_BCMP] = {"bcmp", MFB_FAMILY_COMPARE, 2, true, MFB_AUX_MISMATCH, MFB_RESULT_EQUALITY,
                  "fleetbench/Bcmp_Fleet", "sizeclass"},
};

const struct mfb_func_traits *mfb_func_traits(enum mfb_func f)
{
    return &traits[f];
}

const char *mfb_func_name(enum mfb_func f)
{
    return traits[f].name;
}

int mfb_func_parse(const char *name, enum mfb_func *out)
{
    const char *names[MFB_FUNC_COUNT];
    for (int i = 0; i < MFB_FUNC_COUNT; i++)
        names[i] = traits[i].name;
    int i = mfb_parse_name(name, names, MFB_FUNC_COUNT);
    if (i >= 0)
        *out = (enum mfb_func)i;
    return i < 0 ? -1 : 0;
}

const char *mfb_func_names(char *out, size_t cap)
{
    size_t at = 0;
    out[0] = '\0';
    for (int i = 0; i < MFB_FUNC_COUNT && at < cap; i++)
        at += (size_t)snprintf(out + at, cap - at, "%s%s",
                               i == 0 ? "" : i == MFB_FUNC_COUNT - 1 ? " or " : ", ", traits[i].name);
    return out;
}

int mfb_func_roles(enum mfb_func f)
{
    return traits[f].roles;
}

bool mfb_func_allows_overlap(enum mfb_func f)
{
    return traits[f].overlap_defined;
}

bool mfb_func_compares(enum mfb_func f)
{
    return traits[f].family == MFB_FAMILY_COMPARE;
}

const char *mfb_func_default_distribution(enum mfb_func f)
{
    return traits[f].default_distribution;
}
