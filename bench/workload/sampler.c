#include "workload/sampler.h"

#include <stdbool.h>
#include <string.h>

#include "base/parse.h"

uint64_t mfb_offset_alignment(uint64_t off, uint64_t cap)
{
    if (off % cap == 0)
        return cap;
    return off & (~off + 1);
}

int mfb_sampler_init(struct mfb_sampler *s, const struct mfb_dist *d, const struct mfb_space *space,
                     enum mfb_align_mode mode, uint64_t seed, struct mfb_err *err)
{
    memset(s, 0, sizeof *s);
    s->dist = d;
    s->space = space;
    s->mode = mode;
    mfb_rng_seed(&s->rng, seed);
    const struct mfb_table *tabs[5] = {&d->size, &d->src_align, &d->dst_align, &d->overlap, &d->mismatch};
    struct mfb_alias *al[5] = {&s->size, &s->src_align, &s->dst_align, &s->overlap, &s->mismatch};
    for (int i = 0; i < 5; i++)
        if (tabs[i]->n && mfb_alias_build(al[i], tabs[i]) < 0)
            return mfb_fail(err, "out of memory building the sampler");
    s->src_cap = mfb_table_largest_key(&d->src_align);
    s->dst_cap = mfb_table_largest_key(&d->dst_align);
    return 0;
}

void mfb_sampler_free(struct mfb_sampler *s)
{
    mfb_alias_free(&s->size);
    mfb_alias_free(&s->src_align);
    mfb_alias_free(&s->dst_align);
    mfb_alias_free(&s->overlap);
    mfb_alias_free(&s->mismatch);
}

/* The alignment key of row `row` of a table, or of a row drawn from its alias table when row is
 * MFB_SHAPE_DRAW; 0 when there is no table (any offset). */
static uint64_t align_key(struct mfb_sampler *s, const struct mfb_alias *al, const struct mfb_table *t, long row)
{
    if (!al->n)
        return 0;
    return t->rows[row == MFB_SHAPE_DRAW ? mfb_alias_draw(al, &s->rng) : (size_t)row].lo;
}

/* A uniform offset in [0, room] that satisfies an alignment row (key a) of a table with largest
 * key cap. exact: the offset's largest power-of-two divisor is A (for A < cap) or at least cap
 * (A == cap). at-least: the offset is a multiple of A. a == 0 (no table): any offset. */
static uint64_t pick_offset(struct mfb_sampler *s, const struct mfb_alias *al, const struct mfb_table *t,
                            uint64_t cap, uint64_t room, long row)
{
    uint64_t modulus = 1, residue = 0;
    uint64_t a = align_key(s, al, t, row);
    if (a) {
        if (s->mode == MFB_ALIGN_EXACT && a < cap) {
            modulus = 2 * a;
            residue = a;
        } else {
            modulus = a;
        }
    }
    /* The planner keeps room >= the tables' largest key >= residue (measure/workset.c). */
    return residue + modulus * mfb_rng_below(&s->rng, (room - residue) / modulus + 1);
}

static uint32_t draw_mismatch(struct mfb_sampler *s, uint32_t size, long row)
{
    const struct mfb_row *r = &s->dist->mismatch.rows[row == MFB_SHAPE_DRAW ? mfb_alias_draw(&s->mismatch, &s->rng)
                                                                             : (size_t)row];
    uint64_t pos = UINT64_MAX;
    switch (r->lo) {
    case MFB_MIS_UNIFORM:
        if (size)
            pos = mfb_rng_below(&s->rng, size);
        break;
    case MFB_MIS_AT:
        if (r->hi < size)
            pos = r->hi;
        break;
    case MFB_MIS_LAST:
        if (size)
            pos = size - 1;
        break;
    default:
        break;
    }
    uint32_t sign = (mfb_rng_next(&s->rng) >> 63) ? MFB_MIS_SIGN_FLAG : 0;
    if (pos == UINT64_MAX)
        return MFB_MIS_EQUAL_FLAG;
    return sign | (uint32_t)pos;
}

/* Draws happen in a fixed order (overlap, offsets, aux), so a seed gives the same calls in every
 * version that keeps it. */
void mfb_sampler_place(struct mfb_sampler *s, uint64_t size, const struct mfb_shape *shape, struct mfb_call *c)
{
    const struct mfb_dist *d = s->dist;
    const struct mfb_space *sp = s->space;
    bool large = mfb_space_is_large(sp, size);
    const struct mfb_window *win = large ? &sp->large : &sp->small;
    uint64_t span = large ? win->slice : win->size;
    uint64_t ovl = MFB_OVL_NONE;
    if (s->overlap.n)
        ovl = d->overlap.rows[shape->overlap == MFB_SHAPE_DRAW ? mfb_alias_draw(&s->overlap, &s->rng)
                                                               : (size_t)shape->overlap].lo;
    c->size = (uint32_t)size | (large ? MFB_CALL_LARGE : 0);
    if (ovl != MFB_OVL_NONE && size >= 2) {
        /* Overlapping calls live in the first role's window; the destination is the source
         * moved by d in [1, size-1], so its alignment follows from the source's. */
        uint64_t delta = 1 + mfb_rng_below(&s->rng, size - 1);
        uint64_t src = pick_offset(s, &s->src_align, &d->src_align, s->src_cap, span - size - delta, shape->src_align);
        if (ovl == MFB_OVL_BACKWARD)
            src += delta;
        uint64_t dst = ovl == MFB_OVL_FORWARD ? src + delta : src - delta;
        c->src = (uint32_t)(win->off[0] + src);
        c->dst = (uint32_t)(win->off[0] + dst);
    } else if (sp->roles == 1) {
        c->src = 0;
        c->dst = (uint32_t)(win->off[0] + pick_offset(s, &s->dst_align, &d->dst_align, s->dst_cap, span - size,
                                                      shape->dst_align));
    } else {
        c->src = (uint32_t)(win->off[0] + pick_offset(s, &s->src_align, &d->src_align, s->src_cap, span - size,
                                                      shape->src_align));
        c->dst = (uint32_t)(win->off[1] + pick_offset(s, &s->dst_align, &d->dst_align, s->dst_cap, span - size,
                                                      shape->dst_align));
    }
    switch (mfb_func_traits(sp->func)->aux) {
    case MFB_AUX_FILL_BYTE:
        c->aux = (uint32_t)mfb_rng_below(&s->rng, 256);
        break;
    case MFB_AUX_MISMATCH:
        c->aux = draw_mismatch(s, (uint32_t)size, shape->mismatch);
        break;
    case MFB_AUX_NONE:
        c->aux = 0;
        break;
    }
}

uint64_t mfb_sampler_fill(struct mfb_sampler *s, struct mfb_call *out, size_t n)
{
    static const struct mfb_shape drawn = {MFB_SHAPE_DRAW, MFB_SHAPE_DRAW, MFB_SHAPE_DRAW, MFB_SHAPE_DRAW};
    const struct mfb_dist *d = s->dist;
    uint64_t bytes = 0;
    for (size_t i = 0; i < n; i++) {
        const struct mfb_row *row = &d->size.rows[mfb_alias_draw(&s->size, &s->rng)];
        uint64_t size = row->lo == row->hi ? row->lo : row->lo + mfb_rng_below(&s->rng, row->hi - row->lo + 1);
        mfb_sampler_place(s, size, &drawn, &out[i]);
        bytes += size;
    }
    return bytes;
}
