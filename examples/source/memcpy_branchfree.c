/* A memcpy with no branch of its own, the control for --pgo (docs/methodology.md, "PGO
 * friendliness"): on x86-64 one `rep movsb`, whose size handling is the CPU's microcode, so a
 * profile has no branch to lay out and its PGO gain should be nil; elsewhere a byte loop, whose one
 * branch is its loop's.
 *
 *   memfbench run --pgo -v examples/source/memcpy_branchfree.c:branchfree_memcpy=branchfree -o pgo.json */
#include <stddef.h>

void *branchfree_memcpy(void *restrict dst, const void *restrict src, size_t n)
{
#if defined(__x86_64__)
    void *d = dst;
    __asm__ volatile("rep movsb" : "+D"(d), "+S"(src), "+c"(n) : : "memory");
#else
    unsigned char *d = dst;
    const unsigned char *s = src;
    for (size_t i = 0; i < n; i++)
        d[i] = s[i];
#endif
    return dst;
}
