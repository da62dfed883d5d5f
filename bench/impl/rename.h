/* Every built-in under another name: its name with MFB_RENAME_SUFFIX appended. Included before
 * the built-ins' sources by the files that compile them again (copies.c: the A/A twins;
 * placed.c: the code placements), so that the list of built-ins lives in one place. */
#include "base/code_placement.h"

#define MFB_RENAMED(name) MFB_CAT(name, MFB_RENAME_SUFFIX)

#define mfb_memcpy_bytes MFB_RENAMED(mfb_memcpy_bytes)
#define mfb_memcpy_sizeclass MFB_RENAMED(mfb_memcpy_sizeclass)
#define mfb_memmove_bytes MFB_RENAMED(mfb_memmove_bytes)
#define mfb_memmove_sizeclass MFB_RENAMED(mfb_memmove_sizeclass)
#define mfb_memset_bytes MFB_RENAMED(mfb_memset_bytes)
#define mfb_memset_sizeclass MFB_RENAMED(mfb_memset_sizeclass)
#define mfb_memcmp_bytes MFB_RENAMED(mfb_memcmp_bytes)
#define mfb_memcmp_words MFB_RENAMED(mfb_memcmp_words)
#define mfb_bcmp_bytes MFB_RENAMED(mfb_bcmp_bytes)
#define mfb_bcmp_sizeclass MFB_RENAMED(mfb_bcmp_sizeclass)
#define mfb_memcpy_rep_movsb MFB_RENAMED(mfb_memcpy_rep_movsb)
#define mfb_memcpy_sse2 MFB_RENAMED(mfb_memcpy_sse2)
#define mfb_memcpy_avx2 MFB_RENAMED(mfb_memcpy_avx2)
#define mfb_memset_rep_stosb MFB_RENAMED(mfb_memset_rep_stosb)
#define mfb_memcpy_slow1pct MFB_RENAMED(mfb_memcpy_slow1pct)
#define mfb_memcpy_twice MFB_RENAMED(mfb_memcpy_twice)
#define mfb_memcpy_wrapped MFB_RENAMED(mfb_memcpy_wrapped)
#define mfb_memcpy_asimd MFB_RENAMED(mfb_memcpy_asimd)
#define mfb_memmove_asimd MFB_RENAMED(mfb_memmove_asimd)
#define mfb_memset_asimd MFB_RENAMED(mfb_memset_asimd)
#define mfb_memset_zva MFB_RENAMED(mfb_memset_zva)
#define mfb_memcmp_asimd MFB_RENAMED(mfb_memcmp_asimd)
#define mfb_memcpy_sve MFB_RENAMED(mfb_memcpy_sve)
#define mfb_memcpy_mops MFB_RENAMED(mfb_memcpy_mops)
