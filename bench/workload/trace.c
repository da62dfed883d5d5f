#include "workload/trace.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/parse.h"
#include "base/quantile.h"
#include "workload/csv.h"
#include "workload/table.h"

struct site {
    char *caller;
    int func;
    uint64_t size;
};

static int cmp_site(const void *a, const void *b)
{
    const struct site *x = a, *y = b;
    int c = strcmp(x->caller, y->caller);
    return c ? c : x->func - y->func;
}

struct agg {
    const char *caller;
    int func;
    uint64_t calls, bytes;
};

static int cmp_agg(const void *a, const void *b)
{
    const struct agg *x = a, *y = b;
    return (x->bytes < y->bytes) - (x->bytes > y->bytes);
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Appends one trace file's calls to the per-function CSV files and to sites. */
static int read_trace(const char *path, FILE **out, const char *out_dir, struct site **sites, size_t *n,
                      size_t *cap, struct mfb_err *err)
{
    FILE *fp = fopen(path, "r");
    if (!fp)
        return mfb_fail(err, "%s: cannot read: %s", path, strerror(errno));
    char line[512];
    int ln = 0, rc = 0;
    bool ended = false;
    while (rc == 0 && fgets(line, sizeof line, fp)) {
        ln++;
        line[strcspn(line, "\n")] = '\0';
        if (ln == 1) {
            if (strcmp(line, "memfbench-trace 1"))
                rc = mfb_fail(err, "%s:1: not a memfbench trace", path);
            continue;
        }
        if (!strcmp(line, "end")) {
            ended = true;
            break;
        }
        char fn[16], caller[400];
        unsigned long long size, sa, da;
        enum mfb_func f;
        if (sscanf(line, "%15s %llu %llu %llu %399s", fn, &size, &sa, &da, caller) != 5 || mfb_func_parse(fn, &f) < 0) {
            rc = mfb_fail(err, "%s:%d: not a line the recorder writes", path, ln);
            break;
        }
        if (!out[f]) {
            char p[4096];
            snprintf(p, sizeof p, "%s/%s_trace.csv", out_dir, fn);
            if (!(out[f] = fopen(p, "w"))) {
                rc = mfb_fail(err, "%s: cannot create: %s", p, strerror(errno));
                break;
            }
            fprintf(out[f], "# recorded by memfbench record --trace: calls in the order the program made them\n"
                            "size,src_alignment,dst_alignment,caller\n");
        }
        fprintf(out[f], "%llu,%llu,%llu,%s\n", size, sa, da, caller);
        if (*n == *cap) {
            size_t c2 = *cap ? 2 * *cap : 4096;
            struct site *s2 = realloc(*sites, c2 * sizeof *s2);
            if (!s2) {
                rc = mfb_fail(err, "out of memory reading %s", path);
                break;
            }
            *sites = s2;
            *cap = c2;
        }
        if (!((*sites)[*n].caller = strdup(caller))) {
            rc = mfb_fail(err, "out of memory reading %s", path);
            break;
        }
        (*sites)[*n].func = (int)f;
        (*sites)[(*n)++].size = size;
    }
    fclose(fp);
    if (rc == 0 && !ended)
        rc = mfb_fail(err, "%s: no end line: a torn file", path);
    return rc;
}

static int write_sites(const char *out_dir, struct site *sites, size_t n, struct mfb_err *err)
{
    qsort(sites, n, sizeof *sites, cmp_site);
    struct agg *a = calloc(n + 1, sizeof *a);
    if (!a)
        return mfb_fail(err, "out of memory counting call sites");
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (k == 0 || strcmp(a[k - 1].caller, sites[i].caller) || a[k - 1].func != sites[i].func)
            a[k++] = (struct agg){sites[i].caller, sites[i].func, 0, 0};
        a[k - 1].calls++;
        a[k - 1].bytes += sites[i].size;
    }
    qsort(a, k, sizeof *a, cmp_agg);
    char p[4096];
    snprintf(p, sizeof p, "%s/callsites.csv", out_dir);
    FILE *fp = fopen(p, "w");
    if (!fp) {
        free(a);
        return mfb_fail(err, "%s: cannot create: %s", p, strerror(errno));
    }
    fprintf(fp, "# call sites of the traced calls, most bytes first (caller: symbol+offset@object, or "
                "object+offset: addr2line -f -e OBJECT OFFSET names it when the object has debug info)\n"
                "function,caller,calls,bytes\n");
    for (size_t i = 0; i < k; i++)
        fprintf(fp, "%s,%s,%llu,%llu\n", mfb_func_name((enum mfb_func)a[i].func), a[i].caller,
                (unsigned long long)a[i].calls, (unsigned long long)a[i].bytes);
    int bad = ferror(fp) != 0;
    bad |= fclose(fp) != 0;
    free(a);
    return bad ? mfb_fail(err, "%s: write error", p) : 0;
}

long mfb_trace_convert(const char *raw_dir, const char *out_dir, struct mfb_err *err)
{
    DIR *d = opendir(raw_dir);
    if (!d)
        return mfb_fail(err, "%s: cannot read: %s", raw_dir, strerror(errno));
    char **names = NULL;
    size_t nn = 0, cn = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (strncmp(e->d_name, "trace-", 6) || len < 10 || strcmp(e->d_name + len - 4, ".txt"))
            continue;
        if (nn == cn) {
            cn = cn ? 2 * cn : 16;
            char **p = realloc(names, cn * sizeof *p);
            if (!p)
                break;
            names = p;
        }
        names[nn] = strdup(e->d_name);
        if (names[nn])
            nn++;
    }
    closedir(d);
    qsort(names, nn, sizeof *names, cmp_name);
    FILE *out[MFB_FUNC_COUNT] = {0};
    struct site *sites = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    for (size_t i = 0; i < nn && rc == 0; i++) {
        char p[4096 + 256];
        snprintf(p, sizeof p, "%s/%s", raw_dir, names[i]);
        rc = read_trace(p, out, out_dir, &sites, &n, &cap, err);
    }
    for (int f = 0; f < MFB_FUNC_COUNT; f++)
        if (out[f] && fclose(out[f]) != 0 && rc == 0)
            rc = mfb_fail(err, "%s: write error", out_dir);
    if (rc == 0 && n)
        rc = write_sites(out_dir, sites, n, err);
    for (size_t i = 0; i < n; i++)
        free(sites[i].caller);
    free(sites);
    for (size_t i = 0; i < nn; i++)
        free(names[i]);
    free(names);
    return rc < 0 ? -1 : (long)n;
}

static int is_align(unsigned long long a)
{
    return a >= 1 && a <= MFB_MAX_ALIGN && (a & (a - 1)) == 0;
}

/* One of a call's numbers: digits only (a sign, a space inside or a wrap past 2^64 is refused),
 * at most max; 0, or -1 with the line, the column and what is wrong. */
static int trace_number(const struct mfb_csv *c, int col, uint64_t max, bool align, uint64_t *out, struct mfb_err *err)
{
    static const char *const names[] = {"size", "src_alignment", "dst_alignment"};
    const char *f = c->fields[col];
    if (mfb_parse_u64(f, out) < 0)
        return mfb_fail(err, "%s:%d: %s: '%.40s' is not a whole number (digits only, below 2^64)", c->path, c->line, names[col], f);
    if (align ? !is_align(*out) : *out > max)
        return mfb_fail(err, "%s:%d: %s: %s", c->path, c->line, names[col],
                        align ? "not a power of two up to 4096" : "above 64 MiB");
    return 0;
}

static int trace_push(struct mfb_trace *t, const struct mfb_csv *c, struct mfb_trace_call call, struct mfb_err *err)
{
    if (t->n == MFB_MAX_TRACE_CALLS)
        return mfb_fail(err, "%s:%d: more than %u calls", c->path, c->line, MFB_MAX_TRACE_CALLS);
    if (t->n == t->cap) {
        size_t c2 = t->cap ? 2 * t->cap : 4096;
        struct mfb_trace_call *p = realloc(t->c, c2 * sizeof *p);
        if (!p)
            return mfb_fail(err, "%s: out of memory", c->path);
        t->c = p;
        t->cap = c2;
    }
    t->c[t->n++] = call;
    return 0;
}

int mfb_trace_load(struct mfb_trace *t, const char *path, struct mfb_err *err)
{
    static const char *const header[] = {"size", "src_alignment", "dst_alignment", "caller"};
    memset(t, 0, sizeof *t);
    struct mfb_csv c;
    if (mfb_csv_open(&c, path, err) < 0)
        return -1;
    int rc;
    bool seen_header = false;
    while ((rc = mfb_csv_next(&c, err)) > 0) {
        rc = 0;
        if (!seen_header) {
            bool ok = c.nfields == 4;
            for (int k = 0; ok && k < 4; k++)
                ok = !strcmp(c.fields[k], header[k]);
            if (!ok) {
                rc = mfb_fail(err, "%s:%d: header: expected size,src_alignment,dst_alignment,caller", path, c.line);
                break;
            }
            seen_header = true;
            continue;
        }
        /* The caller is the rest of the line (a symbol may hold commas); the replay does not use it. */
        if (c.nfields < 4) {
            rc = mfb_fail(err, "%s:%d: expected SIZE,SRC_ALIGNMENT,DST_ALIGNMENT,CALLER", path, c.line);
            break;
        }
        uint64_t size, sa, da;
        if ((rc = trace_number(&c, 0, MFB_MAX_SIZE, false, &size, err)) < 0 ||
            (rc = trace_number(&c, 1, 0, true, &sa, err)) < 0 || (rc = trace_number(&c, 2, 0, true, &da, err)) < 0 ||
            (rc = trace_push(t, &c, (struct mfb_trace_call){size, (uint32_t)sa, (uint32_t)da}, err)) < 0)
            break;
    }
    mfb_csv_close(&c);
    if (rc == 0 && !seen_header)
        rc = mfb_fail(err, "%s: empty: no header", path);
    if (rc == 0 && t->n == 0)
        rc = mfb_fail(err, "%s: no calls", path);
    if (rc < 0)
        mfb_trace_free(t);
    return rc;
}

/* A table of the counts of values, in ascending order. */
static int counted(struct mfb_table *t, enum mfb_table_kind kind, const struct mfb_trace *tr, int which,
                   const char *where, struct mfb_err *err)
{
    uint64_t *v = malloc(tr->n * sizeof *v);
    if (!v)
        return mfb_fail(err, "%s: out of memory", where);
    for (size_t i = 0; i < tr->n; i++)
        v[i] = which == 0 ? tr->c[i].size : which == 1 ? tr->c[i].src_align : tr->c[i].dst_align;
    mfb_quantile_sort_u64(v, tr->n);
    mfb_table_free(t);
    memset(t, 0, sizeof *t);
    t->kind = kind;
    t->origin = MFB_TABLE_FROM_FILE;
    int rc = 0;
    for (size_t i = 0; i < tr->n && rc == 0;) {
        size_t j = i;
        while (j < tr->n && v[j] == v[i])
            j++;
        rc = mfb_table_add(t, v[i], v[i], (double)(j - i), 0) < 0 ? mfb_fail(err, "%s: out of memory", where) : 0;
        i = j;
    }
    free(v);
    return rc < 0 ? -1 : mfb_table_finish(t, where, err);
}

int mfb_trace_dist(const struct mfb_trace *t, const char *path, enum mfb_func f, const char *dist_dir,
                   struct mfb_dist *d, struct mfb_err *err)
{
    char spec[64];
    snprintf(spec, sizeof spec, "fixed:%llu", (unsigned long long)t->c[0].size);
    if (mfb_dist_resolve(d, spec, f, dist_dir, err) < 0)
        return -1;
    if (counted(&d->size, MFB_T_SIZE, t, 0, path, err) < 0 ||
        (mfb_func_roles(f) == 2 && counted(&d->src_align, MFB_T_ALIGN, t, 1, path, err) < 0) ||
        counted(&d->dst_align, MFB_T_ALIGN, t, 2, path, err) < 0)
        return -1;
    free(d->name);
    char name[512];
    snprintf(name, sizeof name, "trace:%s", path);
    if (!(d->name = strdup(name)))
        return mfb_fail(err, "%s: out of memory", path);
    return 0;
}

void mfb_trace_free(struct mfb_trace *t)
{
    free(t->c);
    memset(t, 0, sizeof *t);
}
