/* A file read whole into memory, for the readers that parse JSON from it (a child's result, a
 * recording's provenance): one bounded read instead of each writing its own. */
#ifndef MFB_FILETEXT_H
#define MFB_FILETEXT_H

#include <stddef.h>

#include "base/error.h"

/* The whole of the regular file at path, NUL-terminated, its length in *len: a malloc'd buffer,
 * or NULL with err naming the file and errno set: the open's when it could not be opened (so a
 * caller can treat ENOENT as "absent"), EINVAL for what went wrong after. A file over max bytes
 * is refused before it is read. */
char *mfb_file_text(const char *path, size_t max, size_t *len, struct mfb_err *err);

#endif
