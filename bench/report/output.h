/* The result file: created (as a temporary beside the target) before the run starts, so a bad
 * path fails at once; filled and renamed into place only when complete, so a reader never sees
 * a partial file and an aborted run leaves none. */
#ifndef MFB_OUTPUT_H
#define MFB_OUTPUT_H

#include <cJSON.h>
#include <stdio.h>

#include "base/error.h"
#include "measure/samples.h"
#include "report/columns.h"

struct mfb_output {
    char *path;     /* final name; "-" for stdout */
    char *tmp;      /* temporary file name */
    FILE *f;
};

int mfb_output_open(struct mfb_output *o, const char *path, struct mfb_err *err);
/* What mfb_output_open refuses of path before it makes anything (an empty name, a folder's name, a
 * path too long, an existing path that is not a regular file), for a command that checks its
 * output before its work starts: 0, or -1 with err. */
int mfb_output_check(const char *path, struct mfb_err *err);
/* For a file that already is a temporary (a child of --processes writes the one its parent
 * made): written in place, no rename. */
int mfb_output_open_direct(struct mfb_output *o, const char *path, struct mfb_err *err);
/* Creates an empty temporary file beside target, named so leftovers can be recognised
 * (report/temporaries.h); returns its malloc'd name, NULL on failure. */
char *mfb_output_temp(const char *target, const char *what);
/* Writes doc with the samples appended as column arrays (none when smp is NULL: the probe's
 * file), then renames into place. */
int mfb_output_commit(struct mfb_output *o, cJSON *doc, const struct mfb_samples *samples, struct mfb_err *err);
/* Removes the temporary file (safe to call after commit). */
void mfb_output_abort(struct mfb_output *o);

#endif
