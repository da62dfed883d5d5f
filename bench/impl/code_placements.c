#include "impl/code_placements.h"

#include <string.h>

#include "impl/builtins.h"
#include "impl/impl.h"

#define DECLARE_PLACEMENT(k) extern const union mfb_fn mfb_builtins_p##k[];
MFB_EACH_PLACEMENT(DECLARE_PLACEMENT)

#define PLACEMENT_TABLE(k) mfb_builtins_p##k,
static const union mfb_fn *const placements[MFB_CODE_PLACEMENTS] = {MFB_EACH_PLACEMENT(PLACEMENT_TABLE)};

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
