/* Opening a file memfbench reads as input (a table, a trace, a source's header to hash, a recorded
 * count, a bpftrace histogram): never blocking (a FIFO that no program writes to would hold the
 * open(2) forever) and never reading what cannot end or be read twice (/dev/zero, a pipe, a
 * folder): the file must be a regular one, checked on the descriptor opened, not on the name. */
#ifndef MFB_OPENIN_H
#define MFB_OPENIN_H

#include <stdio.h>

#include "base/error.h"

/* path opened for reading ("rb"), a regular file: the stream, or NULL with err: "PATH: cannot open:
 * WHY" or "PATH: not a regular file (a folder|pipe|device or other)", then `then` when it is not
 * NULL (what to give instead: "give a table or trace as a file"). errno is ENOENT for a file that
 * does not exist, EINVAL for one that is not regular. */
FILE *mfb_open_input(const char *path, const char *then, struct mfb_err *err);

#endif
