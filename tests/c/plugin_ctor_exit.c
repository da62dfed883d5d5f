/* A plugin whose constructor ends the process that loads it with status 0: loading it must end a
 * check in a child, never memfbench itself (tests/py/test_ab_hardening.py). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

__attribute__((constructor)) static void leave(void)
{
    exit(0);
}

void *ctor_memcpy(void *restrict dst, const void *restrict src, size_t n)
{
    return memmove(dst, src, n);
}
