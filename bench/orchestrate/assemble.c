#include "orchestrate/assemble.h"

#include <string.h>

#include "base/strbuf.h"
#include "impl/placements.h"
#include "impl/plugin.h"
#include "measure/layout.h"

static int add_variant(struct mfb_run *r, const struct mfb_variant *v, struct mfb_err *err)
{
    struct mfb_run_variant *rv = &r->vars[r->nvars];
    const char *why = "";
    if (mfb_variant_instantiate(v, &rv->own, &why) < 0)
        return mfb_fail(err, "--variant: '%s' cannot run here: needs %s", v->name, why);
    rv->v = &rv->own;
    unsigned k = mfb_layout_placement_at(&r->layout, r->nvars, 0, 0);
    rv->placement = mfb_variant_place(&rv->own, k) ? (int)k : -1;
    /* every placement's code, for rotation per round (measure/rounds.c) */
    for (unsigned p = 0; rv->placement >= 0 && p < MFB_CODE_PLACEMENTS; p++) {
        struct mfb_variant at = rv->own;
        mfb_variant_place(&at, p);
        rv->at[p] = at.fn;
    }
    if (rv->placement >= 0)
        rv->own.fn = rv->at[k];
    r->nvars++;
    return 0;
}

static struct mfb_run_variant *find_in_run(struct mfb_run *r, const char *name)
{
    for (int i = 0; i < r->nvars; i++)
        if (!strcmp(r->vars[i].v->name, name))
            return &r->vars[i];
    return NULL;
}

/* A/A copies: a built-in's copy never shares its original's code placement in the same process
 * (drawn equal, it moves one step further along the permutation, which keeps the study's
 * placements balanced), so the pair always compares the same code at two places; then the copy's
 * code is compared byte for byte with the original's as timed, or, when the original is not in
 * the run, as it would be at another placement. */
static void settle_copies(struct mfb_run *r)
{
    for (int i = 0; i < r->nvars; i++) {
        struct mfb_run_variant *rv = &r->vars[i];
        if (!rv->v->copy_of)
            continue;
        const struct mfb_variant *o = mfb_variant_find(rv->v->func, rv->v->copy_of);
        struct mfb_run_variant *orv = find_in_run(r, rv->v->copy_of);
        if (orv && rv->placement >= 0 && r->layout.rotation == MFB_ROTATE_ROUND) {
            r->layout.partner[i] = (int8_t)(orv - r->vars);
            rv->placement = (int)mfb_layout_placement_at(&r->layout, i, 0, 0);
            rv->own.fn = rv->at[rv->placement];
        } else if (orv && rv->placement >= 0 && rv->placement == orv->placement) {
            rv->extra = 1;
            rv->placement = (int)mfb_layout_placement(&r->layout, i, 1);
            mfb_variant_place(&rv->own, (unsigned)rv->placement);
        }
        struct mfb_variant orig;
        const char *w;
        if (orv)
            orig = *orv->v;
        else if (!o || mfb_variant_instantiate(o, &orig, &w) < 0)
            continue;
        else if (rv->placement >= 0)
            mfb_variant_place(&orig, (unsigned)(rv->placement + 1) % MFB_CODE_PLACEMENTS);
        rv->copy_bytes_compared = mfb_variant_same_code(&rv->own, &orig, &rv->copy_identical);
    }
}

/* Whether name is new among the run's first n variants. */
static int unique_name(const struct mfb_run *r, const char *name, int n, struct mfb_err *err)
{
    for (int k = 0; k < n; k++)
        if (!strcmp(r->vars[k].v->name, name))
            return mfb_fail(err, "--variant: '%s' is named twice (a plugin can be renamed with =NAME)", name);
    return 0;
}

int mfb_assemble_variants(struct mfb_run *r, const struct mfb_study *c, struct mfb_err *err)
{
    const struct mfb_variant *all;
    size_t n = mfb_variants_all(&all);
    if (c->nvariants == 0) {
        for (size_t i = 0; i < n; i++)
            if (all[i].func == c->func && mfb_variant_default(&all[i]) && mfb_variant_available(&all[i]) &&
                add_variant(r, &all[i], err) < 0)
                return -1;
        return 0;
    }
    for (int i = 0; i < c->nvariants; i++) {
        if (mfb_plugin_spec(c->variants[i])) {
            struct mfb_run_variant *rv = &r->vars[r->nvars];
            /* A plugin's constructors run inside dlopen: the guard names it if they crash. */
            r->activity->variant = c->variants[i];
            r->activity->origin = NULL;
            r->activity->phase = MFB_PHASE_LOADING;
            int rc = mfb_plugin_load(c->variants[i], c->func, &rv->own, &rv->plugin, err);
            r->activity->phase = MFB_PHASE_IDLE;
            if (rc < 0)
                return -1;
            r->nvars++; /* owned from here on: freed with the run even if its name clashes */
            if (unique_name(r, rv->own.name, r->nvars - 1, err) < 0)
                return -1;
            rv->v = &rv->own;
            rv->placement = -1;
            continue;
        }
        const struct mfb_variant *v = mfb_variant_find(c->func, c->variants[i]);
        if (!v) {
            char names[512];
            struct mfb_strbuf sb;
            mfb_strbuf_init(&sb, names, sizeof names);
            for (size_t k = 0; k < n; k++)
                if (all[k].func == c->func)
                    mfb_strbuf_add(&sb, " %s", all[k].name);
            return mfb_fail(err, "--variant: '%s' is not a variant of %s (have:%s)", c->variants[i],
                            mfb_func_name(c->func), names);
        }
        if (unique_name(r, v->name, r->nvars, err) < 0 || add_variant(r, v, err) < 0)
            return -1;
    }
    settle_copies(r);
    return 0;
}
