#include "probe/streams.h"

#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

const char *mfb_stream_kernel_name(enum mfb_stream_kernel k)
{
    static const char *const names[] = {
        [MFB_STREAM_READ] = "read", [MFB_STREAM_WRITE] = "write", [MFB_STREAM_COPY] = "copy",
        [MFB_STREAM_WRITE_NT] = "write_nt", [MFB_STREAM_COPY_NT] = "copy_nt", [MFB_STREAM_REP_MOVSB] = "rep_movsb"};
    return names[k];
}

bool mfb_stream_kernel_copies(enum mfb_stream_kernel k)
{
    return k == MFB_STREAM_COPY || k == MFB_STREAM_COPY_NT || k == MFB_STREAM_REP_MOVSB;
}

const char *mfb_vector_name(enum mfb_vector v)
{
    static const char *const names[] = {[MFB_VECTOR_SCALAR] = "scalar64", [MFB_VECTOR_SSE2] = "sse2",
                                        [MFB_VECTOR_AVX2] = "avx2", [MFB_VECTOR_AVX512] = "avx512"};
    return names[v];
}

size_t mfb_vector_bytes(enum mfb_vector v)
{
    static const size_t bytes[] = {[MFB_VECTOR_SCALAR] = 8, [MFB_VECTOR_SSE2] = 16, [MFB_VECTOR_AVX2] = 32,
                                   [MFB_VECTOR_AVX512] = 64};
    return bytes[v];
}

/* Portable kernels on 64-bit words, for CPUs without the x86 vectors. The stores go through
 * memcpy of a word, which compilers emit as one store; -fno-builtin is not needed since a
 * loop of word stores of a varying value is not a memset. */
static uint64_t read_scalar(void *d, const void *s, size_t n)
{
    (void)d;
    const uint64_t *p = s;
    uint64_t a = 0, b = 0, c = 0, e = 0;
    for (size_t i = 0; i < n / 8; i += 4) {
        a ^= p[i];
        b ^= p[i + 1];
        c ^= p[i + 2];
        e ^= p[i + 3];
    }
    return a ^ b ^ c ^ e;
}

static uint64_t write_scalar(void *d, const void *s, size_t n)
{
    (void)s;
    volatile uint64_t *q = d; /* volatile: the loop stays stores, never a call to memset */
    for (size_t i = 0; i < n / 8; i++)
        q[i] = i;
    return 0;
}

static uint64_t copy_scalar(void *d, const void *s, size_t n)
{
    const volatile uint64_t *p = s;
    volatile uint64_t *q = d;
    for (size_t i = 0; i < n / 8; i++)
        q[i] = p[i];
    return 0;
}

#if defined(__x86_64__)
/* One function per kernel and width, each compiled for its instruction set so the build needs
 * no -march: the CPU check in mfb_vector_best() decides which may run. */
__attribute__((target("sse2"))) static uint64_t read_sse2(void *d, const void *s, size_t n)
{
    (void)d;
    const char *p = s;
    __m128i a = _mm_setzero_si128(), b = a, c = a, e = a;
    for (size_t i = 0; i < n; i += 64) {
        a = _mm_xor_si128(a, _mm_load_si128((const __m128i *)(p + i)));
        b = _mm_xor_si128(b, _mm_load_si128((const __m128i *)(p + i + 16)));
        c = _mm_xor_si128(c, _mm_load_si128((const __m128i *)(p + i + 32)));
        e = _mm_xor_si128(e, _mm_load_si128((const __m128i *)(p + i + 48)));
    }
    return (uint64_t)_mm_cvtsi128_si64(_mm_xor_si128(_mm_xor_si128(a, b), _mm_xor_si128(c, e)));
}

__attribute__((target("avx2"))) static uint64_t read_avx2(void *d, const void *s, size_t n)
{
    (void)d;
    const char *p = s;
    __m256i a = _mm256_setzero_si256(), b = a, c = a, e = a;
    for (size_t i = 0; i < n; i += 128) {
        a = _mm256_xor_si256(a, _mm256_load_si256((const __m256i *)(p + i)));
        b = _mm256_xor_si256(b, _mm256_load_si256((const __m256i *)(p + i + 32)));
        c = _mm256_xor_si256(c, _mm256_load_si256((const __m256i *)(p + i + 64)));
        e = _mm256_xor_si256(e, _mm256_load_si256((const __m256i *)(p + i + 96)));
    }
    __m256i x = _mm256_xor_si256(_mm256_xor_si256(a, b), _mm256_xor_si256(c, e));
    return (uint64_t)_mm_cvtsi128_si64(_mm_xor_si128(_mm256_castsi256_si128(x), _mm256_extracti128_si256(x, 1)));
}

/* Eight vectors per iteration into eight accumulators: the L1 delivers two loads per cycle, and
 * with four per iteration the loop's own add, compare and branch held it to 226 GB/s at 16 KiB
 * where likwid-bench's unrolled load kernel reads 330 (docs/probe.md). */
__attribute__((target("avx512f"))) static uint64_t read_avx512(void *d, const void *s, size_t n)
{
    (void)d;
    const char *p = s;
    __m512i a = _mm512_setzero_si512(), b = a, c = a, e = a, f = a, g = a, h = a, k = a;
    for (size_t i = 0; i < n; i += 512) {
        a = _mm512_xor_si512(a, _mm512_load_si512(p + i));
        b = _mm512_xor_si512(b, _mm512_load_si512(p + i + 64));
        c = _mm512_xor_si512(c, _mm512_load_si512(p + i + 128));
        e = _mm512_xor_si512(e, _mm512_load_si512(p + i + 192));
        f = _mm512_xor_si512(f, _mm512_load_si512(p + i + 256));
        g = _mm512_xor_si512(g, _mm512_load_si512(p + i + 320));
        h = _mm512_xor_si512(h, _mm512_load_si512(p + i + 384));
        k = _mm512_xor_si512(k, _mm512_load_si512(p + i + 448));
    }
    __m512i x = _mm512_xor_si512(_mm512_xor_si512(_mm512_xor_si512(a, b), _mm512_xor_si512(c, e)),
                                 _mm512_xor_si512(_mm512_xor_si512(f, g), _mm512_xor_si512(h, k)));
    return (uint64_t)_mm512_reduce_add_epi64(x);
}

__attribute__((target("sse2"))) static uint64_t write_sse2(void *d, const void *s, size_t n)
{
    (void)s;
    char *q = d;
    __m128i v = _mm_set1_epi8(0x5a);
    for (size_t i = 0; i < n; i += 16)
        _mm_store_si128((__m128i *)(q + i), v);
    return 0;
}

__attribute__((target("avx2"))) static uint64_t write_avx2(void *d, const void *s, size_t n)
{
    (void)s;
    char *q = d;
    __m256i v = _mm256_set1_epi8(0x5a);
    for (size_t i = 0; i < n; i += 32)
        _mm256_store_si256((__m256i *)(q + i), v);
    return 0;
}

__attribute__((target("avx512f"))) static uint64_t write_avx512(void *d, const void *s, size_t n)
{
    (void)s;
    char *q = d;
    __m512i v = _mm512_set1_epi32(0x5a5a5a5a);
    /* four stores per iteration: one per iteration left the loop's overhead in the L1 rate */
    for (size_t i = 0; i < n; i += 256) {
        _mm512_store_si512(q + i, v);
        _mm512_store_si512(q + i + 64, v);
        _mm512_store_si512(q + i + 128, v);
        _mm512_store_si512(q + i + 192, v);
    }
    return 0;
}

__attribute__((target("sse2"))) static uint64_t copy_sse2(void *d, const void *s, size_t n)
{
    char *q = d;
    const char *p = s;
    for (size_t i = 0; i < n; i += 16)
        _mm_store_si128((__m128i *)(q + i), _mm_load_si128((const __m128i *)(p + i)));
    return 0;
}

__attribute__((target("avx2"))) static uint64_t copy_avx2(void *d, const void *s, size_t n)
{
    char *q = d;
    const char *p = s;
    for (size_t i = 0; i < n; i += 32)
        _mm256_store_si256((__m256i *)(q + i), _mm256_load_si256((const __m256i *)(p + i)));
    return 0;
}

__attribute__((target("avx512f"))) static uint64_t copy_avx512(void *d, const void *s, size_t n)
{
    char *q = d;
    const char *p = s;
    for (size_t i = 0; i < n; i += 256) {
        _mm512_store_si512(q + i, _mm512_load_si512(p + i));
        _mm512_store_si512(q + i + 64, _mm512_load_si512(p + i + 64));
        _mm512_store_si512(q + i + 128, _mm512_load_si512(p + i + 128));
        _mm512_store_si512(q + i + 192, _mm512_load_si512(p + i + 192));
    }
    return 0;
}

__attribute__((target("sse2"))) static uint64_t write_nt_sse2(void *d, const void *s, size_t n)
{
    (void)s;
    char *q = d;
    __m128i v = _mm_set1_epi8(0x5a);
    for (size_t i = 0; i < n; i += 16)
        _mm_stream_si128((__m128i *)(q + i), v);
    return 0;
}

__attribute__((target("avx2"))) static uint64_t write_nt_avx2(void *d, const void *s, size_t n)
{
    (void)s;
    char *q = d;
    __m256i v = _mm256_set1_epi8(0x5a);
    for (size_t i = 0; i < n; i += 32)
        _mm256_stream_si256((__m256i *)(q + i), v);
    return 0;
}

__attribute__((target("avx512f"))) static uint64_t write_nt_avx512(void *d, const void *s, size_t n)
{
    (void)s;
    char *q = d;
    __m512i v = _mm512_set1_epi32(0x5a5a5a5a);
    for (size_t i = 0; i < n; i += 64)
        _mm512_stream_si512((void *)(q + i), v);
    return 0;
}

__attribute__((target("sse2"))) static uint64_t copy_nt_sse2(void *d, const void *s, size_t n)
{
    char *q = d;
    const char *p = s;
    for (size_t i = 0; i < n; i += 16)
        _mm_stream_si128((__m128i *)(q + i), _mm_load_si128((const __m128i *)(p + i)));
    return 0;
}

__attribute__((target("avx2"))) static uint64_t copy_nt_avx2(void *d, const void *s, size_t n)
{
    char *q = d;
    const char *p = s;
    for (size_t i = 0; i < n; i += 32)
        _mm256_stream_si256((__m256i *)(q + i), _mm256_load_si256((const __m256i *)(p + i)));
    return 0;
}

__attribute__((target("avx512f"))) static uint64_t copy_nt_avx512(void *d, const void *s, size_t n)
{
    char *q = d;
    const char *p = s;
    for (size_t i = 0; i < n; i += 64)
        _mm512_stream_si512((void *)(q + i), _mm512_load_si512(p + i));
    return 0;
}

static uint64_t rep_movsb(void *d, const void *s, size_t n)
{
    __asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
    return 0;
}
#endif

void mfb_stream_fence(void)
{
#if defined(__x86_64__)
    __asm__ volatile("sfence" ::: "memory");
#elif defined(__aarch64__)
    __asm__ volatile("dmb ish" ::: "memory");
#endif
}

enum mfb_vector mfb_vector_best(void)
{
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f"))
        return MFB_VECTOR_AVX512;
    if (__builtin_cpu_supports("avx2"))
        return MFB_VECTOR_AVX2;
    return MFB_VECTOR_SSE2; /* part of x86-64 */
#else
    return MFB_VECTOR_SCALAR;
#endif
}

mfb_stream_fn mfb_stream_kernel(enum mfb_stream_kernel k, enum mfb_vector v)
{
    if (v > mfb_vector_best())
        return NULL;
#if defined(__x86_64__)
    static const mfb_stream_fn table[MFB_STREAM_KERNEL_COUNT][MFB_VECTOR_COUNT] = {
        [MFB_STREAM_READ] = {read_scalar, read_sse2, read_avx2, read_avx512},
        [MFB_STREAM_WRITE] = {write_scalar, write_sse2, write_avx2, write_avx512},
        [MFB_STREAM_COPY] = {copy_scalar, copy_sse2, copy_avx2, copy_avx512},
        [MFB_STREAM_WRITE_NT] = {NULL, write_nt_sse2, write_nt_avx2, write_nt_avx512},
        [MFB_STREAM_COPY_NT] = {NULL, copy_nt_sse2, copy_nt_avx2, copy_nt_avx512},
        [MFB_STREAM_REP_MOVSB] = {rep_movsb, rep_movsb, rep_movsb, rep_movsb},
    };
    return table[k][v];
#else
    static const mfb_stream_fn table[MFB_STREAM_KERNEL_COUNT] = {
        [MFB_STREAM_READ] = read_scalar, [MFB_STREAM_WRITE] = write_scalar, [MFB_STREAM_COPY] = copy_scalar};
    return table[k];
#endif
}
