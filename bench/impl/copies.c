/* Second copies of the built-ins, compiled from the same sources with the same flags into other
 * functions at other addresses: A/A pairs (a built-in against its copy) measure the noise floor
 * and code-placement effects. The run compares the two functions' bytes and records whether they
 * are identical. */
#define mfb_memcpy_bytes mfb_memcpy_bytes_copy
#define mfb_memcpy_sizeclass mfb_memcpy_sizeclass_copy
#define mfb_memmove_bytes mfb_memmove_bytes_copy
#define mfb_memmove_sizeclass mfb_memmove_sizeclass_copy
#define mfb_memset_bytes mfb_memset_bytes_copy
#define mfb_memset_sizeclass mfb_memset_sizeclass_copy
#define mfb_memcmp_bytes mfb_memcmp_bytes_copy
#define mfb_memcmp_words mfb_memcmp_words_copy
#define mfb_bcmp_bytes mfb_bcmp_bytes_copy
#define mfb_bcmp_sizeclass mfb_bcmp_sizeclass_copy
#define mfb_memcpy_rep_movsb mfb_memcpy_rep_movsb_copy
#define mfb_memcpy_sse2 mfb_memcpy_sse2_copy
#define mfb_memcpy_avx2 mfb_memcpy_avx2_copy
#define mfb_memset_rep_stosb mfb_memset_rep_stosb_copy

#include "compare.c"
#include "copy.c"
#include "set.c"
#include "x86.c"
