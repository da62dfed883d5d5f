/* Built-in implementations under test and the reference ones they are checked against.
 * Every built-in is compiled without loop-to-libcall and auto-vectorization rewrites (see
 * meson.build), so a "byte loop" stays a byte loop and nothing quietly calls libc. */
#ifndef MFB_IMPL_H
#define MFB_IMPL_H

#include <stddef.h>

/* Portable (copy.c, set.c, compare.c). */
void *mfb_memcpy_bytes(void *restrict dst, const void *restrict src, size_t n);
void *mfb_memcpy_sizeclass(void *restrict dst, const void *restrict src, size_t n);
void *mfb_memmove_bytes(void *dst, const void *src, size_t n);
void *mfb_memmove_sizeclass(void *dst, const void *src, size_t n);
void *mfb_memset_bytes(void *dst, int c, size_t n);
void *mfb_memset_sizeclass(void *dst, int c, size_t n);
int mfb_memcmp_bytes(const void *a, const void *b, size_t n);
int mfb_memcmp_words(const void *a, const void *b, size_t n);
int mfb_bcmp_bytes(const void *a, const void *b, size_t n);
int mfb_bcmp_sizeclass(const void *a, const void *b, size_t n);

/* noop.c: harness-overhead probes, same signatures, no work. */
void *mfb_copy_noop(void *dst, const void *src, size_t n);
void *mfb_set_noop(void *dst, int c, size_t n);
int mfb_cmp_noop(const void *a, const void *b, size_t n);
#if defined(__x86_64__)
int mfb_cmp_load1(const void *a, const void *b, size_t n);
int mfb_cmp_load32(const void *a, const void *b, size_t n);
#endif

#if defined(__x86_64__)
/* x86.c, and cpu.c for the CPU probe */
void *mfb_memcpy_rep_movsb(void *restrict dst, const void *restrict src, size_t n);
void *mfb_memcpy_sse2(void *restrict dst, const void *restrict src, size_t n);
void *mfb_memcpy_avx2(void *restrict dst, const void *restrict src, size_t n);
void *mfb_memset_rep_stosb(void *dst, int c, size_t n);
int mfb_cpu_has_avx2(void);
#endif

#if defined(__aarch64__)
/* memcpy_asimd.c, memset_asimd.c, memset_zva.c, memcmp_asimd.c (Advanced SIMD, every AArch64 CPU),
 * memcpy_sve.c and memcpy_mops.c (where compiler and CPU have them), and cpu.c for the CPU probe */
void *mfb_memcpy_asimd(void *restrict dst, const void *restrict src, size_t n);
void *mfb_memmove_asimd(void *dst, const void *src, size_t n);
void *mfb_memset_asimd(void *dst, int c, size_t n);
void *mfb_memset_zva(void *dst, int c, size_t n);
int mfb_memcmp_asimd(const void *a, const void *b, size_t n);
#if MFB_HAVE_SVE
void *mfb_memcpy_sve(void *restrict dst, const void *restrict src, size_t n);
#endif
#if MFB_HAVE_MOPS
void *mfb_memcpy_mops(void *restrict dst, const void *restrict src, size_t n);
#endif
/* DCZID_EL0.DZP: DC ZVA prohibited (the block size in bits 3:0 is then meaningless). */
#define MFB_DCZID_DZP (1u << 4)
int mfb_cpu_has_sve(void);
int mfb_cpu_has_mops(void);
int mfb_cpu_zva_permitted(void);
#endif

/* copies.c: the same built-ins again, at other addresses (A/A). */
void *mfb_memcpy_bytes_copy(void *restrict dst, const void *restrict src, size_t n);
void *mfb_memcpy_sizeclass_copy(void *restrict dst, const void *restrict src, size_t n);
void *mfb_memmove_bytes_copy(void *dst, const void *src, size_t n);
void *mfb_memmove_sizeclass_copy(void *dst, const void *src, size_t n);
void *mfb_memset_bytes_copy(void *dst, int c, size_t n);
void *mfb_memset_sizeclass_copy(void *dst, int c, size_t n);
int mfb_memcmp_bytes_copy(const void *a, const void *b, size_t n);
int mfb_memcmp_words_copy(const void *a, const void *b, size_t n);
int mfb_bcmp_bytes_copy(const void *a, const void *b, size_t n);
int mfb_bcmp_sizeclass_copy(const void *a, const void *b, size_t n);
#if defined(__x86_64__)
void *mfb_memcpy_rep_movsb_copy(void *restrict dst, const void *restrict src, size_t n);
void *mfb_memcpy_sse2_copy(void *restrict dst, const void *restrict src, size_t n);
void *mfb_memcpy_avx2_copy(void *restrict dst, const void *restrict src, size_t n);
void *mfb_memset_rep_stosb_copy(void *dst, int c, size_t n);
#endif
#if defined(__aarch64__)
void *mfb_memcpy_asimd_copy(void *restrict dst, const void *restrict src, size_t n);
void *mfb_memmove_asimd_copy(void *dst, const void *src, size_t n);
void *mfb_memset_asimd_copy(void *dst, int c, size_t n);
void *mfb_memset_zva_copy(void *dst, int c, size_t n);
int mfb_memcmp_asimd_copy(const void *a, const void *b, size_t n);
#if MFB_HAVE_SVE
void *mfb_memcpy_sve_copy(void *restrict dst, const void *restrict src, size_t n);
#endif
#if MFB_HAVE_MOPS
void *mfb_memcpy_mops_copy(void *restrict dst, const void *restrict src, size_t n);
#endif
#endif

/* known_cost.c: known extra cost. */
void *mfb_memcpy_slow1pct(void *restrict dst, const void *restrict src, size_t n);
void *mfb_memcpy_twice(void *restrict dst, const void *restrict src, size_t n);
void *mfb_memcpy_wrapped(void *restrict dst, const void *restrict src, size_t n);

/* reference.c: the simplest correct code, the oracle of the correctness check. */
void *mfb_ref_memmove(void *dst, const void *src, size_t n);
void *mfb_ref_memset(void *dst, int c, size_t n);
int mfb_ref_memcmp(const void *a, const void *b, size_t n);

#endif
