/* The sample columns of the result file, in one table: name, kind and the field of struct
 * mfb_sample each one holds. The writer (report/output.c) and the --processes merger
 * (processes/processes.c) both go through it, so a column is named, typed and ordered in exactly one
 * place; tests/c/test_columns.c checks it against docs/schema/memfbench-run.schema.json. */
#ifndef MFB_COLUMNS_H
#define MFB_COLUMNS_H

#include <cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/error.h"
#include "measure/samples.h"

enum mfb_column_kind { MFB_COLUMN_UINT, MFB_COLUMN_INT, MFB_COLUMN_REAL, MFB_COLUMN_BOOL };

struct mfb_column {
    const char *name;
    enum mfb_column_kind kind;
    size_t offset;  /* of the field in struct mfb_sample */
    size_t size;    /* of the field: 1, 2, 4 or 8 bytes (REAL: a double) */
    bool optional;  /* written only when some batch has a value (not -1): the counters, the threads' columns */
};

/* The table, in file order. */
size_t mfb_columns(const struct mfb_column **out);
/* Writes `"samples": {"count": N, "<column>": [...], ...}` (without a trailing comma): the
 * columns are streamed, since hundreds of thousands of numbers would cost far more memory as
 * cJSON nodes. Returns -1 when the stream reports an error. */
int mfb_columns_write(FILE *f, const struct mfb_samples *s);
/* Appends the rows of a result file's "samples" object to out, each with the given process
 * index (-1: the file's own). Every column must be there, as long as "count", with values of its kind and range;
 * the message names the column and row otherwise. */
int mfb_columns_read(const cJSON *samples, struct mfb_samples *out, int process, const char *where,
                     struct mfb_err *err);

#endif
