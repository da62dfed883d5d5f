/* The running binary's path, for the commands memfbench prints for the user to run: a full path
 * works from any folder, whatever is first on PATH (nothing puts memfbench on it). */
#ifndef MFB_SELF_H
#define MFB_SELF_H

#include <stddef.h>

/* The binary's absolute path into buf (n bytes), or "memfbench" where it cannot be read. */
const char *mfb_self_path(char *buf, size_t n);
/* The command a printed hint should tell the user to run: as they ran memfbench, where the
 * checkout's ./memfbench said so (MEMFBENCH_INVOKED_AS: "./memfbench" from the checkout's root),
 * else the binary's absolute path. */
const char *mfb_self_command(char *buf, size_t n);

#endif
