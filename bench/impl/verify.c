#include "impl/verify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "impl/impl.h"

#define PAGE 4096u

static void fill_words(struct mfb_rng *r, unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i += 8) {
        uint64_t x = mfb_rng_next(r);
        memcpy(p + i, &x, n - i < 8 ? n - i : 8);
    }
}

int mfb_verify_init(struct mfb_verify *v, uint64_t max_size, uint64_t seed, struct mfb_activity *activity,
                    struct mfb_err *err)
{
    memset(v, 0, sizeof *v);
    v->activity = activity;
    v->cap = (2 * max_size + 4 * PAGE + PAGE - 1) / PAGE * PAGE;
    unsigned char **bufs[5] = {&v->a, &v->b, &v->ra, &v->rb, &v->pool};
    for (int i = 0; i < 5; i++) {
        void *p = mmap(NULL, v->cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) {
            mfb_verify_free(v);
            return mfb_fail(err, "cannot map %zu bytes for the correctness check", v->cap);
        }
        *bufs[i] = p;
    }
    mfb_rng_seed(&v->rng, seed);
    fill_words(&v->rng, v->pool, v->cap);
    return 0;
}

void mfb_verify_free(struct mfb_verify *v)
{
    unsigned char *bufs[5] = {v->a, v->b, v->ra, v->rb, v->pool};
    for (int i = 0; i < 5; i++)
        if (bufs[i])
            munmap(bufs[i], v->cap);
    v->a = v->b = v->ra = v->rb = v->pool = NULL;
}

/* n random bytes at p (n <= cap): the pool's, from an offset drawn per fill, other than *avoid
 * (then stored there), so that the source's and the destination's bytes never start at the same
 * place of the pool and a variant that leaves the destination as it was cannot find it already
 * holding the source's bytes. Drawing every word of every call instead was a quarter of the
 * first process's verification (perf, Intel VM family 6 model 167); the pool has no period
 * within cap, so a copy from a wrong offset still reads other bytes. */
static void fill_random(struct mfb_verify *v, unsigned char *p, size_t n, uint64_t *avoid)
{
    uint64_t places = v->cap - n + 1, off;
    do
        off = mfb_rng_below(&v->rng, places);
    while (places > 1 && off == *avoid);
    *avoid = off;
    memcpy(p, v->pool + off, n);
}

static int first_diff(const unsigned char *x, const unsigned char *y, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (x[i] != y[i])
            return (int)i;
    return -1;
}

static int describe(struct mfb_err *err, const struct mfb_variant *var, const struct mfb_vcall *c,
                    const char *what)
{
    return mfb_fail(err,
                    "variant '%s' of %s gives a wrong result: size %llu, source address %% 4096 = %u, "
                    "destination %% 4096 = %u, overlap delta %lld, aux 0x%x: %s",
                    var->name, mfb_func_name(var->func), (unsigned long long)c->n, c->src_mod, c->dst_mod,
                    (long long)c->delta, c->aux, what);
}

/* Bytes checked on each side of what a call may touch: a write past either end is caught. */
#define GUARD 64

struct span {
    size_t lo, hi; /* [lo, hi) of one buffer that is filled and compared */
};

int mfb_verify_call(struct mfb_verify *v, const struct mfb_variant *var, const struct mfb_vcall *c,
                    struct mfb_err *err)
{
    enum mfb_func f = var->func;
    uint64_t dist = (uint64_t)(c->delta < 0 ? -c->delta : c->delta);
    if (2 * PAGE + c->n + dist + PAGE > v->cap)
        return mfb_fail(err, "correctness check: call of %llu bytes exceeds its scratch buffers",
                        (unsigned long long)c->n);
    /* Placement keeps each address's offset within its page, so alignments are the real ones:
     * both in one buffer when they overlap (delta != 0), else one buffer each. */
    size_t so, dso;
    struct span sa, sb;
    unsigned char *sbuf, *dbuf, *rsbuf, *rdbuf;
    if (c->delta != 0) {
        size_t low = PAGE + (c->delta > 0 ? c->src_mod : c->dst_mod);
        so = c->delta > 0 ? low : low + dist;
        dso = c->delta > 0 ? low + dist : low;
        sbuf = dbuf = v->a;
        rsbuf = rdbuf = v->ra;
        sa = (struct span){low - GUARD, low + dist + c->n + GUARD};
        sb = (struct span){0, 0};
    } else {
        so = PAGE + c->src_mod;
        dso = PAGE + c->dst_mod;
        sbuf = v->a;
        dbuf = v->b;
        rsbuf = v->ra;
        rdbuf = v->rb;
        sa = (struct span){so - GUARD, so + c->n + GUARD};
        sb = (struct span){dso - GUARD, dso + c->n + GUARD};
    }
    v->checked++;
    struct mfb_activity *a = v->activity;
    a->variant = var->name;
    a->origin = var->description;
    a->function = mfb_func_name(f);
    a->size = c->n;
    a->src_mod = c->src_mod;
    a->dst_mod = c->dst_mod;
    a->delta = c->delta;
    a->beat++;
    if (mfb_func_compares(f)) {
        memset(v->a + sa.lo, MFB_COMPARE_FILL, sa.hi - sa.lo);
        memset(v->b + sb.lo, MFB_COMPARE_FILL, sb.hi - sb.lo);
        unsigned char *p = dbuf + dso + mfb_mis_pos(c->aux);
        *p ^= mfb_mis_flip(c->aux);
        int want = mfb_ref_memcmp(sbuf + so, dbuf + dso, c->n);
        int got = var->fn.cmp(sbuf + so, dbuf + dso, c->n);
        *p ^= mfb_mis_flip(c->aux);
        if (var->noop)
            return 0;
        int ok = mfb_func_traits(f)->result == MFB_RESULT_EQUALITY
                     ? ((want != 0) == (got != 0))
                     : ((want > 0) - (want < 0)) == ((got > 0) - (got < 0));
        if (!ok) {
            char msg[128];
            snprintf(msg, sizeof msg, "returned %d, the reference %d", got, want);
            return describe(err, var, c, msg);
        }
        return 0;
    }
    uint64_t last = UINT64_MAX;
    fill_random(v, v->a + sa.lo, sa.hi - sa.lo, &last);
    fill_random(v, v->b + sb.lo, sb.hi - sb.lo, &last);
    memcpy(v->ra + sa.lo, v->a + sa.lo, sa.hi - sa.lo);
    memcpy(v->rb + sb.lo, v->b + sb.lo, sb.hi - sb.lo);
    void *ret;
    if (mfb_func_traits(f)->family == MFB_FAMILY_SET) {
        mfb_ref_memset(rdbuf + dso, (int)c->aux, c->n);
        ret = var->fn.set(dbuf + dso, (int)c->aux, c->n);
    } else {
        mfb_ref_memmove(rdbuf + dso, rsbuf + so, c->n);
        ret = var->fn.copy(dbuf + dso, sbuf + so, c->n);
    }
    if (var->noop)
        return 0;
    if (ret != dbuf + dso)
        return describe(err, var, c, "did not return the destination pointer");
    const unsigned char *bufs[2][2] = {{v->a, v->ra}, {v->b, v->rb}};
    const struct span spans[2] = {sa, sb};
    for (int i = 0; i < 2; i++) {
        const unsigned char *x = bufs[i][0] + spans[i].lo, *y = bufs[i][1] + spans[i].lo;
        size_t len = spans[i].hi - spans[i].lo;
        if (memcmp(x, y, len) == 0)
            continue;
        int at = first_diff(x, y, len) + (int)spans[i].lo;
        char msg[256];
        long rel = (long)at - (long)(bufs[i][0] == dbuf ? dso : so);
        snprintf(msg, sizeof msg, "byte %ld relative to the %s differs (got 0x%02x, want 0x%02x)%s", rel,
                 bufs[i][0] == dbuf ? "destination" : "source", bufs[i][0][at], bufs[i][1][at],
                 (rel < 0 || (uint64_t)rel >= c->n) ? ": wrote outside the destination" : "");
        return describe(err, var, c, msg);
    }
    return 0;
}

int mfb_verify_placed(struct mfb_verify *v, const struct mfb_variant *var, const struct mfb_call *k,
                      struct mfb_err *err)
{
    struct mfb_vcall c = {.n = k->size & MFB_SIZE_MASK, .src_mod = k->src % PAGE, .dst_mod = k->dst % PAGE,
                          .delta = 0, .aux = k->aux};
    int64_t d = (int64_t)k->dst - (int64_t)k->src;
    if (mfb_func_roles(var->func) == 2 && c.n > 0 && d > -(int64_t)c.n && d < (int64_t)c.n)
        c.delta = d;
    return mfb_verify_call(v, var, &c, err);
}

int mfb_verify_calls(struct mfb_verify *v, const struct mfb_variant *var, const struct mfb_call *calls,
                     size_t n, struct mfb_err *err)
{
    int big = 0;
    for (size_t i = 0; i < n; i++) {
        if ((calls[i].size & MFB_SIZE_MASK) > (1u << 20) && big++ >= 16)
            continue;
        if (mfb_verify_placed(v, var, &calls[i], err) < 0)
            return -1;
    }
    return 0;
}
