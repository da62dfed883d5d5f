#include "workload/table.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/parse.h"
#include "base/strbuf.h"
#include "workload/csv.h"

static const char *const kind_names[] = {"size", "alignment", "overlap", "mismatch"};

const char *mfb_table_origin_name(enum mfb_table_origin o)
{
    static const char *const names[] = {[MFB_TABLE_FROM_FILE] = "file", [MFB_TABLE_FROM_FLEETBENCH] = "fleetbench",
                                        [MFB_TABLE_FROM_SYNTHETIC] = "synthetic", [MFB_TABLE_FROM_DEFAULT] = "default"};
    return names[o];
}

const char *mfb_table_kind_name(enum mfb_table_kind k)
{
    return kind_names[k];
}

int mfb_table_parse_weight(const char *s, double *out, const char *where, const char *field,
                     struct mfb_err *err)
{
    if (!*s)
        return mfb_fail(err, "%s: %s: empty value", where, field);
    /* Weights are decimal (docs/distributions.md): strtod would also take hexadecimal floats. */
    if (strpbrk(s, "xX"))
        return mfb_fail(err, "%s: %s: '%s' is not a decimal number", where, field, s);
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end != '\0')
        return mfb_fail(err, "%s: %s: '%s' is not a number", where, field, s);
    if (isnan(v))
        return mfb_fail(err, "%s: %s: NaN is not a weight", where, field);
    if (isinf(v) || (errno == ERANGE && fabs(v) > 1))
        return mfb_fail(err, "%s: %s: '%s' is not finite", where, field, s);
    /* A positive weight below the smallest normal double would turn into 0 or lose its digits:
     * refused rather than silently dropped. */
    if (errno == ERANGE || (v > 0 && v < DBL_MIN))
        return mfb_fail(err, "%s: %s: '%s' is too small to represent (the smallest weight is %g)", where, field, s,
                        DBL_MIN);
    if (v < 0)
        return mfb_fail(err, "%s: %s: %s is negative", where, field, s);
    *out = v;
    return 0;
}

static int parse_size(const char *s, uint64_t *v, const char *where, const char *field,
                      struct mfb_err *err)
{
    if (!*s)
        return mfb_fail(err, "%s: %s: empty value", where, field);
    if (*s == '-')
        return mfb_fail(err, "%s: %s: %s is negative", where, field, s);
    if (mfb_parse_u64(s, v) < 0)
        return mfb_fail(err, "%s: %s: '%s' is not a whole number of bytes", where, field, s);
    if (*v > MFB_MAX_SIZE)
        return mfb_fail(err, "%s: %s: %s exceeds the supported maximum %u", where, field, s,
                        MFB_MAX_SIZE);
    return 0;
}

int mfb_table_parse_key(enum mfb_table_kind kind, const char *s, uint64_t *lo, uint64_t *hi,
                  const char *where, const char *field, struct mfb_err *err)
{
    switch (kind) {
    case MFB_T_SIZE:
        if (parse_size(s, lo, where, field, err) < 0)
            return -1;
        *hi = *lo;
        return 0;
    case MFB_T_ALIGN:
        if (*s == '-')
            return mfb_fail(err, "%s: %s: %s is negative", where, field, s);
        if (mfb_parse_u64(s, lo) < 0)
            return mfb_fail(err, "%s: %s: '%s' is not a whole number of bytes", where, field, s);
        if (*lo == 0 || (*lo & (*lo - 1)) != 0)
            return mfb_fail(err, "%s: %s: %s is not a power of two", where, field, s);
        if (*lo > MFB_MAX_ALIGN)
            return mfb_fail(err, "%s: %s: %s exceeds the supported maximum %u", where, field, s,
                            MFB_MAX_ALIGN);
        *hi = *lo;
        return 0;
    case MFB_T_OVERLAP:
        if (!strcmp(s, "none") || !strcmp(s, "0"))
            *lo = MFB_OVL_NONE;
        else if (!strcmp(s, "forward"))
            *lo = MFB_OVL_FORWARD;
        else if (!strcmp(s, "backward"))
            *lo = MFB_OVL_BACKWARD;
        else if (!strcmp(s, "any") || !strcmp(s, "1"))
            *lo = 3; /* split by the caller into forward and backward halves */
        else
            return mfb_fail(err, "%s: %s: '%s' is not one of none, forward, backward, any, 0, 1",
                            where, field, s);
        *hi = 0;
        return 0;
    case MFB_T_MISMATCH:
        *hi = 0;
        if (!strcmp(s, "equal"))
            *lo = MFB_MIS_EQUAL;
        else if (!strcmp(s, "uniform"))
            *lo = MFB_MIS_UNIFORM;
        else if (!strcmp(s, "last"))
            *lo = MFB_MIS_LAST;
        else if (parse_size(s, hi, where, field, err) == 0)
            *lo = MFB_MIS_AT;
        else
            return mfb_fail(err, "%s: %s: '%s' is not equal, uniform, last or a byte position",
                            where, field, s);
        return 0;
    }
    return mfb_fail(err, "%s: unknown table kind", where);
}

int mfb_table_add(struct mfb_table *t, uint64_t lo, uint64_t hi, double weight, int line)
{
    if (t->kind == MFB_T_OVERLAP && lo == 3) {
        /* "any"/"1" (fleetbench's overlap flag): both directions, equally likely. */
        if (mfb_table_add(t, MFB_OVL_FORWARD, 0, weight / 2, line) < 0)
            return -1;
        return mfb_table_add(t, MFB_OVL_BACKWARD, 0, weight / 2, line);
    }
    struct mfb_row *r = realloc(t->rows, (t->n + 1) * sizeof *r);
    if (!r)
        return -1;
    t->rows = r;
    t->rows[t->n++] = (struct mfb_row){.lo = lo, .hi = hi, .weight = weight, .line = line};
    return 0;
}

static int cmp_rows(const void *a, const void *b)
{
    const struct mfb_row *x = a, *y = b;
    if (x->lo != y->lo)
        return x->lo < y->lo ? -1 : 1;
    if (x->hi != y->hi)
        return x->hi < y->hi ? -1 : 1;
    return x->line - y->line;
}

static void describe_key(const struct mfb_table *t, const struct mfb_row *r, char *buf, size_t n)
{
    if (t->kind == MFB_T_SIZE && r->lo != r->hi)
        snprintf(buf, n, "%llu-%llu", (unsigned long long)r->lo, (unsigned long long)r->hi);
    else if (t->kind == MFB_T_MISMATCH && r->lo == MFB_MIS_AT)
        snprintf(buf, n, "%llu", (unsigned long long)r->hi);
    else
        snprintf(buf, n, "%llu", (unsigned long long)r->lo);
}

int mfb_table_finish(struct mfb_table *t, const char *where, struct mfb_err *err)
{
    if (t->n == 0)
        return mfb_fail(err, "%s: no data rows", where);
    qsort(t->rows, t->n, sizeof *t->rows, cmp_rows);
    double total = 0;
    for (size_t i = 0; i < t->n; i++) {
        struct mfb_row *r = &t->rows[i];
        if (i > 0) {
            struct mfb_row *q = &t->rows[i - 1];
            int clash = t->kind == MFB_T_SIZE ? r->lo <= q->hi : (r->lo == q->lo && r->hi == q->hi);
            /* No exception for rows of one line: the split halves of an "any" overlap row are
             * forward and backward, never equal, while a fleetbench line holds every pair of its
             * table, so exempting same-line rows let "1:0.5,any:0.5" or "0:1,0:1" through with
             * duplicate keys (found by tests/fuzz/fuzz_fleetbench). */
            if (clash) {
                char k[64];
                describe_key(t, r, k, sizeof k);
                const char *what = (t->kind == MFB_T_SIZE && (r->lo != r->hi || q->lo != q->hi))
                                       ? "overlaps the range of"
                                       : "duplicates";
                if (r->line && q->line)
                    return mfb_fail(err, "%s:%d: %s: %s %s line %d", where, r->line,
                                    mfb_table_kind_name(t->kind), k, what, q->line);
                return mfb_fail(err, "%s: %s: %s %s another row", where,
                                mfb_table_kind_name(t->kind), k, what);
            }
        }
        total += r->weight;
    }
    if (!(total > 0) || !isfinite(total))
        return mfb_fail(err, "%s: weight: total weight is %s", where, total > 0 ? "not finite" : "zero");
    t->total_weight = total;
    for (size_t i = 0; i < t->n; i++)
        t->rows[i].p = t->rows[i].weight / total;
    return 0;
}

static int header_matches(const struct mfb_csv *c, const char *const *names, int n)
{
    if (c->nfields != n)
        return 0;
    for (int i = 0; i < n; i++)
        if (strcasecmp(c->fields[i], names[i]) != 0)
            return 0;
    return 1;
}

static int load_csv(struct mfb_table *t, enum mfb_table_kind kind, const char *path, struct mfb_err *err);

/* On failure the table is freed here, so no caller's error path can leak its path or rows. */
int mfb_table_load_csv(struct mfb_table *t, enum mfb_table_kind kind, const char *path,
                       struct mfb_err *err)
{
    int rc = load_csv(t, kind, path, err);
    if (rc < 0)
        mfb_table_free(t);
    return rc;
}

static int load_csv(struct mfb_table *t, enum mfb_table_kind kind, const char *path, struct mfb_err *err)
{
    memset(t, 0, sizeof *t);
    t->kind = kind;
    t->origin = MFB_TABLE_FROM_FILE;
    if (!(t->path = strdup(path)))
        return mfb_fail(err, "%s: out of memory", path);
    struct mfb_csv c;
    if (mfb_csv_open(&c, path, err) < 0)
        return -1;
    int rc = mfb_csv_next(&c, err);
    if (rc <= 0) {
        mfb_csv_close(&c);
        return rc < 0 ? -1 : mfb_fail(err, "%s: empty file: expected a header line", path);
    }
    static const char *const range[] = {"size_lo", "size_hi", "weight"};
    const char *h2[2] = {mfb_table_kind_name(kind), "weight"};
    int ranged = 0;
    if (kind == MFB_T_SIZE && header_matches(&c, range, 3))
        ranged = 1;
    else if (!header_matches(&c, h2, 2)) {
        char got[128];
        struct mfb_strbuf sb;
        mfb_strbuf_init(&sb, got, sizeof got);
        for (int i = 0; i < c.nfields; i++)
            mfb_strbuf_add(&sb, "%s%s", i ? "," : "", c.fields[i]);
        int line = c.line;
        mfb_csv_close(&c);
        return mfb_fail(err, "%s:%d: header: expected '%s,weight'%s, got '%s'", path, line,
                        mfb_table_kind_name(kind),
                        kind == MFB_T_SIZE ? " or 'size_lo,size_hi,weight'" : "", got);
    }
    int ncols = ranged ? 3 : 2;
    char where[600];
    while ((rc = mfb_csv_next(&c, err)) > 0) {
        snprintf(where, sizeof where, "%s:%d", path, c.line);
        if (c.nfields != ncols) {
            mfb_fail(err, "%s: row: expected %d fields, found %d", where, ncols, c.nfields);
            rc = -1;
            break;
        }
        uint64_t lo, hi, hi2;
        double w;
        const char *keyname = ranged ? "size_lo" : mfb_table_kind_name(kind);
        if (mfb_table_parse_key(kind, c.fields[0], &lo, &hi, where, keyname, err) < 0) {
            rc = -1;
            break;
        }
        if (ranged) {
            if (mfb_table_parse_key(kind, c.fields[1], &hi2, &hi, where, "size_hi", err) < 0) {
                rc = -1;
                break;
            }
            if (hi2 < lo) {
                mfb_fail(err, "%s: size_hi: %s is below size_lo %s", where, c.fields[1], c.fields[0]);
                rc = -1;
                break;
            }
            hi = hi2;
        }
        if (mfb_table_parse_weight(c.fields[ncols - 1], &w, where, "weight", err) < 0 ||
            mfb_table_add(t, lo, hi, w, c.line) < 0) {
            rc = -1;
            break;
        }
    }
    mfb_csv_close(&c);
    if (rc < 0)
        return -1;
    return mfb_table_finish(t, path, err);
}

void mfb_table_free(struct mfb_table *t)
{
    free(t->path);
    free(t->rows);
    memset(t, 0, sizeof *t);
}

int mfb_table_copy(struct mfb_table *dst, const struct mfb_table *src)
{
    *dst = *src;
    dst->path = src->path ? strdup(src->path) : NULL;
    dst->rows = src->n ? malloc(src->n * sizeof *src->rows) : NULL;
    if ((src->n && !dst->rows) || (src->path && !dst->path))
        return -1;
    if (src->n)
        memcpy(dst->rows, src->rows, src->n * sizeof *src->rows);
    return 0;
}

uint64_t mfb_table_max(const struct mfb_table *t)
{
    uint64_t m = 0;
    for (size_t i = 0; i < t->n; i++)
        if (t->rows[i].p > 0 && t->rows[i].hi > m)
            m = t->rows[i].hi;
    return m;
}

uint64_t mfb_table_largest_key(const struct mfb_table *t)
{
    uint64_t m = 1;
    for (size_t i = 0; i < t->n; i++)
        if (t->rows[i].lo > m)
            m = t->rows[i].lo;
    return m;
}

double mfb_table_mean(const struct mfb_table *t)
{
    double m = 0;
    for (size_t i = 0; i < t->n; i++)
        m += t->rows[i].p * ((double)t->rows[i].lo + (double)t->rows[i].hi) / 2;
    return m;
}

long mfb_table_find(const struct mfb_table *t, uint64_t v)
{
    size_t a = 0, b = t->n;
    while (a < b) {
        size_t m = a + (b - a) / 2;
        if (t->rows[m].hi < v)
            a = m + 1;
        else
            b = m;
    }
    if (a < t->n && t->rows[a].lo <= v && v <= t->rows[a].hi)
        return (long)a;
    return -1;
}
