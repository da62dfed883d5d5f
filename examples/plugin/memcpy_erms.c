/* An example memfbench plugin: a memcpy that takes the overlapping head/tail path for small sizes
 * and `rep movsb` (fast with ERMS/FSRM) from ERMS_THRESHOLD bytes (256 unless -D gives another),
 * with a portable fallback elsewhere.
 *
 * Build:  cc -O2 -fPIC -shared -o libmemcpy_erms.so memcpy_erms.c   (meson builds it as well)
 * Use:    memfbench run -v libc -v ./libmemcpy_erms.so:erms_memcpy=erms -o ab.json
 *
 * The ABI is the C prototype of the function under test; memfbench checks the results before
 * timing, so a wrong implementation is rejected with the call that exposed it. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Where `rep movsb` takes over from the block loop: below it, the instruction's start-up cost
 * (tens of cycles on the CPUs we measured) outweighs its per-byte speed. A build-time knob, so
 * that two builds (-DERMS_THRESHOLD=64, say) can be compared before/after (docs/user-guide.md). */
#ifndef ERMS_THRESHOLD
#define ERMS_THRESHOLD 256
#endif

static inline void head_tail(unsigned char *d, const unsigned char *s, size_t n)
{
    if (n >= 16) {
        uint64_t a[2], b[2];
        memcpy(a, s, 16);
        memcpy(b, s + n - 16, 16);
        memcpy(d, a, 16);
        memcpy(d + n - 16, b, 16);
    } else if (n >= 8) {
        uint64_t a, b;
        memcpy(&a, s, 8);
        memcpy(&b, s + n - 8, 8);
        memcpy(d, &a, 8);
        memcpy(d + n - 8, &b, 8);
    } else if (n >= 4) {
        uint32_t a, b;
        memcpy(&a, s, 4);
        memcpy(&b, s + n - 4, 4);
        memcpy(d, &a, 4);
        memcpy(d + n - 4, &b, 4);
    } else if (n) {
        d[0] = s[0];
        d[n / 2] = s[n / 2];
        d[n - 1] = s[n - 1];
    }
}

void *erms_memcpy(void *restrict dst, const void *restrict src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    if (n <= 32) {
        head_tail(d, s, n);
        return dst;
    }
    if (n < ERMS_THRESHOLD) {
        /* 32-byte blocks and an overlapping last block */
        for (size_t i = 0; i + 32 < n; i += 32)
            memcpy(d + i, s + i, 32);
        memcpy(d + n - 32, s + n - 32, 32);
        return dst;
    }
#if defined(__x86_64__)
    __asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n)::"memory");
#else
    memcpy(d, s, n);
#endif
    return dst;
}
