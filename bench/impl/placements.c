#include "impl/placements.h"

#include <string.h>

#include "impl/builtins.h"
#include "impl/impl.h"

#define DECLARE_PLACEMENT(k) extern const union mfb_fn mfb_builtins_p##k[];
DECLARE_PLACEMENT(0)
DECLARE_PLACEMENT(1)
DECLARE_PLACEMENT(2)
DECLARE_PLACEMENT(3)
DECLARE_PLACEMENT(4)
DECLARE_PLACEMENT(5)
DECLARE_PLACEMENT(6)
DECLARE_PLACEMENT(7)

_Static_assert(MFB_CODE_PLACEMENTS == 8, "one table per placement below");
static const union mfb_fn *const placements[MFB_CODE_PLACEMENTS] = {
    mfb_builtins_p0, mfb_builtins_p1, mfb_builtins_p2, mfb_builtins_p3,
    mfb_builtins_p4, mfb_builtins_p5, mfb_builtins_p6, mfb_builtins_p7,
};

/* The built-ins as compiled once (copy.c, set.c, ...), in the placements' order. */
#define BASE_ENTRY(member, name) {.member = name},
static const union mfb_fn builtins[] = {MFB_BUILTINS(BASE_ENTRY)};

static bool same_fn(union mfb_fn a, union mfb_fn b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

bool mfb_variant_place(struct mfb_variant *v, unsigned k)
{
    const struct mfb_variant *code = v;
    if (v->origin == MFB_ORIGIN_COPY && v->copy_of)
        code = mfb_variant_find(v->func, v->copy_of);
    else if (v->origin != MFB_ORIGIN_BUILTIN && v->origin != MFB_ORIGIN_VALIDATION)
        return false;
    if (!code || k >= MFB_CODE_PLACEMENTS)
        return false;
    for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++)
        if (same_fn(builtins[i], code->fn)) {
            v->fn = placements[k][i];
            return true;
        }
    return false;
}
