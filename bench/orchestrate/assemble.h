/* Assembling a run from a study: its variants. Built-ins and their A/A copies are placed at the
 * code placements the process's layout gives them (a copy never at its original's), plugins are
 * loaded with the guard told which one is loading, and every name is checked to be new. */
#ifndef MFB_ASSEMBLE_H
#define MFB_ASSEMBLE_H

#include "base/error.h"
#include "measure/run.h"
#include "measure/study.h"

/* Fills r->vars from c->variants (or the function's default variants when none are given);
 * r->layout and r->activity must be set. -1 with the message in err on an unknown, unavailable
 * or repeated variant, or a plugin that does not load. */
int mfb_assemble_variants(struct mfb_run *r, const struct mfb_study *c, struct mfb_err *err);

#endif
