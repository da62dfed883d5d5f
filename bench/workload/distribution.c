#include "workload/distribution.h"

#include "base/openin.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/parse.h"
#include "base/sha256.h"
#include "workload/csv.h"

static bool is_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

static int add_file(struct mfb_dist *d, const char *path, const char *role, struct mfb_err *err)
{
    if (d->nfiles == (int)(sizeof d->files / sizeof d->files[0]))
        return mfb_fail(err, "%s: too many files in one distribution", path);
    struct mfb_dist_file *f = &d->files[d->nfiles++];
    if (!(f->path = strdup(path)))
        return mfb_fail(err, "%s: out of memory", path);
    snprintf(f->role, sizeof f->role, "%s", role);
    if (mfb_sha256_file(path, f->sha256) < 0)
        return mfb_fail(err, "%s: cannot read for its checksum", path);
    return 0;
}

static int load_sibling(struct mfb_dist *d, struct mfb_table *t, enum mfb_table_kind kind,
                        const char *prefix, const char *suffix, struct mfb_err *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s_%s.csv", prefix, suffix);
    /* Absent is fine (the sibling is optional); present but unreadable as a table is not: a
     * directory or a FIFO of that name would otherwise be skipped without a word (or block). */
    struct stat st, lst;
    if (stat(path, &st) != 0) {
        if (errno == ENOENT && lstat(path, &lst) != 0)
            return 0;
        return mfb_fail(err, "%s: the %s table beside %s_size.csv cannot be read: %s", path, suffix, prefix,
                        errno == ENOENT ? "a symbolic link to nothing" : strerror(errno));
    }
    if (!S_ISREG(st.st_mode))
        return mfb_fail(err, "%s: the %s table beside %s_size.csv is not a regular file (%s)", path, suffix, prefix,
                        S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode) ? "a FIFO" : "a special file");
    if (mfb_table_load_csv(t, kind, path, err) < 0)
        return -1;
    return add_file(d, path, suffix, err) < 0 ? -1 : 1;
}

/* prefix_size.csv plus the optional siblings that share its prefix. */
static int load_csv_set(struct mfb_dist *d, const char *prefix, struct mfb_err *err)
{
    d->format = MFB_FORMAT_CSV;
    int r;
    if ((r = load_sibling(d, &d->size, MFB_T_SIZE, prefix, "size", err)) <= 0)
        return r < 0 ? -1 : mfb_fail(err, "%s_size.csv: no such file", prefix);
    struct mfb_table both = {0};
    int rs = 0, rd = 0;
    if ((r = load_sibling(d, &both, MFB_T_ALIGN, prefix, "alignment", err)) < 0 ||
        (rs = load_sibling(d, &d->src_align, MFB_T_ALIGN, prefix, "src_alignment", err)) < 0 ||
        (rd = load_sibling(d, &d->dst_align, MFB_T_ALIGN, prefix, "dst_alignment", err)) < 0) {
        /* `both` is not in d yet, so mfb_dist_free would not free what a failed or later failing
         * load left in it (found by tests/fuzz/fuzz_dist_files under LeakSanitizer). */
        mfb_table_free(&both);
        return -1;
    }
    if (r > 0) {
        if (rs > 0 || rd > 0) {
            mfb_table_free(&both);
            return mfb_fail(err, "%s_alignment.csv: conflicts with a _src_alignment/_dst_alignment "
                                 "file of the same prefix; keep one form",
                            prefix);
        }
        /* One table applies to both source and destination, drawn independently. */
        d->src_align = both;
        if (mfb_table_copy(&d->dst_align, &both) < 0)
            return mfb_fail(err, "out of memory");
    }
    if (load_sibling(d, &d->overlap, MFB_T_OVERLAP, prefix, "overlap", err) < 0)
        return -1;
    if (load_sibling(d, &d->mismatch, MFB_T_MISMATCH, prefix, "mismatch", err) < 0)
        return -1;
    return 0;
}

/* fleetbench's own format: three lines of key:probability pairs (sizes, overlap, alignment). */
static int looks_like_fleetbench(const char *path)
{
    struct mfb_err ignored;
    FILE *f = mfb_open_input(path, NULL, &ignored);
    if (!f)
        return 0;
    char buf[256];
    int yes = 0;
    while (fgets(buf, sizeof buf, f)) {
        char *s = buf;
        if (!strncmp(s, "\xEF\xBB\xBF", 3))
            s += 3;
        while (*s == ' ' || *s == '\t')
            s++;
        if (*s == '#' || *s == '\n' || *s == '\r' || !*s)
            continue;
        char *comma = strchr(s, ',');
        char *colon = strchr(s, ':');
        yes = colon && (!comma || colon < comma);
        break;
    }
    fclose(f);
    return yes;
}

static int load_fleetbench(struct mfb_dist *d, const char *path, struct mfb_err *err)
{
    d->format = MFB_FORMAT_FLEETBENCH;
    struct mfb_table *order[3] = {&d->size, &d->overlap, &d->src_align};
    enum mfb_table_kind kinds[3] = {MFB_T_SIZE, MFB_T_OVERLAP, MFB_T_ALIGN};
    const char *line_names[3] = {"size", "overlap", "alignment"};
    struct mfb_csv c;
    if (mfb_csv_open(&c, path, err) < 0)
        return -1;
    int nline = 0, rc;
    char where[600], field[64];
    while ((rc = mfb_csv_next(&c, err)) > 0) {
        if (nline == 3) {
            mfb_fail(err, "%s:%d: line: a fleetbench file has three lines (size, overlap, alignment); "
                          "found a fourth",
                     path, c.line);
            mfb_csv_close(&c);
            return -1;
        }
        struct mfb_table *t = order[nline];
        memset(t, 0, sizeof *t);
        t->kind = kinds[nline];
        t->origin = MFB_TABLE_FROM_FLEETBENCH;
        if (!(t->path = strdup(path))) {
            mfb_csv_close(&c);
            return mfb_fail(err, "%s: out of memory", path);
        }
        snprintf(where, sizeof where, "%s:%d", path, c.line);
        for (int i = 0; i < c.nfields; i++) {
            char *pair = c.fields[i];
            char *colon = strchr(pair, ':');
            snprintf(field, sizeof field, "%s pair %d", line_names[nline], i + 1);
            if (!colon) {
                mfb_fail(err, "%s: %s: '%s' is not key:probability", where, field, pair);
                mfb_csv_close(&c);
                return -1;
            }
            *colon = '\0';
            uint64_t lo, hi;
            double w;
            if (mfb_table_parse_key(kinds[nline], pair, &lo, &hi, where, field, err) < 0 ||
                mfb_table_parse_weight(colon + 1, &w, where, field, err) < 0) {
                mfb_csv_close(&c);
                return -1;
            }
            mfb_table_add(t, lo, hi, w, c.line);
        }
        if (mfb_table_finish(t, where, err) < 0) {
            mfb_csv_close(&c);
            return -1;
        }
        nline++;
    }
    mfb_csv_close(&c);
    if (rc < 0)
        return -1;
    if (nline == 0)
        return mfb_fail(err, "%s: empty file: expected a size line", path);
    if (nline > 2) {
        /* fleetbench draws source and destination alignment independently from one line. */
        if (mfb_table_copy(&d->dst_align, &d->src_align) < 0)
            return mfb_fail(err, "out of memory");
    }
    return add_file(d, path, "all", err);
}

static int synth_add(struct mfb_table *t, uint64_t lo, uint64_t hi, const char *spec,
                     struct mfb_err *err)
{
    if (hi > MFB_MAX_SIZE)
        return mfb_fail(err, "%s: size: %llu exceeds the supported maximum %u", spec,
                        (unsigned long long)hi, MFB_MAX_SIZE);
    return mfb_table_add(t, lo, hi, 1.0, 0);
}

/* fixed:N, uniform:LO-HI, pow2:LO-HI (every power of two in [LO, HI], equally likely). */
static int load_synthetic(struct mfb_dist *d, const char *spec, struct mfb_err *err)
{
    d->format = MFB_FORMAT_SYNTHETIC;
    struct mfb_table *t = &d->size;
    t->kind = MFB_T_SIZE;
    t->origin = MFB_TABLE_FROM_SYNTHETIC;
    const char *arg = strchr(spec, ':') + 1;
    char buf[128];
    /* An argument cut to fit buf would be read as another number ("fixed:" then 130 zeros and a
     * 5 was fixed:0; confirmed with tests/fuzz/fuzz_dist_spec's reference reading): reject it. */
    if (snprintf(buf, sizeof buf, "%s", arg) >= (int)sizeof buf)
        return mfb_fail(err, "%.64s...: size: the argument is longer than %zu characters", spec, sizeof buf - 1);
    uint64_t lo, hi;
    if (!strncmp(spec, "fixed:", 6)) {
        if (mfb_parse_u64(buf, &lo) < 0)
            return mfb_fail(err, "%s: size: '%s' is not a whole number of bytes", spec, buf);
        if (synth_add(t, lo, lo, spec, err) < 0)
            return -1;
    } else {
        char *dash = strchr(buf, '-');
        if (!dash)
            return mfb_fail(err, "%s: range: expected LO-HI", spec);
        *dash = '\0';
        if (mfb_parse_u64(buf, &lo) < 0 || mfb_parse_u64(dash + 1, &hi) < 0)
            return mfb_fail(err, "%s: range: '%s' is not LO-HI in whole bytes", spec, arg);
        if (hi < lo)
            return mfb_fail(err, "%s: range: HI is below LO", spec);
        if (!strncmp(spec, "uniform:", 8)) {
            if (synth_add(t, lo, hi, spec, err) < 0)
                return -1;
        } else {
            int any = 0;
            for (uint64_t p = 1; p <= hi && p <= MFB_MAX_SIZE; p <<= 1)
                if (p >= lo) {
                    if (synth_add(t, p, p, spec, err) < 0)
                        return -1;
                    any = 1;
                }
            if (hi > MFB_MAX_SIZE)
                return synth_add(t, hi, hi, spec, err);
            if (!any)
                return mfb_fail(err, "%s: range: no power of two between LO and HI", spec);
        }
    }
    return mfb_table_finish(t, spec, err);
}

/* A shipped name: group/prefix, or a bare prefix that exactly one group holds. */
static int find_shipped(const char *dist_dir, const char *name, char *prefix, size_t n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s_size.csv", dist_dir, name);
    if (is_file(path)) {
        snprintf(prefix, n, "%s/%s", dist_dir, name);
        return 1;
    }
    if (strchr(name, '/'))
        return 0;
    DIR *dir = opendir(dist_dir);
    if (!dir)
        return 0;
    int found = 0;
    struct dirent *e;
    while ((e = readdir(dir))) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s/%s_size.csv", dist_dir, e->d_name, name);
        if (is_file(path)) {
            found++;
            snprintf(prefix, n, "%s/%s/%s", dist_dir, e->d_name, name);
        }
    }
    closedir(dir);
    return found;
}

const char *mfb_dist_format_name(enum mfb_dist_format f)
{
    static const char *const names[] = {[MFB_FORMAT_CSV] = "csv", [MFB_FORMAT_FLEETBENCH] = "fleetbench",
                                        [MFB_FORMAT_SYNTHETIC] = "synthetic"};
    return names[f];
}

/* The shipped names, gathered for the nearest one to a typo. */
struct shipped_names {
    char *name[256];
    size_t n;
};

static void keep_name(const char *name, void *ctx)
{
    struct shipped_names *s = ctx;
    if (s->n < sizeof s->name / sizeof s->name[0])
        s->name[s->n++] = strdup(name);
}

/* ": did you mean 'fleetbench/Memcpy_Fleet'?" for a spec a shipped name is a few typing slips from
 * (with or without its group), else "". */
static void nearest_shipped(const char *dist_dir, const char *spec, char *hint, size_t cap)
{
    struct shipped_names s = {.n = 0};
    hint[0] = '\0';
    if (mfb_dist_list(dist_dir, keep_name, &s) < 0)
        return;
    const char *bare[256];
    for (size_t i = 0; i < s.n; i++) /* "Memcpy_Flet" is compared with the names without their group */
        bare[i] = s.name[i] && strchr(s.name[i], '/') ? strchr(s.name[i], '/') + 1 : s.name[i] ? s.name[i] : "";
    int k = mfb_nearest_name(spec, (const char *const *)s.name, s.n, 3);
    if (k < 0 && !strchr(spec, '/'))
        k = mfb_nearest_name(spec, bare, s.n, 3);
    if (k >= 0 && s.name[k])
        snprintf(hint, cap, ": did you mean '%s'?", s.name[k]);
    for (size_t i = 0; i < s.n; i++)
        free(s.name[i]);
}

int mfb_dist_resolve(struct mfb_dist *d, const char *spec, enum mfb_func f, const char *dist_dir,
                     struct mfb_err *err)
{
    memset(d, 0, sizeof *d);
    if (!(d->name = strdup(spec)))
        return mfb_fail(err, "%s: out of memory", spec);
    int rc;
    char prefix[4096];
    if (!strncmp(spec, "fixed:", 6) || !strncmp(spec, "uniform:", 8) || !strncmp(spec, "pow2:", 5)) {
        rc = load_synthetic(d, spec, err);
    } else if (is_file(spec)) {
        if (ends_with(spec, "_size.csv")) {
            snprintf(prefix, sizeof prefix, "%.*s", (int)(strlen(spec) - 9), spec);
            rc = load_csv_set(d, prefix, err);
        } else if (looks_like_fleetbench(spec)) {
            rc = load_fleetbench(d, spec, err);
        } else {
            d->format = MFB_FORMAT_CSV;
            rc = mfb_table_load_csv(&d->size, MFB_T_SIZE, spec, err);
            if (rc == 0)
                rc = add_file(d, spec, "size", err);
        }
    } else {
        int found = find_shipped(dist_dir, spec, prefix, sizeof prefix);
        if (found > 1)
            return mfb_fail(err, "distribution '%s': ambiguous, name it as group/%s (see memfbench list)",
                            spec, spec);
        struct stat st;
        if (found == 0 && stat(spec, &st) == 0) /* there, but no file: say what it is */
            return mfb_fail(err, "distribution '%s': not a regular file (a %s): give a table's file, a shipped name "
                                 "or a synthetic spec", spec, S_ISDIR(st.st_mode) ? "folder" :
                            S_ISFIFO(st.st_mode) ? "pipe" : "device or other");
        if (found == 0) {
            char hint[200];
            nearest_shipped(dist_dir, spec, hint, sizeof hint);
            return mfb_fail(err, "distribution '%s': no such file, shipped name (in %s) or "
                                 "synthetic spec (fixed:N, uniform:LO-HI, pow2:LO-HI)%s",
                            spec, dist_dir, hint);
        }
        rc = load_csv_set(d, prefix, err);
    }
    if (rc < 0)
        return -1;
    if (d->overlap.n && !mfb_func_allows_overlap(f)) {
        /* Overlapping memcpy is undefined behaviour, and memset has one buffer: like fleetbench,
         * replay such a table as non-overlapping, and say so in the output. */
        for (size_t i = 0; i < d->overlap.n; i++)
            if (d->overlap.rows[i].lo != MFB_OVL_NONE && d->overlap.rows[i].p > 0)
                d->overlap_ignored = true;
        mfb_table_free(&d->overlap);
    }
    if (!mfb_func_compares(f))
        mfb_table_free(&d->mismatch);
    else if (d->mismatch.n == 0) {
        /* No recorded mismatch data exists; use fleetbench's model: 40 % equal, otherwise the
         * first difference uniform within the call. Recorded as origin "default". */
        d->mismatch.kind = MFB_T_MISMATCH;
        d->mismatch.origin = MFB_TABLE_FROM_DEFAULT;
        mfb_table_add(&d->mismatch, MFB_MIS_EQUAL, 0, 0.4, 0);
        mfb_table_add(&d->mismatch, MFB_MIS_UNIFORM, 0, 0.6, 0);
        if (mfb_table_finish(&d->mismatch, "default mismatch model", err) < 0)
            return -1;
    }
    if (mfb_func_roles(f) == 1 && d->src_align.n) {
        /* memset has only a destination: a single alignment table describes it. */
        if (d->dst_align.n == 0) {
            d->dst_align = d->src_align;
            memset(&d->src_align, 0, sizeof d->src_align);
        } else
            mfb_table_free(&d->src_align);
    }
    return 0;
}

void mfb_dist_free(struct mfb_dist *d)
{
    free(d->name);
    mfb_table_free(&d->size);
    mfb_table_free(&d->src_align);
    mfb_table_free(&d->dst_align);
    mfb_table_free(&d->overlap);
    mfb_table_free(&d->mismatch);
    for (int i = 0; i < d->nfiles; i++)
        free(d->files[i].path);
    memset(d, 0, sizeof *d);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int mfb_dist_list(const char *dist_dir, void (*fn)(const char *name, void *ctx), void *ctx)
{
    DIR *top = opendir(dist_dir);
    if (!top)
        return -1;
    char **names = NULL;
    size_t n = 0;
    bool ok = true;
    struct dirent *g;
    while (ok && (g = readdir(top))) {
        if (g->d_name[0] == '.')
            continue;
        char sub[4096];
        snprintf(sub, sizeof sub, "%s/%s", dist_dir, g->d_name);
        DIR *dir = opendir(sub);
        if (!dir)
            continue;
        struct dirent *e;
        while ((e = readdir(dir))) {
            if (!ends_with(e->d_name, "_size.csv"))
                continue;
            char name[600];
            snprintf(name, sizeof name, "%s/%.*s", g->d_name, (int)(strlen(e->d_name) - 9), e->d_name);
            char **more = realloc(names, (n + 1) * sizeof *names);
            if (!more || !(more[n] = strdup(name))) {
                names = more ? more : names;
                ok = false;
                break;
            }
            names = more;
            n++;
        }
        closedir(dir);
    }
    closedir(top);
    if (!ok) {
        for (size_t i = 0; i < n; i++)
            free(names[i]);
        free(names);
        return -1;
    }
    qsort(names, n, sizeof *names, cmp_str);
    for (size_t i = 0; i < n; i++) {
        fn(names[i], ctx);
        free(names[i]);
    }
    free(names);
    return 0;
}

uint64_t mfb_dist_align_period(const struct mfb_dist *d)
{
    uint64_t s = d->src_align.n ? mfb_table_largest_key(&d->src_align) : 0;
    uint64_t t = d->dst_align.n ? mfb_table_largest_key(&d->dst_align) : 0;
    return s > t ? s : t;
}

bool mfb_dist_overlaps(const struct mfb_dist *d)
{
    for (size_t i = 0; i < d->overlap.n; i++)
        if (d->overlap.rows[i].lo != MFB_OVL_NONE && d->overlap.rows[i].p > 0)
            return true;
    return false;
}
