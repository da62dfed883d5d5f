#include "workload/classes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/parse.h"

void mfb_classes_default_edges(struct mfb_classes *cl, uint64_t small_max)
{
    cl->nedges = 0;
    cl->edges[cl->nedges++] = 0;
    for (uint64_t e = 2; e <= small_max && cl->nedges < MFB_MAX_CLASS_EDGES; e *= 2)
        cl->edges[cl->nedges++] = e;
}

int mfb_classes_parse_edges(struct mfb_classes *cl, const char *text, struct mfb_err *err)
{
    cl->nedges = 0;
    const char *p = text;
    for (;;) {
        size_t len = strcspn(p, ",");
        char field[32];
        if (len == 0 || len >= sizeof field)
            return mfb_fail(err, "memfbench run: --by-class: edge %d '%.*s' is not a size", cl->nedges + 1,
                            (int)(len > 40 ? 40 : len), p);
        memcpy(field, p, len);
        field[len] = '\0';
        size_t v;
        if (mfb_parse_bytes(field, &v) < 0 || v > MFB_MAX_SIZE)
            return mfb_fail(err, "memfbench run: --by-class: edge %d '%s' is not a size up to %u", cl->nedges + 1,
                            field, MFB_MAX_SIZE);
        if (cl->nedges > 0 && v <= cl->edges[cl->nedges - 1])
            return mfb_fail(err, "memfbench run: --by-class: edges must increase ('%s' after %llu)", field,
                            (unsigned long long)cl->edges[cl->nedges - 1]);
        if (cl->nedges == MFB_MAX_CLASS_EDGES)
            return mfb_fail(err, "memfbench run: --by-class: at most %d edges", MFB_MAX_CLASS_EDGES);
        cl->edges[cl->nedges++] = v;
        if (!p[len])
            return 0;
        p += len + 1;
    }
}

/* The part of row r inside lo..hi, with its share of the row's weight; 0 when none. */
static double clip(const struct mfb_row *r, uint64_t lo, uint64_t hi, uint64_t *a, uint64_t *b)
{
    *a = r->lo > lo ? r->lo : lo;
    *b = r->hi < hi ? r->hi : hi;
    if (*a > *b)
        return 0;
    return r->weight * ((double)(*b - *a) + 1) / ((double)(r->hi - r->lo) + 1);
}

static int copy_tables(struct mfb_dist *dst, const struct mfb_dist *src)
{
    const struct mfb_table *from[4] = {&src->src_align, &src->dst_align, &src->overlap, &src->mismatch};
    struct mfb_table *to[4] = {&dst->src_align, &dst->dst_align, &dst->overlap, &dst->mismatch};
    for (int i = 0; i < 4; i++)
        if (mfb_table_copy(to[i], from[i]) < 0)
            return -1;
    return 0;
}

/* The sub-distribution of sizes lo..hi; *p gets the whole's probability of it (0: no class). */
static int make_class(struct mfb_size_class *c, const struct mfb_dist *d, uint64_t lo, uint64_t hi,
                      struct mfb_err *err)
{
    memset(c, 0, sizeof *c);
    c->lo = lo;
    c->hi = hi;
    double inside = 0, total = 0;
    for (size_t i = 0; i < d->size.n; i++) {
        uint64_t a, b;
        inside += clip(&d->size.rows[i], lo, hi, &a, &b);
        total += d->size.rows[i].weight;
    }
    if (inside <= 0 || total <= 0)
        return 0;
    struct mfb_dist *s = &c->dist;
    s->format = d->format;
    s->overlap_ignored = d->overlap_ignored;
    s->size.kind = MFB_T_SIZE;
    s->size.origin = d->size.origin;
    char name[512];
    snprintf(name, sizeof name, "%s [%llu-%llu]", d->name, (unsigned long long)lo, (unsigned long long)hi);
    if (!(s->name = strdup(name)) || copy_tables(s, d) < 0)
        return mfb_fail(err, "out of memory splitting %s into size classes", d->name);
    for (size_t i = 0; i < d->size.n; i++) {
        uint64_t a, b;
        double w = clip(&d->size.rows[i], lo, hi, &a, &b);
        if (w > 0 && mfb_table_add(&s->size, a, b, w, d->size.rows[i].line) < 0)
            return mfb_fail(err, "out of memory splitting %s into size classes", d->name);
    }
    if (mfb_table_finish(&s->size, s->name, err) < 0)
        return -1;
    c->p = inside / total;
    c->mean_size = mfb_table_mean(&s->size);
    return 0;
}

int mfb_classes_split(struct mfb_classes *cl, const struct mfb_dist *d, struct mfb_err *err)
{
    cl->n = 0;
    cl->c = calloc((size_t)cl->nedges + 1, sizeof *cl->c);
    if (!cl->c)
        return mfb_fail(err, "out of memory splitting %s into size classes", d->name);
    for (int i = 0; i <= cl->nedges; i++) {
        uint64_t lo = i == 0 ? 0 : cl->edges[i - 1] + 1;
        uint64_t hi = i == cl->nedges ? UINT64_MAX : cl->edges[i];
        struct mfb_size_class *c = &cl->c[cl->n];
        if (make_class(c, d, lo, hi, err) < 0) {
            cl->n++;
            mfb_classes_free(cl);
            return -1;
        }
        if (c->p > 0) {
            if (c->hi == UINT64_MAX)
                c->hi = mfb_table_max(&d->size);
            cl->n++;
        } else {
            mfb_dist_free(&c->dist);
        }
    }
    return 0;
}

void mfb_classes_free(struct mfb_classes *cl)
{
    for (int i = 0; i < cl->n; i++)
        mfb_dist_free(&cl->c[i].dist);
    free(cl->c);
    cl->c = NULL;
    cl->n = 0;
}
