/* The built-ins' code placements (base/code_placement.h, impl/placed.c): a variant whose code is a
 * built-in can be moved to any of them. */
#ifndef MFB_CODE_PLACEMENTS_H
#define MFB_CODE_PLACEMENTS_H

#include <stdbool.h>

#include "base/code_placement.h"
#include "impl/variants.h"

/* Moves v's code to placement k (below MFB_CODE_PLACEMENTS) when it is a built-in, a copy of one
 * or a known-cost wrapper; false, v unchanged, for any other code (libc, plugins), which memfbench
 * cannot compile again, and for the noop and probes, which measure the harness. */
bool mfb_variant_place(struct mfb_variant *v, unsigned k);

#endif
