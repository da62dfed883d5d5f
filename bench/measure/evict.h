/* Eviction: large calls' lines taken out of every cache level before their timed batch, outside
 * the timer, so a large call reads and writes memory on any cache geometry without a window
 * larger than the LLC. A window sized against the LLC (4 x LLC per buffer) cost a 2 GiB arena on
 * the VMs whose CPUID reports a socket's L3 of 260-508 MiB to every core, 1.3-1.5 s of set-up per
 * process, and could not be built at all for a 1 GiB L3; flushing exactly the lines the timed
 * passes will touch costs 2-4 ns per line there (docs/cost.md) and holds whatever the LLC is.
 * Only where the architecture has no user-mode flush does the window fall back to its size. */
#ifndef MFB_EVICT_H
#define MFB_EVICT_H

#include <stdbool.h>
#include <stdint.h>

#include "base/target.h"
#include "measure/kernels.h"

/* Flushes the lines holding base + off[i] for i < n, then waits until they have left every cache;
 * false (and nothing done) where user code may not flush (machine/flush.h). */
bool mfb_evict_lines(uint8_t *base, const uint32_t *off, uint64_t n);

/* The bytes a large call of a batch touches in one role: [at, at + len). */
struct mfb_span {
    uint8_t *at;
    uint64_t len;
};

/* Calls fn for every span the large calls of b's passes touch (each role a call reads or writes:
 * destination, and source unless roles is 1), in the order the kernel makes them, with the
 * addresses the kernel computes (mfb_pass_shift). Small calls are skipped: they live in L1 by
 * design. */
void mfb_evict_spans(const struct mfb_batch *b, int roles, void (*fn)(const struct mfb_span *s, void *ctx),
                     void *ctx);

/* Flushes every line the large calls of b's passes will touch, one smallest data-cache line apart
 * (machine/flush.h), and waits for the flushes; returns the flushes made (0 where user code may
 * not flush). */
uint64_t mfb_evict_batch(const struct mfb_batch *b, int roles);

#endif
