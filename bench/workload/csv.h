/* A small strict CSV record reader for distribution tables.
 * It accepts what real files contain (UTF-8 BOM, CRLF, spaces around fields, double-quoted
 * fields, '#' comment lines, blank lines) and reports problems as "file:line: ...". */
#ifndef MFB_CSV_H
#define MFB_CSV_H

#include <stdio.h>

#include "base/error.h"

/* What a table or trace may hold, so that a file that never ends (/dev/zero, a generator) is
 * refused instead of read until memory runs out. A CSV row is a few numbers (the shipped tables'
 * longest line is 207 bytes, a recorded trace's under 200), but fleetbench's format puts a whole
 * table on one line of key:prob fields (1331 of them, 26 KiB, for memmove's): 1 MiB a line, and
 * so at most half a million fields, is far above both; a trace of MFB_MAX_TRACE_CALLS calls is
 * far below the bytes. */
#define MFB_CSV_MAX_LINE (1 << 20)
#define MFB_CSV_MAX_FIELDS (MFB_CSV_MAX_LINE / 2 + 1)
#define MFB_CSV_MAX_BYTES (4ull << 30)

struct mfb_csv {
    FILE *f;
    const char *path;
    int line;        /* 1-based number of the line last returned */
    char *buf;
    size_t cap;
    char **fields;   /* points into buf; valid until the next call */
    int nfields;
    int fields_cap;
    unsigned long long bytes; /* read so far */
};

int mfb_csv_open(struct mfb_csv *c, const char *path, struct mfb_err *err);
/* Reads the next record: 1 when one was read, 0 at end of file, -1 on error. */
int mfb_csv_next(struct mfb_csv *c, struct mfb_err *err);
void mfb_csv_close(struct mfb_csv *c);

#endif
