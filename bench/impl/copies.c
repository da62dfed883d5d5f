/* Second copies of the built-ins, compiled from the same sources with the same flags into other
 * functions at other addresses: A/A pairs (a built-in against its copy) measure the noise floor
 * and code-placement effects. The run compares the two functions' bytes and records whether they
 * are identical. */
#define MFB_RENAME_SUFFIX _copy
#include "impl/rename.h"

#include "compare.c"
#include "copy.c"
#include "set.c"
#include "x86.c"
#if defined(__aarch64__)
#include "memcmp_asimd.c"
#include "memcpy_asimd.c"
#include "memcpy_mops.c"
#include "memcpy_sve.c"
#include "memset_asimd.c"
#include "memset_zva.c"
#endif
