/* The replay loop `memfbench counts` runs under valgrind's callgrind: one pass over drawn calls,
 * in a function of its own so that callgrind's --toggle-collect counts this loop and what it calls
 * and nothing else (not the set-up, the sampler or the verification). */
#ifndef MFB_COUNTED_H
#define MFB_COUNTED_H

#include <stddef.h>
#include <stdint.h>

#include "impl/variants.h"
#include "workload/call.h"

/* The symbol the parent names to --toggle-collect; a test checks it is the function's name. */
#define MFB_COUNTED_LOOP_SYMBOL "mfb_counted_loop"

struct mfb_counted {
    const struct mfb_variant *variant;
    unsigned char *base;           /* the arena the calls' offsets point into */
    const struct mfb_call *calls;
    size_t n;
};

/* The same pass, not counted: it leaves the simulated caches and predictor as the counted pass's
 * previous pass would (the rounds of a timed run never start cold either). */
uint64_t mfb_counted_warm(const struct mfb_counted *c);
/* The counted pass. Returns a value built from every result, so no call can be dropped. */
uint64_t mfb_counted_loop(const struct mfb_counted *c);

#endif
