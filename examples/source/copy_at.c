/* One memcpy wrapper at a chosen offset into its object's text: COPY_AT bytes past a boundary of
 * 2^COPY_LINE bytes (COPY_AT 0 unless -DCOPY_AT=N, copy_at32.c sets 32; COPY_LINE 4, a function's
 * usual 16-byte alignment). The machine code is the same whatever the offset; only where it sits
 * differs. docs/validation.md's layout checks time such copies against each other: through the
 * source path, where memfbench runs each from its 8 code placements
 *
 *   memfbench run --variant-cflags "-O2 -fno-toplevel-reorder" \
 *       -v examples/source/copy_at.c:copy_at=at0 -v examples/source/copy_at32.c:copy_at=at32 -o layout.json
 *
 * and as prebuilt plugins, one layout each (meson links build/examples/libcopy_at{0,16,32,48}.so
 * from this file with -DCOPY_AT=N -DCOPY_LINE=6: N bytes into a 64-byte line). The source path must
 * not get COPY_LINE 6: a 64-byte aligned section keeps the code at one offset into a line in every
 * placement (memfbench warns: source_alignment), and the placements would average nothing.
 *
 * The pad is a top-level asm statement before the function, which the compiler emits in that order
 * only with -fno-toplevel-reorder: build it with that flag. */
#include <string.h>

#ifndef COPY_AT
#define COPY_AT 0
#endif
#ifndef COPY_LINE
#define COPY_LINE 4
#endif
#define COPY_AT_STR_(x) #x
#define COPY_AT_STR(x) COPY_AT_STR_(x)

/* .if: the assembler warns of a .skip of 0 bytes */
__asm__(".text\n.p2align " COPY_AT_STR(COPY_LINE) "\n.if " COPY_AT_STR(COPY_AT) "\n.skip " COPY_AT_STR(COPY_AT)
        ", 0xcc\n.endif\n");

void *copy_at(void *restrict dst, const void *restrict src, size_t n)
{
    /* the same counting wrapper as known_cost.c's wrapped_memcpy, without its rare step */
    static unsigned calls;
    void *r = memcpy(dst, src, n);
    if (++calls == 25) {
        calls = 0;
        __asm__ volatile("" ::"r"(dst) : "memory");
    }
    return r;
}
