/* x86-64 built-ins: rep movsb/stosb (fast with ERMS/FSRM), and SSE2 and AVX2 copies with
 * unaligned vector loads/stores and an overlapping tail. AVX2 is compiled with a target
 * attribute and offered only when the CPU reports it. */
#if defined(__x86_64__)
#include <immintrin.h>
#include <stdint.h>

#include "impl/copy_small.h"
#include "impl/impl.h"

void *mfb_memcpy_rep_movsb(void *restrict dst, const void *restrict src, size_t n)
{
    void *d = dst;
    __asm__ volatile("rep movsb" : "+D"(d), "+S"(src), "+c"(n)::"memory");
    return dst;
}

void *mfb_memset_rep_stosb(void *dst, int c, size_t n)
{
    void *d = dst;
    __asm__ volatile("rep stosb" : "+D"(d), "+c"(n) : "a"(c) : "memory");
    return dst;
}

void *mfb_memcpy_sse2(void *restrict dst, const void *restrict src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    if (n < 16) {
        mfb_copy_under16(d, s, n);
        return dst;
    }
    __m128i tail = _mm_loadu_si128((const __m128i *)(s + n - 16));
    for (size_t i = 0; i + 16 < n; i += 16)
        _mm_storeu_si128((__m128i *)(d + i), _mm_loadu_si128((const __m128i *)(s + i)));
    _mm_storeu_si128((__m128i *)(d + n - 16), tail);
    return dst;
}

__attribute__((target("avx2"))) void *mfb_memcpy_avx2(void *restrict dst, const void *restrict src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    if (n < 16) {
        mfb_copy_under16(d, s, n);
        return dst;
    }
    if (n <= 32) {
        __m128i a = _mm_loadu_si128((const __m128i *)s);
        __m128i b = _mm_loadu_si128((const __m128i *)(s + n - 16));
        _mm_storeu_si128((__m128i *)d, a);
        _mm_storeu_si128((__m128i *)(d + n - 16), b);
        return dst;
    }
    __m256i tail = _mm256_loadu_si256((const __m256i *)(s + n - 32));
    for (size_t i = 0; i + 32 < n; i += 32)
        _mm256_storeu_si256((__m256i *)(d + i), _mm256_loadu_si256((const __m256i *)(s + i)));
    _mm256_storeu_si256((__m256i *)(d + n - 32), tail);
    return dst;
}
#endif
