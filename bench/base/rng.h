/* Seeded pseudo-random numbers: xoshiro256** seeded through splitmix64.
 * Every random choice of a run flows from one 64-bit seed, recorded in the output. */
#ifndef MFB_RNG_H
#define MFB_RNG_H

#include <stdint.h>

struct mfb_rng {
    uint64_t s[4];
};

void mfb_rng_seed(struct mfb_rng *r, uint64_t seed);

/* The next 64 bits. Inline: it is a handful of operations, and the sampler, the self-check and
 * the correctness check's buffer fills call it once per word; as a call it was a fifth of the
 * first process's verification (perf, Intel VM family 6 model 167). */
static inline uint64_t mfb_rng_next(struct mfb_rng *r)
{
    uint64_t *s = r->s;
    uint64_t x = s[1] * 5, result = ((x << 7) | (x >> 57)) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = (s[3] << 45) | (s[3] >> 19);
    return result;
}
/* Uniform integer in [0, n); n > 0. Unbiased (Lemire's multiply-and-reject). */
uint64_t mfb_rng_below(struct mfb_rng *r, uint64_t n);
/* Uniform double in [0, 1) with 53 random bits. */
double mfb_rng_unit(struct mfb_rng *r);
/* Derives an independent seed for a sub-stream (e.g. call parameters, variant order). */
uint64_t mfb_seed_derive(uint64_t seed, uint64_t stream);
/* A fresh seed from the kernel (getrandom), used when the user gives none. */
uint64_t mfb_seed_fresh(void);

#endif
