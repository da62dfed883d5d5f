#include "report/columns.h"

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define COLUMN(name, kind, field) \
    {name, MFB_COLUMN_##kind, offsetof(struct mfb_sample, field), sizeof(((struct mfb_sample *)0)->field), false}
/* --counters: present in a file only when counted (docs/json-schema.md) */
#define COUNTER_COLUMN(name, k) \
    {name, MFB_COLUMN_INT, offsetof(struct mfb_sample, counters[k]), sizeof(int64_t), true}

static const struct mfb_column table[] = {
    COLUMN("variant", UINT, variant),     /* index into the document's variants */
    COLUMN("round", UINT, round),
    COLUMN("position", UINT, position),   /* place of the batch within its round */
    COLUMN("calls", UINT, calls),
    COLUMN("bytes", UINT, bytes),
    COLUMN("ticks", UINT, ticks),
    COLUMN("ns", REAL, ns),
    COLUMN("t_start_ns", UINT, t_start_ns),
    COLUMN("cpu", INT, cpu),              /* -1: unknown */
    COLUMN("warmup", BOOL, warmup),
    COLUMN("process", UINT, process),     /* --processes: index of the process; 0 otherwise */
    COLUMN("size_class", UINT, size_class), /* --by-class: 0 the whole distribution, k its class k */
    COUNTER_COLUMN("cycles", MFB_COUNTER_CYCLES),
    COUNTER_COLUMN("instructions", MFB_COUNTER_INSTRUCTIONS),
    COUNTER_COLUMN("branch_misses", MFB_COUNTER_BRANCH_MISSES),
    COUNTER_COLUMN("l1d_misses", MFB_COUNTER_L1D_MISSES),
    /* --threads N > 1: present only then (-1 in a one-thread run) */
    {"thread", MFB_COLUMN_UINT, offsetof(struct mfb_sample, thread), sizeof(int16_t), true},
    {"alone", MFB_COLUMN_BOOL, offsetof(struct mfb_sample, alone), sizeof(int8_t), true},
};

size_t mfb_columns(const struct mfb_column **out)
{
    *out = table;
    return sizeof table / sizeof table[0];
}

/* Field access by size: the table states each field's width, so one pair of functions serves
 * every integer column. */
static uint64_t get_bits(const struct mfb_sample *s, const struct mfb_column *c)
{
    const unsigned char *p = (const unsigned char *)s + c->offset;
    switch (c->size) {
    case 1: { uint8_t v; memcpy(&v, p, 1); return v; }
    case 2: { uint16_t v; memcpy(&v, p, 2); return v; }
    case 4: { uint32_t v; memcpy(&v, p, 4); return v; }
    default: { uint64_t v; memcpy(&v, p, 8); return v; }
    }
}

static void set_bits(struct mfb_sample *s, const struct mfb_column *c, uint64_t v)
{
    unsigned char *p = (unsigned char *)s + c->offset;
    switch (c->size) {
    case 1: { uint8_t x = (uint8_t)v; memcpy(p, &x, 1); break; }
    case 2: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
    case 4: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
    default: memcpy(p, &v, 8); break;
    }
}

/* Sign-extends the stored bits of a signed field. */
static int64_t get_signed(const struct mfb_sample *s, const struct mfb_column *c)
{
    uint64_t v = get_bits(s, c);
    unsigned bits = 8 * (unsigned)c->size;
    if (bits < 64 && (v >> (bits - 1)) & 1)
        v |= ~0ull << bits;
    return (int64_t)v;
}

/* A column's text is made here and handed to stdio in blocks: fprintf per value was most of what
 * writing a process's file cost (glibc's vfprintf and its exact decimal conversion of every
 * double; perf of a default study on the Intel VM, family 6 model 167). The text is the same
 * bytes fprintf wrote. */
struct text {
    FILE *f;
    size_t n;
    char b[16384];
};

/* Room for a comma and the longest value: a 64-bit integer's 20 digits and a sign, or %.3f of a
 * double (313 characters for DBL_MAX, put_real3's fallback). */
#define VALUE_MAX 400

static void text_flush(struct text *t)
{
    fwrite(t->b, 1, t->n, t->f);
    t->n = 0;
}

static void text_room(struct text *t)
{
    if (sizeof t->b - t->n < VALUE_MAX)
        text_flush(t);
}

static void put_u64(struct text *t, uint64_t v)
{
    char d[20];
    int k = 0;
    do
        d[k++] = (char)('0' + v % 10);
    while ((v /= 10));
    while (k)
        t->b[t->n++] = d[--k];
}

/* Below 2^43 the product d * 1000 is within 2^-10 of its exact value, so where its fraction is
 * farther than REAL_TIE_MARGIN from a half it rounds to the integer %.3f rounds the exact value
 * to; elsewhere (and for negative, huge or non-finite values) snprintf decides. */
#define REAL_FAST_MAX 8796093022208.0 /* 2^43 */
#define REAL_TIE_MARGIN 0.01

static void put_real3(struct text *t, double d)
{
    double m = d * 1000.0;
    double fl = floor(m);
    if (!signbit(d) && m < REAL_FAST_MAX && fabs(m - fl - 0.5) > REAL_TIE_MARGIN) {
        uint64_t r = (uint64_t)fl + (m - fl > 0.5);
        put_u64(t, r / 1000);
        unsigned frac = (unsigned)(r % 1000);
        t->b[t->n++] = '.';
        t->b[t->n++] = (char)('0' + frac / 100);
        t->b[t->n++] = (char)('0' + frac / 10 % 10);
        t->b[t->n++] = (char)('0' + frac % 10);
        return;
    }
    /* %.3f of DBL_MAX is 313 digits and the point: VALUE_MAX holds it */
    int k = snprintf(t->b + t->n, sizeof t->b - t->n, "%.3f", d);
    t->n += k > 0 ? (size_t)k : 0;
}

/* One value at t's end, which has VALUE_MAX bytes of room. */
static void write_value(struct text *t, const struct mfb_column *c, const struct mfb_sample *s)
{
    switch (c->kind) {
    case MFB_COLUMN_UINT:
        put_u64(t, get_bits(s, c));
        break;
    case MFB_COLUMN_INT: {
        int64_t v = get_signed(s, c);
        if (v < 0)
            t->b[t->n++] = '-';
        put_u64(t, v < 0 ? 0 - (uint64_t)v : (uint64_t)v);
        break;
    }
    case MFB_COLUMN_REAL: {
        double d;
        memcpy(&d, (const unsigned char *)s + c->offset, sizeof d);
        put_real3(t, d);
        break;
    }
    case MFB_COLUMN_BOOL: {
        const char *w = get_bits(s, c) ? "true" : "false";
        size_t len = strlen(w);
        memcpy(t->b + t->n, w, len);
        t->n += len;
        break;
    }
    }
}

/* Whether an optional column has a value in some batch. */
static bool column_present(const struct mfb_column *c, const struct mfb_samples *s)
{
    for (size_t i = 0; i < s->n; i++)
        if (get_signed(&s->s[i], c) >= 0)
            return true;
    return false;
}

int mfb_columns_write(FILE *f, const struct mfb_samples *s)
{
    size_t n = sizeof table / sizeof table[0];
    struct text *t = malloc(sizeof *t);
    if (!t)
        return -1;
    t->f = f;
    fprintf(f, "\t\"samples\": {\n    \"count\": %zu", s->n);
    for (size_t k = 0; k < n; k++) {
        if (table[k].optional && !column_present(&table[k], s))
            continue;
        fprintf(f, ",\n    \"%s\": [", table[k].name);
        t->n = 0;
        for (size_t i = 0; i < s->n; i++) {
            text_room(t);
            if (i)
                t->b[t->n++] = ',';
            write_value(t, &table[k], &s->s[i]);
        }
        text_flush(t);
        fputc(']', f);
    }
    free(t);
    fprintf(f, "\n\t}");
    return ferror(f) ? -1 : 0;
}

/* The largest value a field of this size and kind holds. */
static double field_max(const struct mfb_column *c)
{
    /* an optional column's field is signed whatever its kind: -1 marks a batch without a value */
    if (c->kind == MFB_COLUMN_INT || c->optional)
        return ldexp(1, 8 * (int)c->size - 1) - 1;
    return c->size >= 8 ? 18446744073709551615.0 : ldexp(1, 8 * (int)c->size) - 1;
}

static int read_value(const struct mfb_column *c, const cJSON *item, struct mfb_sample *s)
{
    if (c->kind == MFB_COLUMN_BOOL) {
        if (!cJSON_IsBool(item))
            return -1;
        set_bits(s, c, cJSON_IsTrue(item) ? 1 : 0);
        return 0;
    }
    if (!cJSON_IsNumber(item) || !isfinite(item->valuedouble))
        return -1;
    double v = item->valuedouble;
    if (c->kind == MFB_COLUMN_REAL) {
        if (v < 0)
            return -1;
        memcpy((unsigned char *)s + c->offset, &v, sizeof v);
        return 0;
    }
    double lo = c->kind == MFB_COLUMN_INT ? -1 : 0;
    if (v != floor(v) || v < lo || v > field_max(c))
        return -1;
    set_bits(s, c, c->kind == MFB_COLUMN_INT ? (uint64_t)(int64_t)v : (uint64_t)v);
    return 0;
}

int mfb_columns_read(const cJSON *samples, struct mfb_samples *out, int process, const char *where,
                     struct mfb_err *err)
{
    enum { NCOLUMNS = sizeof table / sizeof table[0] };
    const cJSON *count = cJSON_GetObjectItemCaseSensitive(samples, "count");
    if (!cJSON_IsNumber(count) || count->valuedouble < 0 || count->valuedouble != floor(count->valuedouble))
        return mfb_fail(err, "%s: samples/count is missing or not a whole number", where);
    size_t n = (size_t)count->valuedouble;
    /* cJSON arrays are linked lists: the columns are walked together rather than indexed. */
    const cJSON *it[NCOLUMNS];
    for (size_t k = 0; k < NCOLUMNS; k++) {
        const cJSON *col = cJSON_GetObjectItemCaseSensitive(samples, table[k].name);
        if (!col && table[k].optional) {
            it[k] = NULL; /* not counted in that file: -1 in every row */
            continue;
        }
        if (!cJSON_IsArray(col) || (size_t)cJSON_GetArraySize(col) != n)
            return mfb_fail(err, "%s: samples/%s is missing or does not hold count = %zu entries", where,
                            table[k].name, n);
        it[k] = col->child;
    }
    for (size_t i = 0; i < n; i++) {
        struct mfb_sample x = {0};
        for (size_t k = 0; k < NCOLUMNS; k++) {
            if (!it[k]) {
                set_bits(&x, &table[k], (uint64_t)(int64_t)-1);
                continue;
            }
            if (read_value(&table[k], it[k], &x) < 0)
                return mfb_fail(err, "%s: samples/%s[%zu] is not a valid value for this column", where,
                                table[k].name, i);
            it[k] = it[k]->next;
        }
        if (process >= 0)
            x.process = (uint16_t)process;
        if (mfb_samples_push(out, &x) < 0)
            return mfb_fail(err, "%s: out of memory merging samples", where);
    }
    return 0;
}
