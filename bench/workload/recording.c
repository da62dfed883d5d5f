#include "workload/recording.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "workload/table.h"

/* Adds count calls of sizes lo..hi; keys stay sorted and distinct. */
static int add_size(struct mfb_rec_func *f, uint64_t lo, uint64_t hi, uint64_t count)
{
    size_t i = 0;
    while (i < f->nsizes && f->sizes[i].lo < lo)
        i++;
    if (i < f->nsizes && f->sizes[i].lo == lo && f->sizes[i].hi == hi) {
        f->sizes[i].count += count;
        return 0;
    }
    if (f->nsizes == f->cap) {
        size_t cap = f->cap ? 2 * f->cap : 256;
        struct mfb_rec_range *p = realloc(f->sizes, cap * sizeof *p);
        if (!p)
            return -1;
        f->sizes = p;
        f->cap = cap;
    }
    memmove(f->sizes + i + 1, f->sizes + i, (f->nsizes - i) * sizeof *f->sizes);
    f->sizes[i] = (struct mfb_rec_range){lo, hi, count};
    f->nsizes++;
    return 0;
}

static int log2_exact(uint64_t a)
{
    if (a == 0 || (a & (a - 1)) || a > (1u << MFB_REC_ALIGN_LOG_MAX))
        return -1;
    int k = 0;
    while ((1ull << k) != a)
        k++;
    return k;
}

/* One line of a raw file: KIND FUNC A B COUNT. */
static int raw_line(struct mfb_recording *r, char *line, const char *path, int ln, bool *ended,
                    struct mfb_err *err)
{
    char kind[32], fname[16];
    unsigned long long a, b, n;
    if (!strcmp(line, "end")) {
        *ended = true;
        return 0;
    }
    if (!strncmp(line, "memfbench-record ", 17))
        return strcmp(line + 17, "1") ? mfb_fail(err, "%s:%d: recorder format %s, this memfbench reads 1", path, ln,
                                                 line + 17) : 0;
    if (sscanf(line, "rate %llu", &a) == 1) {
        if (a == 0)
            return mfb_fail(err, "%s:%d: rate 0", path, ln);
        if (r->rate && r->rate != a)
            return mfb_fail(err, "%s:%d: sampled 1/%llu, other files 1/%llu: record again with one rate", path, ln,
                            a, (unsigned long long)r->rate);
        r->rate = a;
        return 0;
    }
    char extra;
    if (sscanf(line, "%31s %15s %llu %llu %llu %c", kind, fname, &a, &b, &n, &extra) != 5)
        return mfb_fail(err, "%s:%d: not a line the recorder writes", path, ln);
    enum mfb_func f;
    if (mfb_func_parse(fname, &f) < 0)
        return mfb_fail(err, "%s:%d: unknown function '%s'", path, ln, fname);
    struct mfb_rec_func *c = &r->f[f];
    if (!strcmp(kind, "calls")) {
        c->calls += a;
        c->sampled += b;
    } else if (!strcmp(kind, "size")) {
        if (b < a)
            return mfb_fail(err, "%s:%d: size range %llu-%llu", path, ln, a, b);
        if (add_size(c, a, b, n) < 0)
            return mfb_fail(err, "%s: out of memory", path);
    } else if (!strcmp(kind, "src_alignment") || !strcmp(kind, "dst_alignment")) {
        int k = log2_exact(a);
        if (k < 0)
            return mfb_fail(err, "%s:%d: alignment %llu is not a power of two up to 4096", path, ln, a);
        (kind[0] == 's' ? c->src_align : c->dst_align)[k] += n;
    } else if (!strcmp(kind, "overlap")) {
        if (a > 2)
            return mfb_fail(err, "%s:%d: overlap kind %llu", path, ln, a);
        c->overlap[a] += n;
    } else if (!strcmp(kind, "mismatch")) {
        if (a == 0)
            c->mis_equal += n;
        else if (a == 1)
            c->mis_uniform += n;
        else if (a == 2 && b < MFB_REC_MISMATCH_EXACT)
            c->mis_at[b] += n;
        else if (a == 3)
            c->mis_last += n;
        else
            return mfb_fail(err, "%s:%d: mismatch kind %llu at %llu", path, ln, a, b);
    } else {
        return mfb_fail(err, "%s:%d: unknown record '%s'", path, ln, kind);
    }
    return 0;
}

int mfb_recording_add_raw(struct mfb_recording *r, const char *path, struct mfb_err *err)
{
    FILE *fp = fopen(path, "r");
    if (!fp)
        return mfb_fail(err, "%s: cannot read: %s", path, strerror(errno));
    char line[256];
    int ln = 0, rc = 0;
    bool ended = false;
    while (rc == 0 && fgets(line, sizeof line, fp)) {
        ln++;
        line[strcspn(line, "\n")] = '\0';
        if (ended)
            rc = mfb_fail(err, "%s:%d: text after the end line", path, ln);
        else
            rc = raw_line(r, line, path, ln, &ended, err);
    }
    fclose(fp);
    if (rc == 0 && !ended)
        rc = mfb_fail(err, "%s: no end line: a torn file", path);
    if (rc == 0)
        r->sources++;
    return rc;
}

static int add_table_file(struct mfb_recording *r, enum mfb_func f, const char *path, enum mfb_table_kind kind,
                          const char *role, struct mfb_err *err)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return 0; /* a sibling table is optional */
    struct mfb_table t = {0};
    if (mfb_table_load_csv(&t, kind, path, err) < 0)
        return -1;
    struct mfb_rec_func *c = &r->f[f];
    int rc = 0;
    for (size_t i = 0; i < t.n && rc == 0; i++) {
        const struct mfb_row *row = &t.rows[i];
        if (!(row->weight <= (double)MFB_MAX_CALL_COUNT)) {
            rc = mfb_fail(err, "%s:%d: weight %g is more calls than a table counts exactly (at most 2^53)", path,
                          row->line, row->weight);
            break;
        }
        uint64_t n = (uint64_t)(row->weight + 0.5);
        if (kind == MFB_T_SIZE) {
            rc = add_size(c, row->lo, row->hi, n) < 0 ? mfb_fail(err, "%s: out of memory", path) : 0;
            c->calls += n;
            c->sampled += n;
        } else if (kind == MFB_T_ALIGN) {
            int k = log2_exact(row->lo);
            if (k >= 0)
                (strcmp(role, "src") ? c->dst_align : c->src_align)[k] += n;
        } else if (kind == MFB_T_OVERLAP) {
            if (row->lo <= 2)
                c->overlap[row->lo] += n;
        } else if (kind == MFB_T_MISMATCH) {
            if (row->lo == 0)
                c->mis_equal += n;
            else if (row->lo == 1)
                c->mis_uniform += n;
            else if (row->lo == 2 && row->hi < MFB_REC_MISMATCH_EXACT)
                c->mis_at[row->hi] += n;
            else if (row->lo == 3)
                c->mis_last += n;
        }
    }
    mfb_table_free(&t);
    return rc;
}

int mfb_recording_add_tables(struct mfb_recording *r, const char *dir, struct mfb_err *err)
{
    int found = 0;
    for (int f = 0; f < MFB_FUNC_COUNT; f++) {
        char path[4096];
        const char *fn = mfb_func_name((enum mfb_func)f);
        snprintf(path, sizeof path, "%s/%s_size.csv", dir, fn);
        struct stat st;
        if (stat(path, &st) != 0)
            continue;
        found++;
        static const struct {
            const char *suffix, *role;
            enum mfb_table_kind kind;
        } parts[] = {{"size", "", MFB_T_SIZE},
                     {"src_alignment", "src", MFB_T_ALIGN},
                     {"dst_alignment", "dst", MFB_T_ALIGN},
                     {"overlap", "", MFB_T_OVERLAP},
                     {"mismatch", "", MFB_T_MISMATCH}};
        for (size_t p = 0; p < sizeof parts / sizeof parts[0]; p++) {
            snprintf(path, sizeof path, "%s/%s_%s.csv", dir, fn, parts[p].suffix);
            if (add_table_file(r, (enum mfb_func)f, path, parts[p].kind, parts[p].role, err) < 0)
                return -1;
        }
    }
    if (!found)
        return mfb_fail(err, "%s: no FUNCTION_size.csv table (a folder memfbench record wrote)", dir);
    if (!r->rate)
        r->rate = 1;
    r->sources++;
    return 0;
}

int mfb_recording_add_bpftrace(struct mfb_recording *r, const char *path, enum mfb_func f, struct mfb_err *err)
{
    FILE *fp = fopen(path, "r");
    if (!fp)
        return mfb_fail(err, "%s: cannot read: %s", path, strerror(errno));
    char line[256];
    int ln = 0, rows = 0, rc = 0;
    while (rc == 0 && fgets(line, sizeof line, fp)) {
        ln++;
        unsigned long long size, count;
        char digits[32];
        if (sscanf(line, " @[%llu]: %31[0-9]", &size, digits) == 2) {
            errno = 0;
            count = strtoull(digits, NULL, 10);
            if (errno || count > MFB_MAX_CALL_COUNT)
                rc = mfb_fail(err, "%s:%d: count %s is more calls than a table counts exactly (at most 2^53)", path,
                              ln, digits);
            else if (size > MFB_MAX_SIZE)
                rc = mfb_fail(err, "%s:%d: size %llu is above %u", path, ln, size, MFB_MAX_SIZE);
            else if (add_size(&r->f[f], size, size, count) < 0)
                rc = mfb_fail(err, "%s: out of memory", path);
            r->f[f].calls += count;
            r->f[f].sampled += count;
            rows++;
        }
    }
    fclose(fp);
    if (rc == 0 && rows == 0)
        rc = mfb_fail(err, "%s: no '@[SIZE]: COUNT' line (bpftrace's map output)", path);
    if (rc == 0) {
        r->sources++;
        if (!r->rate)
            r->rate = 1;
    }
    return rc;
}

/* Writes dir/NAME.csv with a header and rows; returns -1 on a write error. */
static FILE *open_table(const char *dir, const char *fn, const char *suffix, const char *header, char *path,
                        size_t cap)
{
    snprintf(path, cap, "%s/%s_%s.csv", dir, fn, suffix);
    FILE *fp = fopen(path, "w");
    if (fp)
        fprintf(fp, "# recorded by memfbench record (weights: calls; with --rate 1/N the sampled calls "
                    "scaled by calls / sampled)\n%s\n", header);
    return fp;
}

static int close_table(FILE *fp, const char *path, struct mfb_err *err)
{
    int bad = ferror(fp) != 0;
    bad |= fclose(fp) != 0;
    return bad ? mfb_fail(err, "%s: write error", path) : 0;
}

/* A sampled count as calls: with --rate 1/N the shape was counted for about one call in N, so
 * each count stands for calls / sampled calls (a merge then weighs recordings by their calls,
 * whatever their rates). */
static unsigned long long as_calls(uint64_t count, double scale)
{
    return (unsigned long long)((double)count * scale + 0.5);
}

static double scale_of(const struct mfb_rec_func *c)
{
    return c->sampled && c->calls > c->sampled ? (double)c->calls / (double)c->sampled : 1.0;
}

static int write_align(const uint64_t *counts, double scale, const char *dir, const char *fn, const char *suffix,
                       struct mfb_err *err)
{
    uint64_t total = 0;
    for (unsigned k = 0; k <= MFB_REC_ALIGN_LOG_MAX; k++)
        total += counts[k];
    if (!total)
        return 0;
    char path[4096];
    FILE *fp = open_table(dir, fn, suffix, "alignment,weight", path, sizeof path);
    if (!fp)
        return mfb_fail(err, "%s: cannot create: %s", path, strerror(errno));
    for (unsigned k = 0; k <= MFB_REC_ALIGN_LOG_MAX; k++)
        if (counts[k])
            fprintf(fp, "%llu,%llu\n", 1ull << k, as_calls(counts[k], scale));
    return close_table(fp, path, err);
}

static int write_func(const struct mfb_rec_func *c, enum mfb_func f, const char *dir, struct mfb_err *err)
{
    const char *fn = mfb_func_name(f);
    double scale = scale_of(c);
    char path[4096];
    FILE *fp = open_table(dir, fn, "size", "size_lo,size_hi,weight", path, sizeof path);
    if (!fp)
        return mfb_fail(err, "%s: cannot create: %s", path, strerror(errno));
    for (size_t i = 0; i < c->nsizes; i++)
        fprintf(fp, "%llu,%llu,%llu\n", (unsigned long long)c->sizes[i].lo, (unsigned long long)c->sizes[i].hi,
                as_calls(c->sizes[i].count, scale));
    if (close_table(fp, path, err) < 0)
        return -1;
    /* memset has one buffer: its alignment is the destination's */
    if ((mfb_func_roles(f) == 2 && write_align(c->src_align, scale, dir, fn, "src_alignment", err) < 0) ||
        write_align(c->dst_align, scale, dir, fn, "dst_alignment", err) < 0)
        return -1;
    if (mfb_func_allows_overlap(f) && c->overlap[0] + c->overlap[1] + c->overlap[2]) {
        static const char *const names[] = {"none", "forward", "backward"};
        if (!(fp = open_table(dir, fn, "overlap", "overlap,weight", path, sizeof path)))
            return mfb_fail(err, "%s: cannot create: %s", path, strerror(errno));
        for (int k = 0; k < 3; k++)
            if (c->overlap[k])
                fprintf(fp, "%s,%llu\n", names[k], as_calls(c->overlap[k], scale));
        if (close_table(fp, path, err) < 0)
            return -1;
    }
    if (mfb_func_compares(f)) {
        uint64_t any = c->mis_equal + c->mis_uniform + c->mis_last;
        for (unsigned p = 0; p < MFB_REC_MISMATCH_EXACT; p++)
            any += c->mis_at[p];
        if (any) {
            if (!(fp = open_table(dir, fn, "mismatch", "mismatch,weight", path, sizeof path)))
                return mfb_fail(err, "%s: cannot create: %s", path, strerror(errno));
            if (c->mis_equal)
                fprintf(fp, "equal,%llu\n", as_calls(c->mis_equal, scale));
            if (c->mis_uniform)
                fprintf(fp, "uniform,%llu\n", as_calls(c->mis_uniform, scale));
            if (c->mis_last)
                fprintf(fp, "last,%llu\n", as_calls(c->mis_last, scale));
            for (unsigned p = 0; p < MFB_REC_MISMATCH_EXACT; p++)
                if (c->mis_at[p])
                    fprintf(fp, "%u,%llu\n", p, as_calls(c->mis_at[p], scale));
            if (close_table(fp, path, err) < 0)
                return -1;
        }
    }
    return 0;
}

int mfb_recording_write(const struct mfb_recording *r, const char *dir, struct mfb_err *err)
{
    int written = 0;
    for (int f = 0; f < MFB_FUNC_COUNT; f++) {
        if (!r->f[f].nsizes)
            continue;
        if (write_func(&r->f[f], (enum mfb_func)f, dir, err) < 0)
            return -1;
        written++;
    }
    return written;
}

void mfb_recording_free(struct mfb_recording *r)
{
    for (int f = 0; f < MFB_FUNC_COUNT; f++)
        free(r->f[f].sizes);
    memset(r, 0, sizeof *r);
}
