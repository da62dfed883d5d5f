/* The bandwidth kernels: read, write and copy at the widest vector the CPU has, non-temporal
 * writes and copies, and rep movsb. Each streams once through its buffers. */
#ifndef MFB_STREAMS_H
#define MFB_STREAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum mfb_stream_kernel {
    MFB_STREAM_READ,      /* loads only, folded into a few accumulators */
    MFB_STREAM_WRITE,     /* stores only */
    MFB_STREAM_COPY,      /* a load and a store per vector: what memcpy does at its best */
    MFB_STREAM_WRITE_NT,  /* non-temporal stores: no read-for-ownership, around the caches */
    MFB_STREAM_COPY_NT,   /* loads and non-temporal stores */
    MFB_STREAM_REP_MOVSB, /* the string copy instruction, as ERMS/FSRM memcpy use it */
    MFB_STREAM_KERNEL_COUNT
};

/* The kernel's name in the probe file ("read", "write", "copy", "write_nt", "copy_nt", "rep_movsb"). */
const char *mfb_stream_kernel_name(enum mfb_stream_kernel k);
/* Whether the kernel copies (two buffers of half the footprint each). */
bool mfb_stream_kernel_copies(enum mfb_stream_kernel k);

enum mfb_vector { MFB_VECTOR_SCALAR, MFB_VECTOR_SSE2, MFB_VECTOR_AVX2, MFB_VECTOR_AVX512, MFB_VECTOR_COUNT };

/* The width's name ("scalar64", "sse2", "avx2", "avx512") and bytes (8, 16, 32, 64). */
const char *mfb_vector_name(enum mfb_vector v);
size_t mfb_vector_bytes(enum mfb_vector v);
/* The widest vector this CPU and this build support. */
enum mfb_vector mfb_vector_best(void);

/* Kernel k at width v, or NULL where the CPU lacks it (rep movsb outside x86-64, or a width
 * above mfb_vector_best()). bytes is a multiple of MFB_STREAM_GRAIN; both buffers are aligned to
 * 64 bytes. The non-temporal kernels do not fence: see mfb_stream_fence. Returns a value folded from what was read (0 for kernels that only write). */
typedef uint64_t (*mfb_stream_fn)(void *dst, const void *src, size_t bytes);
mfb_stream_fn mfb_stream_kernel(enum mfb_stream_kernel k, enum mfb_vector v);

enum { MFB_STREAM_GRAIN = 512 }; /* the largest unrolled step: eight 64-byte vectors */

/* Orders the non-temporal stores before what follows (sfence): called once after a round's
 * passes, before the clock is read, as STREAM and likwid-bench fence once per timed loop and not
 * once per pass (per pass, at 16 KiB, it cost 20-34 % of the rate). */
void mfb_stream_fence(void);

#endif
