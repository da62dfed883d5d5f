/* One code placement of the built-ins (base/code_placement.h): the same sources and flags as copy.c,
 * set.c, compare.c, x86.c and the AArch64 files, with every function renamed NAME_pK and the text opened at this
 * placement's offset in a page. The build compiles this file once per placement, with
 * -DMFB_PLACEMENT=K. Its table lists the built-ins' code in this placement, in impl/builtins.h's order. */
#include "base/code_placement.h"

MFB_PLACEMENT_PAD(MFB_PLACEMENT);

#define MFB_RENAME_SUFFIX MFB_CAT(_p, MFB_PLACEMENT)
#include "impl/rename.h"

#include "compare.c"
#include "copy.c"
#include "known_cost.c"
#include "set.c"
#include "x86.c"
#if defined(__aarch64__)
#include "memcmp_asimd.c"
#include "memcpy_asimd.c"
#include "memcpy_mops.c"
#include "memcpy_sve.c"
#include "memset_asimd.c"
#include "memset_zva.c"
#endif

#include "impl/builtins.h"
#include "impl/code_placements.h"

#define PLACED_ENTRY(member, name) {.member = name},
const union mfb_fn MFB_CAT(mfb_builtins_p, MFB_PLACEMENT)[] = {MFB_BUILTINS(PLACED_ENTRY)};
