/* A path as a message prints it. A message is one line (base/error.h), but a file or folder name
 * may hold any byte but '/' and NUL, a newline included: printed as it is, such a name would
 * split the line, and a reader (or a test, or a log's parser) would take its second half for
 * another message. Every message that names a path the user gave (a variant's file, a header it
 * includes, a cache folder from the environment) prints it through here. */
#ifndef MFB_MSGPATH_H
#define MFB_MSGPATH_H

#include <stddef.h>

/* A message holds 1024 bytes (base/error.h): a path printed longer would be cut there anyway. */
#define MFB_MSG_PATH_MAX 1024

/* path into out (cap bytes, at least 4): each control character (below 0x20, and DEL) as a C escape
 * (\n, \t, \r, else \xHH), every other byte as it is; a text that does not fit is cut and ends with
 * "...". Returns out, for use as a printf argument. */
const char *mfb_msg_path(const char *path, char *out, size_t cap);

#endif
