#include "workload/recording.h"

#include "base/openin.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "workload/table.h"

/* Adds count calls of sizes lo..hi; keys stay sorted and distinct. The place is found by bisection:
 * a histogram of many sizes, added in order, then costs no scan per row. */
static int add_size(struct mfb_rec_func *f, uint64_t lo, uint64_t hi, uint64_t count)
{
    size_t i = 0, end = f->nsizes;
    while (i < end) {
        size_t m = i + (end - i) / 2;
        if (f->sizes[m].lo < lo)
            i = m + 1;
        else
            end = m;
    }
    /* rows of one lo differ in hi (an exact size beside a range from it): the same key is one row */
    for (size_t j = i; j < f->nsizes && f->sizes[j].lo == lo; j++)
        if (f->sizes[j].hi == hi) {
            f->sizes[j].count += count;
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
    FILE *fp = mfb_open_input(path, NULL, err);
    if (!fp)
        return -1;
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

/* A weight merge reads as calls: a whole number (the recorder writes counts; a fraction is a table
 * of probabilities, or an edited one, and would be rounded into counts that were never made). */
static int table_calls(const char *path, const struct mfb_row *row, uint64_t *n, struct mfb_err *err)
{
    if (!(row->weight <= (double)MFB_MAX_CALL_COUNT))
        return mfb_fail(err, "%s:%d: weight %g is more calls than a table counts exactly (at most 2^53)", path,
                        row->line, row->weight);
    if (row->weight != floor(row->weight))
        return mfb_fail(err, "%s:%d: weight %.15g is not a whole number of calls: merge adds the call counts of "
                             "recorded folders, not probabilities", path, row->line, row->weight);
    *n = (uint64_t)row->weight;
    return 0;
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
        uint64_t n = 0;
        if ((rc = table_calls(path, row, &n, err)) < 0)
            break;
        if (kind == MFB_T_SIZE) {
            /* each term at most 2^53: the sum cannot wrap before it is checked */
            if (c->calls + n > MFB_MAX_CALL_COUNT) {
                rc = mfb_fail(err, "%s:%d: %s's calls add up to more than 2^53 here, more than a table counts "
                                   "exactly", path, row->line, mfb_func_name(f));
                break;
            }
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

/* The tables of one function's recording, and which functions have each: memfbench record writes a
 * sibling only for a function that has it (as write_func below), so one in a folder for another
 * function is another function's table under this name, and its calls would be dropped unread. */
static const struct table_part {
    const char *suffix, *role;
    enum mfb_table_kind kind;
    const char *absent; /* why a function without the trait has no such table */
} parts[] = {{"size", "", MFB_T_SIZE, NULL},
             {"src_alignment", "src", MFB_T_ALIGN, "one buffer, so no source alignment"},
             {"dst_alignment", "dst", MFB_T_ALIGN, NULL},
             {"overlap", "", MFB_T_OVERLAP, "buffers that never overlap"},
             {"mismatch", "", MFB_T_MISMATCH, "no comparison, so no mismatch"}};

static bool function_has(enum mfb_func f, const struct table_part *p)
{
    if (p->kind == MFB_T_OVERLAP)
        return mfb_func_allows_overlap(f);
    if (p->kind == MFB_T_MISMATCH)
        return mfb_func_compares(f);
    return strcmp(p->role, "src") != 0 || mfb_func_roles(f) == 2;
}

int mfb_recording_add_tables(struct mfb_recording *r, const char *dir, struct mfb_err *err)
{
    int found = 0;
    for (int f = 0; f < MFB_FUNC_COUNT; f++) {
        char path[4096];
        const char *fn = mfb_func_name((enum mfb_func)f);
        bool sized = false;
        for (size_t p = 0; p < sizeof parts / sizeof parts[0]; p++) {
            if ((size_t)snprintf(path, sizeof path, "%s/%s_%s.csv", dir, fn, parts[p].suffix) >= sizeof path)
                return mfb_fail(err, "%s: path too long", dir);
            struct stat st;
            bool present = stat(path, &st) == 0;
            if (p == 0)
                sized = present;
            if (!present)
                continue;
            if (!sized)
                return mfb_fail(err, "%s: no %s_size.csv beside it: a sibling without its size table, which merge "
                                     "would drop", path, fn);
            if (!function_has((enum mfb_func)f, &parts[p]))
                return mfb_fail(err, "%s: %s has %s: this is another function's table, which merge would drop",
                                path, fn, parts[p].absent);
            if (add_table_file(r, (enum mfb_func)f, path, parts[p].kind, parts[p].role, err) < 0)
                return -1;
            found += p == 0;
        }
        /* the replay reads FUNCTION_alignment.csv as both buffers' table; the recorder never writes one */
        struct stat st;
        if ((size_t)snprintf(path, sizeof path, "%s/%s_alignment.csv", dir, fn) < sizeof path && stat(path, &st) == 0)
            return mfb_fail(err, "%s: merge reads the %s_src_alignment.csv and %s_dst_alignment.csv memfbench "
                                 "record writes; this table would be dropped", path, fn, fn);
    }
    if (!found)
        return mfb_fail(err, "%s: no FUNCTION_size.csv table (a folder memfbench record wrote)", dir);
    if (!r->rate)
        r->rate = 1;
    r->sources++;
    return 0;
}

/* A bpftrace histogram file holds a few hundred short lines; these bound what one may make merge
 * read and keep. "@[SIZE]: COUNT" is under 50 bytes; a process's sizes are a few thousand distinct
 * values (the Python workload of docs/recording.md: 577), so 2^20 rows (24 MiB) is far above it. */
#define BPF_MAX_LINE 256
#define BPF_MAX_ROWS (1u << 20)

struct bpf_row {
    uint64_t size, count;
    int line;
};

static int cmp_bpf_rows(const void *a, const void *b)
{
    const struct bpf_row *x = a, *y = b;
    if (x->size != y->size)
        return x->size < y->size ? -1 : 1;
    return x->line - y->line;
}

/* One line into buf without its newline: 1, 0 at the end of the file, -1 longer than cap - 1 bytes,
 * -2 holding a NUL byte. Read a byte at a time, so the length is exact whatever the bytes are. */
static int bpf_read_line(FILE *fp, char *buf, size_t cap)
{
    size_t n = 0;
    int ch;
    bool any = false, nul = false;
    while ((ch = getc(fp)) != EOF) {
        any = true;
        if (ch == '\n')
            break;
        if (n + 1 >= cap)
            return -1;
        nul |= ch == '\0';
        buf[n++] = (char)ch;
    }
    buf[n] = '\0';
    return !any ? 0 : nul ? -2 : 1;
}

/* Decimal digits at *p (at least one) into *v, *p moved past them; -1 when there are none, and
 * *v = UINT64_MAX for a number past 2^64 - 1 (refused by the callers' bounds, with their words). */
static int bpf_number(const char **p, uint64_t *v)
{
    const char *s = *p;
    uint64_t x = 0;
    bool over = false;
    while (*s >= '0' && *s <= '9') {
        unsigned d = (unsigned)(*s++ - '0');
        over |= x > (UINT64_MAX - d) / 10;
        x = x * 10 + d;
    }
    if (s == *p)
        return -1;
    *v = over ? UINT64_MAX : x;
    *p = s;
    return 0;
}

/* What bpftrace prints for a count() map: 1 a row "@[SIZE]: COUNT", 0 a line it prints around the
 * map (blank, or "Attaching N probe(s)..."), -1 anything else: a line that is skipped would drop
 * its calls without a word. */
static int bpf_line(const char *s, uint64_t *size, uint64_t *count)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        n--;
    if (n == 0)
        return 0;
    uint64_t probes;
    const char *p = s + 10;
    if (!strncmp(s, "Attaching ", 10) && bpf_number(&p, &probes) == 0 &&
        (!strncmp(p, " probe...", 9) || !strncmp(p, " probes...", 10)) &&
        (size_t)(p - s) + (p[6] == 's' ? 10 : 9) == n)
        return 0;
    p = s;
    if (strncmp(p, "@[", 2) != 0)
        return -1;
    p += 2;
    if (bpf_number(&p, size) < 0 || strncmp(p, "]:", 2) != 0)
        return -1;
    p += 2;
    while (*p == ' ' || *p == '\t')
        p++;
    if (bpf_number(&p, count) < 0 || (size_t)(p - s) != n)
        return -1;
    return 1;
}

/* The rows of one file, each size once, into f; the file is refused whole or added whole. */
static int bpf_add_rows(struct mfb_rec_func *f, struct bpf_row *rows, size_t n, const char *path,
                        struct mfb_err *err)
{
    qsort(rows, n, sizeof *rows, cmp_bpf_rows);
    uint64_t calls = f->calls;
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && rows[i].size == rows[i - 1].size)
            return mfb_fail(err, "%s:%d: size %llu again (line %d has it): bpftrace prints each key of a map once, "
                                 "so this is not one histogram", path, rows[i].line,
                            (unsigned long long)rows[i].size, rows[i - 1].line);
        calls += rows[i].count; /* both at most 2^53, checked at once: the sum never wraps */
        if (calls > MFB_MAX_CALL_COUNT)
            return mfb_fail(err, "%s:%d: the calls add up to more than 2^53, more than a table counts exactly", path,
                            rows[i].line);
    }
    for (size_t i = 0; i < n; i++)
        if (add_size(f, rows[i].size, rows[i].size, rows[i].count) < 0)
            return mfb_fail(err, "%s: out of memory", path);
    f->sampled += calls - f->calls;
    f->calls = calls;
    return 0;
}

int mfb_recording_add_bpftrace(struct mfb_recording *r, const char *path, enum mfb_func f, struct mfb_err *err)
{
    /* a device or a pipe may never end (/dev/zero): a histogram is a file bpftrace's output went to */
    FILE *fp = mfb_open_input(path, "give bpftrace's output as a file", err);
    if (!fp)
        return -1;
    char line[BPF_MAX_LINE + 1];
    struct bpf_row *rows = NULL;
    size_t nrows = 0, cap = 0;
    int ln = 0, rc = 0, got;
    while (rc == 0 && (got = bpf_read_line(fp, line, sizeof line)) != 0) {
        ln++;
        uint64_t size = 0, count = 0;
        int kind = got == 1 ? bpf_line(line, &size, &count) : 0;
        if (got == -1)
            rc = mfb_fail(err, "%s:%d: a line longer than %d bytes: not bpftrace's map output", path, ln,
                          BPF_MAX_LINE);
        else if (got == -2)
            rc = mfb_fail(err, "%s:%d: NUL byte: not a text file", path, ln);
        else if (kind < 0)
            rc = mfb_fail(err, "%s:%d: not an '@[SIZE]: COUNT' line of bpftrace's count() map (nor its "
                               "'Attaching N probes...' line)", path, ln);
        else if (kind == 0)
            continue;
        else if (count > MFB_MAX_CALL_COUNT)
            rc = mfb_fail(err, "%s:%d: count %llu%s is more calls than a table counts exactly (at most 2^53)", path,
                          ln, (unsigned long long)count, count == UINT64_MAX ? " or more" : "");
        else if (size > MFB_MAX_SIZE)
            rc = mfb_fail(err, "%s:%d: size %llu%s is above %u", path, ln, (unsigned long long)size,
                          size == UINT64_MAX ? " or more" : "", MFB_MAX_SIZE);
        else if (nrows == BPF_MAX_ROWS)
            rc = mfb_fail(err, "%s:%d: more than %u sizes: not the histogram of a process's calls", path, ln,
                          BPF_MAX_ROWS);
        else if (nrows == cap) {
            size_t ncap = cap ? 2 * cap : 256;
            struct bpf_row *p = realloc(rows, ncap * sizeof *p);
            if (!p)
                rc = mfb_fail(err, "%s: out of memory", path);
            else
                rows = p, cap = ncap;
        }
        if (rc == 0)
            rows[nrows++] = (struct bpf_row){size, count, ln};
    }
    if (rc == 0 && ferror(fp))
        rc = mfb_fail(err, "%s:%d: read error", path, ln + 1);
    fclose(fp);
    if (rc == 0 && nrows == 0)
        rc = mfb_fail(err, "%s: no '@[SIZE]: COUNT' line (bpftrace's map output)", path);
    if (rc == 0)
        rc = bpf_add_rows(&r->f[f], rows, nrows, path, err);
    free(rows);
    if (rc == 0) {
        r->sources++;
        if (!r->rate)
            r->rate = 1;
    }
    return rc;
}

int mfb_recording_sum(struct mfb_recording *into, const struct mfb_recording *from, struct mfb_err *err)
{
    for (int f = 0; f < MFB_FUNC_COUNT; f++) {
        struct mfb_rec_func *t = &into->f[f];
        const struct mfb_rec_func *c = &from->f[f];
        /* each at most 2^53 (the readers' bound): the sum cannot wrap before it is checked */
        if (t->calls + c->calls > MFB_MAX_CALL_COUNT)
            return mfb_fail(err, "%s: the inputs' calls add up to more than 2^53, more than a table counts exactly",
                            mfb_func_name((enum mfb_func)f));
        for (size_t i = 0; i < c->nsizes; i++)
            if (add_size(t, c->sizes[i].lo, c->sizes[i].hi, c->sizes[i].count) < 0)
                return mfb_fail(err, "out of memory merging %s's sizes", mfb_func_name((enum mfb_func)f));
        t->calls += c->calls;
        t->sampled += c->sampled;
        for (unsigned k = 0; k <= MFB_REC_ALIGN_LOG_MAX; k++) {
            t->src_align[k] += c->src_align[k];
            t->dst_align[k] += c->dst_align[k];
        }
        for (int k = 0; k < 3; k++)
            t->overlap[k] += c->overlap[k];
        t->mis_equal += c->mis_equal;
        t->mis_uniform += c->mis_uniform;
        t->mis_last += c->mis_last;
        for (unsigned p = 0; p < MFB_REC_MISMATCH_EXACT; p++)
            t->mis_at[p] += c->mis_at[p];
    }
    if (!into->rate)
        into->rate = from->rate;
    into->sources += from->sources;
    return 0;
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
