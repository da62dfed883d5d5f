/* A plugin that is wrong on purpose (drops the last byte of copies over 100 bytes), for the
 * test that the correctness check rejects it. */
#include <stddef.h>
#include <string.h>

void *dropping_memcpy(void *restrict dst, const void *restrict src, size_t n)
{
    return memmove(dst, src, n > 100 ? n - 1 : n);
}
