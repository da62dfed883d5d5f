/* The built-ins (and the known-cost wrappers, whose ratios are as sensitive to placement) as a
 * list, for the tables that map each one to its code in every placement
 * (impl/placed.c, impl/code_placements.c): X(member of union mfb_fn, function). The same names are
 * renamed one by one in impl/rename.h; test_variants checks every built-in variant is in both. */
#ifndef MFB_BUILTINS_H
#define MFB_BUILTINS_H

#define MFB_BUILTINS_PORTABLE(X)                                                                   \
    X(copy, mfb_memcpy_bytes)                                                                      \
    X(copy, mfb_memcpy_sizeclass)                                                                  \
    X(copy, mfb_memmove_bytes)                                                                     \
    X(copy, mfb_memmove_sizeclass)                                                                 \
    X(set, mfb_memset_bytes)                                                                       \
    X(set, mfb_memset_sizeclass)                                                                   \
    X(cmp, mfb_memcmp_bytes)                                                                       \
    X(cmp, mfb_memcmp_words)                                                                       \
    X(cmp, mfb_bcmp_bytes)                                                                         \
    X(cmp, mfb_bcmp_sizeclass)                                                                     \
    X(copy, mfb_memcpy_slow1pct)                                                                   \
    X(copy, mfb_memcpy_twice)                                                                      \
    X(copy, mfb_memcpy_wrapped)

#if defined(__x86_64__)
#define MFB_BUILTINS_X86(X)                                                                        \
    X(copy, mfb_memcpy_rep_movsb)                                                                  \
    X(copy, mfb_memcpy_sse2)                                                                       \
    X(copy, mfb_memcpy_avx2)                                                                       \
    X(set, mfb_memset_rep_stosb)
#else
#define MFB_BUILTINS_X86(X)
#endif

#if defined(__aarch64__)
#if MFB_HAVE_SVE
#define MFB_BUILTINS_SVE(X) X(copy, mfb_memcpy_sve)
#else
#define MFB_BUILTINS_SVE(X)
#endif
#if MFB_HAVE_MOPS
#define MFB_BUILTINS_MOPS(X) X(copy, mfb_memcpy_mops)
#else
#define MFB_BUILTINS_MOPS(X)
#endif
#define MFB_BUILTINS_AARCH64(X)                                                                    \
    X(copy, mfb_memcpy_asimd)                                                                      \
    X(copy, mfb_memmove_asimd)                                                                     \
    X(set, mfb_memset_asimd)                                                                       \
    X(set, mfb_memset_zva)                                                                         \
    X(cmp, mfb_memcmp_asimd)                                                                       \
    MFB_BUILTINS_SVE(X) MFB_BUILTINS_MOPS(X)
#else
#define MFB_BUILTINS_AARCH64(X)
#endif

#define MFB_BUILTINS(X) MFB_BUILTINS_PORTABLE(X) MFB_BUILTINS_X86(X) MFB_BUILTINS_AARCH64(X)

#endif
