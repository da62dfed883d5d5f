/* An output folder written whole or not at all (memfbench record, merge): filled as a hidden
 * temporary beside the target, renamed into place when complete. */
#ifndef MFB_FOLDER_H
#define MFB_FOLDER_H

#include <cJSON.h>
#include <stddef.h>

#include "base/error.h"

/* Refuses a target that exists (or whose parent is not a folder); creates the temporary and
 * returns its malloc'd path, NULL with the message in err. */
char *mfb_folder_begin(const char *target, struct mfb_err *err);
/* Writes doc as dir/name. */
int mfb_folder_put_json(const char *dir, const char *name, const cJSON *doc, struct mfb_err *err);
/* Renames the temporary to the target, which must not exist (an empty folder is not replaced). */
int mfb_folder_commit(const char *tmp, const char *target, struct mfb_err *err);
/* As mfb_folder_commit, but when the target has appeared since mfb_folder_begin (a recorded
 * program made it), to the first free TARGET-2, TARGET-3, ... beside it instead, never over
 * anything: 0 at the target, 1 beside it, its name in placed either way; -1 with err when neither
 * could be done, the temporary then left in place and named in err (removing it would lose what
 * it holds). */
int mfb_folder_commit_beside(const char *tmp, const char *target, char *placed, size_t cap, struct mfb_err *err);
/* Removes the temporary and everything under it (when a command fails). */
void mfb_folder_abort(const char *tmp);

#endif
