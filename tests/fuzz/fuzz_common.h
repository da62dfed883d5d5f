/* Helpers shared by the fuzz targets (tests/fuzz/README.md): an input file in memory, the input
 * as a C string, and the invariants every successfully loaded table or distribution must hold.
 * An invariant that fails calls abort(), which libFuzzer and the replay driver report as a crash
 * (assert() would vanish in a release build). */
#ifndef MFB_FUZZ_COMMON_H
#define MFB_FUZZ_COMMON_H

#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/functions.h"
#include "workload/distribution.h"
#include "workload/table.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond)                                                                              \
    do {                                                                                          \
        if (!(cond)) {                                                                            \
            fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond);          \
            abort();                                                                              \
        }                                                                                         \
    } while (0)

/* A file whose content is the input, created once per process: its path is /proc/self/fd/N, so
 * the loaders under test open it by name like any other file, and nothing touches the disk. */
struct fuzz_file {
    int fd;
    char path[64];
};

static inline void fuzz_file_init(struct fuzz_file *f)
{
    if (f->path[0])
        return;
    f->fd = memfd_create("mfb-fuzz-input", 0);
    if (f->fd < 0) {
        perror("memfd_create");
        abort();
    }
    snprintf(f->path, sizeof f->path, "/proc/self/fd/%d", f->fd);
}

static inline void fuzz_file_set(struct fuzz_file *f, const uint8_t *data, size_t size)
{
    fuzz_file_init(f);
    if (ftruncate(f->fd, 0) < 0 || (size && pwrite(f->fd, data, size, 0) != (ssize_t)size)) {
        perror("fuzz input file");
        abort();
    }
}

/* The input as a NUL-terminated string (it ends at the first NUL byte, as a C caller's would);
 * the caller frees it. */
static inline char *fuzz_strdup(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        abort();
    if (size)
        memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

static inline int fuzz_is_pow2(uint64_t v)
{
    return v && !(v & (v - 1));
}

/* What mfb_table_finish promises: rows sorted and distinct (sizes: disjoint ranges), keys
 * within the kind's domain, finite non-negative weights, probabilities that sum to 1. */
static inline void fuzz_check_table(const struct mfb_table *t, enum mfb_table_kind kind)
{
    FUZZ_CHECK(t->kind == kind);
    FUZZ_CHECK(t->n > 0 && t->rows != NULL);
    FUZZ_CHECK(t->total_weight > 0 && isfinite(t->total_weight));
    double sum = 0;
    for (size_t i = 0; i < t->n; i++) {
        const struct mfb_row *r = &t->rows[i];
        FUZZ_CHECK(isfinite(r->weight) && r->weight >= 0);
        FUZZ_CHECK(isfinite(r->p) && r->p >= 0 && r->p <= 1 + 1e-12);
        FUZZ_CHECK(r->line >= 0);
        sum += r->p;
        switch (kind) {
        case MFB_T_SIZE:
            FUZZ_CHECK(r->lo <= r->hi && r->hi <= MFB_MAX_SIZE);
            FUZZ_CHECK(i == 0 || r->lo > t->rows[i - 1].hi);
            FUZZ_CHECK(mfb_table_find(t, r->lo) == (long)i && mfb_table_find(t, r->hi) == (long)i);
            break;
        case MFB_T_ALIGN:
            FUZZ_CHECK(r->lo == r->hi && fuzz_is_pow2(r->lo) && r->lo <= MFB_MAX_ALIGN);
            FUZZ_CHECK(i == 0 || r->lo > t->rows[i - 1].lo);
            FUZZ_CHECK(mfb_table_find(t, r->lo) == (long)i);
            break;
        case MFB_T_OVERLAP:
            FUZZ_CHECK(r->lo <= MFB_OVL_BACKWARD && r->hi == 0);
            FUZZ_CHECK(i == 0 || r->lo > t->rows[i - 1].lo);
            break;
        case MFB_T_MISMATCH:
            FUZZ_CHECK(r->lo <= MFB_MIS_LAST);
            FUZZ_CHECK(r->lo == MFB_MIS_AT ? r->hi <= MFB_MAX_SIZE : r->hi == 0);
            FUZZ_CHECK(i == 0 || r->lo > t->rows[i - 1].lo ||
                       (r->lo == t->rows[i - 1].lo && r->hi > t->rows[i - 1].hi));
            break;
        }
    }
    FUZZ_CHECK(fabs(sum - 1) < 1e-6);
    FUZZ_CHECK(isfinite(mfb_table_mean(t)));
    FUZZ_CHECK(mfb_table_max(t) <= (kind == MFB_T_ALIGN ? MFB_MAX_ALIGN : MFB_MAX_SIZE));
    FUZZ_CHECK(mfb_table_largest_key(t) >= 1);
    struct mfb_table copy;
    FUZZ_CHECK(mfb_table_copy(&copy, t) == 0);
    FUZZ_CHECK(copy.n == t->n && !memcmp(copy.rows, t->rows, t->n * sizeof *t->rows));
    mfb_table_free(&copy);
}

static inline void fuzz_check_optional_table(const struct mfb_table *t, enum mfb_table_kind kind)
{
    if (t->n)
        fuzz_check_table(t, kind);
    else
        FUZZ_CHECK(t->rows == NULL);
}

/* What mfb_dist_resolve promises for function f when it returns 0. */
static inline void fuzz_check_dist(const struct mfb_dist *d, enum mfb_func f)
{
    FUZZ_CHECK(d->name != NULL);
    fuzz_check_table(&d->size, MFB_T_SIZE);
    fuzz_check_optional_table(&d->src_align, MFB_T_ALIGN);
    fuzz_check_optional_table(&d->dst_align, MFB_T_ALIGN);
    fuzz_check_optional_table(&d->overlap, MFB_T_OVERLAP);
    fuzz_check_optional_table(&d->mismatch, MFB_T_MISMATCH);
    if (!mfb_func_allows_overlap(f))
        FUZZ_CHECK(d->overlap.n == 0);
    else
        FUZZ_CHECK(!d->overlap_ignored);
    FUZZ_CHECK(mfb_func_compares(f) ? d->mismatch.n > 0 : d->mismatch.n == 0);
    if (f == MFB_MEMSET)
        FUZZ_CHECK(d->src_align.n == 0);
    FUZZ_CHECK(d->nfiles >= 0 && d->nfiles <= (int)(sizeof d->files / sizeof d->files[0]));
    for (int i = 0; i < d->nfiles; i++) {
        FUZZ_CHECK(d->files[i].path != NULL && d->files[i].role[0] != '\0');
        FUZZ_CHECK(strlen(d->files[i].sha256) == 64);
    }
    FUZZ_CHECK(d->format == MFB_FORMAT_SYNTHETIC ? d->nfiles == 0 : d->nfiles > 0);
}

#endif
