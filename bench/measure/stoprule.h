/* --target-ci: the rounds stop once every comparison's 95 % sign-test interval of the paired
 * ratio to the baseline is within +-P %. The analysis package computes the same interval
 * (tests/py/test_signtest_agreement.py). */
#ifndef MFB_STOPRULE_H
#define MFB_STOPRULE_H

#include <stddef.h>

#include "base/error.h"
#include "measure/run.h"

struct mfb_stoprule {
    double *scratch; /* one log ratio per measured round */
    size_t cap;
};

/* Recomputes r->stop.target_widths and r->stop.target_reached from the measured rounds. */
int mfb_stoprule_check(struct mfb_stoprule *s, struct mfb_run *r, struct mfb_err *err);
void mfb_stoprule_free(struct mfb_stoprule *s);

#endif
