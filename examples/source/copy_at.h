/* One memcpy wrapper at a chosen offset into its object's text: COPY_AT bytes past a 64-byte
 * boundary (copy_at0.c, copy_at32.c, and the prebuilt plugins libcopy_at*.so that meson links with
 * their text opening 0, 16, 32 or 48 bytes into a page). The machine code is the same in all of
 * them; only where it sits differs. docs/validation.md's layout checks time them against each
 * other: as prebuilt plugins (one layout each) and through the source path (every placement).
 *
 * The pad is a top-level asm statement before the function, which is where the compiler puts it
 * only with -fno-toplevel-reorder: build these with it (--variant-cflags "-O2 -fno-toplevel-reorder"). */
#include <string.h>

#ifndef COPY_AT
#define COPY_AT 0
#endif
#define COPY_AT_STR_(x) #x
#define COPY_AT_STR(x) COPY_AT_STR_(x)

__asm__(".text\n.p2align 6\n.skip " COPY_AT_STR(COPY_AT) ", 0xcc\n");

void *copy_at(void *restrict dst, const void *restrict src, size_t n)
{
    static unsigned calls; /* the same counting wrapper as known_cost.c's wrapped_memcpy */
    void *r = memcpy(dst, src, n);
    if (++calls == 25) {
        calls = 0;
        __asm__ volatile("" ::"r"(dst) : "memory");
    }
    return r;
}
