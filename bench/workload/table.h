/* Weighted tables: the rows of one distribution file (sizes, alignments, overlap, mismatch),
 * parsed strictly and normalized to probabilities. */
#ifndef MFB_TABLE_H
#define MFB_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

/* Largest call size a distribution may ask for. Parameters store sizes and arena offsets in
 * 32 bits and the large-call buffer is sized from it, so it is a hard limit, checked on load. */
#define MFB_MAX_SIZE (64u << 20)
/* Largest alignment a table may name: one page. Buffers are page aligned, so offsets modulo
 * the page are address alignments. */
#define MFB_MAX_ALIGN 4096u

enum mfb_table_kind { MFB_T_SIZE, MFB_T_ALIGN, MFB_T_OVERLAP, MFB_T_MISMATCH };

enum mfb_overlap { MFB_OVL_NONE = 0, MFB_OVL_FORWARD = 1, MFB_OVL_BACKWARD = 2 };
/* forward: destination starts inside the source, after it (dst in (src, src+n)).
 * backward: destination starts before the source and runs into it (dst in (src-n, src)). */

enum mfb_mismatch { MFB_MIS_EQUAL = 0, MFB_MIS_UNIFORM = 1, MFB_MIS_AT = 2, MFB_MIS_LAST = 3 };

/* One row. size: [lo, hi] (lo == hi for an exact size); alignment: lo = hi = A;
 * overlap: lo = enum mfb_overlap; mismatch: lo = enum mfb_mismatch, hi = position for MFB_MIS_AT. */
struct mfb_row {
    uint64_t lo, hi;
    double weight; /* as written */
    double p;      /* normalized probability */
    int line;      /* source line (0 for generated rows) */
};

/* Where a table's rows came from: a CSV file (the zero value), a fleetbench key:prob file, a
 * synthetic spec, or the built-in default mismatch model. */
enum mfb_table_origin { MFB_TABLE_FROM_FILE, MFB_TABLE_FROM_FLEETBENCH, MFB_TABLE_FROM_SYNTHETIC, MFB_TABLE_FROM_DEFAULT };

const char *mfb_table_origin_name(enum mfb_table_origin o);

struct mfb_table {
    enum mfb_table_kind kind;
    char *path;      /* file it came from; NULL when generated */
    enum mfb_table_origin origin;
    size_t n;
    struct mfb_row *rows;
    double total_weight;
};

const char *mfb_table_kind_name(enum mfb_table_kind k);
/* Loads a CSV table of the given kind (header required). On failure (-1, err set) the table holds
 * nothing to free. */
int mfb_table_load_csv(struct mfb_table *t, enum mfb_table_kind kind, const char *path,
                       struct mfb_err *err);
/* Appends a row and keeps the table valid; used by generators and the fleetbench reader. */
int mfb_table_add(struct mfb_table *t, uint64_t lo, uint64_t hi, double weight, int line);
/* Checks weights, duplicates and overlaps, then normalizes. `where` prefixes messages. */
int mfb_table_finish(struct mfb_table *t, const char *where, struct mfb_err *err);
void mfb_table_free(struct mfb_table *t);
/* Deep copy (rows and path); -1 when out of memory. */
int mfb_table_copy(struct mfb_table *dst, const struct mfb_table *src);
/* Largest value a row can produce (max hi), and the probability-weighted mean value. */
uint64_t mfb_table_max(const struct mfb_table *t);
/* Largest key listed (any weight, at least 1): the cap K of "exact" alignment semantics. */
uint64_t mfb_table_largest_key(const struct mfb_table *t);
double mfb_table_mean(const struct mfb_table *t);
/* Index of the row containing value v (sizes, alignments), or -1. Rows are sorted by lo. */
long mfb_table_find(const struct mfb_table *t, uint64_t v);

/* Field parsers shared by the CSV and fleetbench readers; messages name the field. */
int mfb_table_parse_weight(const char *s, double *out, const char *where, const char *field,
                     struct mfb_err *err);
int mfb_table_parse_key(enum mfb_table_kind kind, const char *s, uint64_t *lo, uint64_t *hi,
                  const char *where, const char *field, struct mfb_err *err);

#endif
