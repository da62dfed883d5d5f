/* Seeded pseudo-random numbers: xoshiro256** seeded through splitmix64.
 * Every random choice of a run flows from one 64-bit seed, recorded in the output. */
#ifndef MFB_RNG_H
#define MFB_RNG_H

#include <stdint.h>

struct mfb_rng {
    uint64_t s[4];
};

void mfb_rng_seed(struct mfb_rng *r, uint64_t seed);
uint64_t mfb_rng_next(struct mfb_rng *r);
/* Uniform integer in [0, n); n > 0. Unbiased (Lemire's multiply-and-reject). */
uint64_t mfb_rng_below(struct mfb_rng *r, uint64_t n);
/* Uniform double in [0, 1) with 53 random bits. */
double mfb_rng_unit(struct mfb_rng *r);
/* Derives an independent seed for a sub-stream (e.g. call parameters, variant order). */
uint64_t mfb_seed_derive(uint64_t seed, uint64_t stream);
/* A fresh seed from the kernel (getrandom), used when the user gives none. */
uint64_t mfb_seed_fresh(void);

#endif
