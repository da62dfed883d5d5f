/* One call as the timed loop replays it: a compact record of arena offsets, drawn before any
 * timed loop so the loop only reads it. Shared by the sampler that writes records, the working
 * set that sizes the array, the kernels that replay it and the correctness check. */
#ifndef MFB_CALL_H
#define MFB_CALL_H

#include <stdint.h>

/* size: bits 0..30 the byte count, bit 31 set for a large call (its offsets move per pass). */
#define MFB_SIZE_MASK 0x7fffffffu
#define MFB_CALL_LARGE 0x80000000u
/* Compare functions: aux bit 31 = compare equal, bit 30 = sign of the injected difference,
 * bits 0..29 = position of the first difference. memset: aux = the byte value. */
#define MFB_MIS_EQUAL_FLAG 0x80000000u
#define MFB_MIS_SIGN_FLAG 0x40000000u
#define MFB_MIS_POS_MASK 0x3fffffffu
/* Compare functions' buffers hold this byte everywhere, so any two offsets compare equal up to
 * the injected mismatch. */
#define MFB_COMPARE_FILL 0x5A

struct mfb_call {
    uint32_t size;
    uint32_t aux;
    uint32_t src; /* arena offsets; memset uses dst only */
    uint32_t dst;
};

/* Decoding of compare aux, shared by the timed loop and the correctness check:
 * the byte XORed into the right-hand buffer at the mismatch position (0 = compare equal). */
static inline uint32_t mfb_mis_pos(uint32_t aux)
{
    return aux & MFB_MIS_POS_MASK;
}

static inline unsigned char mfb_mis_flip(uint32_t aux)
{
    return (unsigned char)(((~aux >> 31) & 1u) << (6 + ((aux >> 30) & 1u)));
}

#endif
