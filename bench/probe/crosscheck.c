#include "probe/crosscheck.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "probe/probe.h"

const char *mfb_xc_level_name(enum mfb_xc_level_id id)
{
    static const char *const names[] = {[MFB_XC_L1D] = "L1d", [MFB_XC_L2] = "L2", [MFB_XC_LLC] = "LLC"};
    return names[id];
}

const char *mfb_xc_curve_name(enum mfb_xc_curve c)
{
    return c == MFB_XC_LATENCY ? "latency" : "read bandwidth";
}

const char *mfb_xc_verdict_name(enum mfb_xc_verdict v)
{
    static const char *const names[] = {
        [MFB_XC_AGREES] = "agrees", [MFB_XC_REFERENCE_KEPT] = "reference kept",
        [MFB_XC_BEYOND_ONE_CORE] = "reference beyond one core", [MFB_XC_NO_REFERENCE] = "no reference",
        [MFB_XC_NOT_REACHED] = "not reached"};
    return names[v];
}

const char *mfb_xc_kept_from(const struct mfb_crosscheck *x, const struct mfb_xc_level *l)
{
    return l->kept_curve >= 0 ? mfb_xc_curve_name((enum mfb_xc_curve)l->kept_curve) : mfb_cache_source_name(x->source);
}

static bool within(double at, size_t ref, double tol)
{
    return ref > 0 && fabs(at / (double)ref - 1) <= tol;
}

/* The boundary of lv closest (in log size) to ref among those within the tolerance and at most
 * `limit`, at an index in [lo, hi); -1 when none. */
static int agreeing(const struct mfb_levels *lv, size_t ref, int lo, int hi, double tol, double limit)
{
    int best = -1;
    for (int i = lo; i < hi; i++)
        if (within(lv->boundaries[i].estimate, ref, tol) && lv->boundaries[i].estimate <= limit &&
            (best < 0 || fabs(log2(lv->boundaries[i].estimate / (double)ref)) <
                             fabs(log2(lv->boundaries[best].estimate / (double)ref))))
            best = i;
    return best;
}

/* Which boundary of one curve stands for each level. First the steps within the tolerance of a
 * level's reference (in order: a step taken by the L1d cannot be the L2's); then, for a level
 * none agrees with, the step in its place: the first for the L1d, the next one for the L2, and
 * the last for the LLC, provided it comes after the L2's. No step beyond `limit` stands for the
 * LLC: in the latency curve, a rise past where read bandwidth fell to memory is address
 * translation (the TLB's reach), not a cache the streams would have seen. */
static void assign(const struct mfb_levels *lv, const size_t *ref, double limit, double tol, int step[MFB_XC_NLEVELS])
{
    int nb = lv->nboundaries, lo = 0;
    for (int l = 0; l < MFB_XC_NLEVELS; l++) {
        step[l] = ref[l] ? agreeing(lv, ref[l], lo, nb, tol, l == MFB_XC_LLC ? limit : INFINITY) : -1;
        if (step[l] >= 0)
            lo = step[l] + 1;
    }
    for (int l = 0; l < MFB_XC_NLEVELS; l++) {
        if (step[l] >= 0)
            continue;
        /* the room between the previous level's step and the next agreed one */
        int prev = -1, next = nb;
        for (int k = l - 1; k >= 0 && prev < 0; k--)
            prev = step[k] >= 0 ? step[k] : prev;
        for (int k = l + 1; k < MFB_XC_NLEVELS && next == nb; k++)
            next = step[k] >= 0 ? step[k] : next;
        int pick;
        if (l == MFB_XC_LLC) {
            /* the last step, past the two before it (a curve of two steps has no LLC) */
            pick = next - 1;
            while (pick >= 0 && lv->boundaries[pick].estimate > limit)
                pick--;
            if (pick < MFB_XC_LLC || pick <= prev)
                pick = -1;
        } else {
            pick = prev >= 0 ? prev + 1 : l;
            if (pick >= next)
                pick = -1;
        }
        step[l] = pick;
    }
}

void mfb_crosscheck_levels(const struct mfb_caches *ref, const struct mfb_xc_input *latency,
                           const struct mfb_xc_input *bandwidth, struct mfb_crosscheck *out)
{
    memset(out, 0, sizeof *out);
    out->source = ref->source;
    out->tolerance = MFB_XC_TOLERANCE;
    const struct mfb_xc_input *in[MFB_XC_NCURVES] = {latency, bandwidth};
    const size_t refs[MFB_XC_NLEVELS] = {ref->l1d, ref->l2, ref->llc};
    /* An assumed reference (no sysfs, no sysconf) is no reference to agree with. */
    bool assumed = ref->source == MFB_CACHE_DEFAULT;
    const size_t none[MFB_XC_NLEVELS] = {0};
    const struct mfb_levels *bwl = bandwidth && bandwidth->levels ? bandwidth->levels : NULL;
    /* where read bandwidth falls to its last plateau: a cache ends there at the latest */
    /* only a read curve with a third step went past the L2: its last step is then the fall to
     * memory (a --quick probe's read curve stops in the L2 or L3) */
    double llc_limit = bwl && bwl->nboundaries >= 3
                           ? bwl->boundaries[bwl->nboundaries - 1].estimate * (1 + MFB_XC_TOLERANCE)
                           : INFINITY;
    if (bwl && bwl->nplateaus > 0)
        out->memory_from = (double)bwl->plateaus[bwl->nplateaus - 1].from;
    int steps[MFB_XC_NCURVES][MFB_XC_NLEVELS];
    for (int c = 0; c < MFB_XC_NCURVES; c++) {
        for (int l = 0; l < MFB_XC_NLEVELS; l++)
            steps[c][l] = -1;
        if (in[c] && in[c]->levels) {
            out->done = true;
            assign(in[c]->levels, assumed ? none : refs, c == MFB_XC_LATENCY ? llc_limit : INFINITY,
                   MFB_XC_TOLERANCE, steps[c]);
        }
    }
    out->usable = out->done;
    for (int l = 0; l < MFB_XC_NLEVELS; l++) {
        struct mfb_xc_level *x = &out->level[l];
        x->id = (enum mfb_xc_level_id)l;
        x->reference = refs[l];
        x->kept = refs[l];
        x->kept_curve = -1;
        bool any_reaches = false;
        int agree = -1;
        for (int c = 0; c < MFB_XC_NCURVES; c++) {
            struct mfb_xc_view *v = &x->view[c];
            v->step = steps[c][l];
            v->measured = in[c] && in[c]->levels;
            if (!v->measured)
                continue;
            v->at = v->step >= 0 ? in[c]->levels->boundaries[v->step].estimate : 0;
            v->within = v->step >= 0 && !assumed && within(v->at, refs[l], MFB_XC_TOLERANCE);
            v->reaches = (double)in[c]->last >= (double)refs[l] * (1 + MFB_XC_TOLERANCE);
            v->contradicts = v->reaches && !v->within && !assumed;
            any_reaches |= v->reaches;
            /* both agree: latency's step for the first two levels (sharp edges), read
             * bandwidth's for the LLC (its page walks are few: no translation step) */
            bool prefer = agree < 0 || (l == MFB_XC_LLC) == (c == MFB_XC_BANDWIDTH);
            if (v->within && prefer)
                agree = c;
        }
        if (agree >= 0) {
            x->verdict = MFB_XC_AGREES;
            x->kept_curve = agree;
        } else if (assumed) {
            /* the curve's step in the level's place; none: the assumption, unchecked */
            int c = l == MFB_XC_LLC ? MFB_XC_BANDWIDTH : MFB_XC_LATENCY;
            if (x->view[c].step < 0)
                c = 1 - c;
            x->verdict = x->view[c].step >= 0 ? MFB_XC_NO_REFERENCE : MFB_XC_NOT_REACHED;
            if (x->view[c].step >= 0)
                x->kept_curve = c;
        } else if (!any_reaches) {
            x->verdict = MFB_XC_NOT_REACHED;
        } else if (l == MFB_XC_LLC && bwl && x->view[MFB_XC_BANDWIDTH].reaches && x->view[MFB_XC_BANDWIDTH].step >= 0 &&
                   x->view[MFB_XC_BANDWIDTH].step == bwl->nboundaries - 1 &&
                   out->memory_from * (1 + MFB_XC_TOLERANCE) <= (double)refs[l]) {
            /* Read bandwidth is already at its last (memory) plateau at a size well below the
             * reference and stays there past it: a cache of the reference's size would hold
             * those bytes. The reference is more than this core can use: the whole socket's L3
             * of several CCX/CCD, or the host's L3 of which a guest gets a share. */
            x->verdict = MFB_XC_BEYOND_ONE_CORE;
            x->kept_curve = MFB_XC_BANDWIDTH;
        } else {
            x->verdict = MFB_XC_REFERENCE_KEPT;
        }
        if (x->kept_curve >= 0)
            x->kept = (size_t)round(x->view[x->kept_curve].at);
        if (x->verdict == MFB_XC_NOT_REACHED)
            out->usable = false;
    }
    const struct mfb_xc_level *lv = out->level;
    if (!(lv[MFB_XC_L1D].kept < lv[MFB_XC_L2].kept && lv[MFB_XC_L2].kept <= lv[MFB_XC_LLC].kept))
        out->usable = false;
}

void mfb_xc_explain(const struct mfb_crosscheck *x, const struct mfb_xc_level *l, char *buf, size_t n)
{
    char r[32], a[32], k[32];
    const char *src = mfb_cache_source_name(x->source);
    size_t used = 0;
    /* what each curve shows, against the reference */
    for (int c = 0; c < MFB_XC_NCURVES; c++) {
        const struct mfb_xc_view *v = &l->view[c];
        if (!v->measured || used >= n)
            continue;
        const char *name = mfb_xc_curve_name((enum mfb_xc_curve)c);
        int w;
        if (v->step >= 0 && l->verdict != MFB_XC_NO_REFERENCE && l->reference)
            w = snprintf(buf + used, n - used, "%s%s step at %s (%+.0f %%)", used ? ", " : "", name,
                         mfb_probe_human(v->at, a, sizeof a), (v->at / (double)l->reference - 1) * 100);
        else if (v->step >= 0)
            w = snprintf(buf + used, n - used, "%s%s step at %s", used ? ", " : "", name,
                         mfb_probe_human(v->at, a, sizeof a));
        else
            w = snprintf(buf + used, n - used, "%s%s: no step%s", used ? ", " : "", name,
                         v->reaches ? "" : " (not measured that far)");
        used += w > 0 ? (size_t)w : 0;
    }
    if (used >= n)
        return;
    mfb_probe_human((double)l->reference, r, sizeof r);
    mfb_probe_human((double)l->kept, k, sizeof k);
    const char *curve = l->kept_curve >= 0 ? mfb_xc_curve_name((enum mfb_xc_curve)l->kept_curve) : "";
    char contra[64] = "";
    if (l->view[MFB_XC_LATENCY].contradicts && l->view[MFB_XC_BANDWIDTH].contradicts)
        snprintf(contra, sizeof contra, "latency and read bandwidth contradict");
    else
        for (int c = 0; c < MFB_XC_NCURVES; c++)
            if (l->view[c].contradicts)
                snprintf(contra, sizeof contra, "%s contradicts", mfb_xc_curve_name((enum mfb_xc_curve)c));
    const char *sep = used ? "; " : "";
    switch (l->verdict) {
    case MFB_XC_AGREES:
        snprintf(buf + used, n - used, "%swithin %.0f %% of %s's %s: kept %s's %s", sep, x->tolerance * 100, src, r,
                 curve, k);
        break;
    case MFB_XC_REFERENCE_KEPT:
        snprintf(buf + used, n - used, "%sno step within %.0f %% of %s's %s (%s): kept %s's %s", sep,
                 x->tolerance * 100, src, r, contra[0] ? contra : "no curve shows it", src, r);
        break;
    case MFB_XC_BEYOND_ONE_CORE:
        snprintf(buf + used, n - used, "%sread bandwidth is at its memory rate from %s on, below %s's %s: that "
                 "is more than one core can use (the whole socket's L3 of several CCX/CCD, or a VM's share of the "
                 "host's); kept read bandwidth's %s", sep, mfb_probe_human(x->memory_from, a, sizeof a),
                 src, r, k);
        break;
    case MFB_XC_NO_REFERENCE:
        snprintf(buf + used, n - used, "%sno reported size (%s is assumed): kept %s's %s", sep, r, curve, k);
        break;
    case MFB_XC_NOT_REACHED:
    case MFB_XC_NVERDICTS:
        snprintf(buf + used, n - used, "%sthe curves stop before %s's %s: unchecked, nothing found", sep, src, r);
        break;
    }
}
