#include "probe/file.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/document.h"

static cJSON *number_or_null(double v)
{
    return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull();
}

static cJSON *config_json(const struct mfb_probe_config *c)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddBoolToObject(o, "latency", c->latency);
    cJSON_AddBoolToObject(o, "bandwidth", c->bandwidth);
    cJSON_AddBoolToObject(o, "quick", c->quick);
    cJSON_AddNumberToObject(o, "min_size", (double)c->min_size);
    cJSON_AddNumberToObject(o, "max_size", (double)c->max_size);
    cJSON_AddStringToObject(o, "max_size_source", c->max_size_source);
    cJSON_AddNumberToObject(o, "steps_per_octave", c->steps);
    cJSON_AddNumberToObject(o, "repeats", c->repeats);
    cJSON_AddNumberToObject(o, "min_loads", (double)c->min_loads);
    cJSON_AddNumberToObject(o, "max_loads", (double)c->max_loads);
    cJSON_AddNumberToObject(o, "latency_seconds", c->lat_seconds);
    cJSON_AddNumberToObject(o, "bandwidth_seconds", c->bw_seconds);
    cJSON_AddStringToObject(o, "huge", mfb_huge_request_name(c->huge));
    cJSON_AddNumberToObject(o, "cpu", c->cpu);
    cJSON_AddNumberToObject(o, "threads", c->threads);
    cJSON *cpus = cJSON_AddArrayToObject(o, "cpus");
    for (int i = 0; i < c->threads; i++)
        cJSON_AddItemToArray(cpus, cJSON_CreateNumber(c->cpus[i]));
    mfb_json_add_u64_string(o, "seed", c->seed);
    cJSON_AddStringToObject(o, "clock", mfb_choice_name(MFB_SET_CLOCK, c->clock));
    cJSON *argv = cJSON_AddArrayToObject(o, "command_line");
    for (int i = 0; i < c->argc; i++)
        cJSON_AddItemToArray(argv, cJSON_CreateString(c->argv[i]));
    return o;
}

/* latency: a load point (with cycles_median, null when the core clock is unknown). */
static cJSON *point_json(const struct mfb_probe_point *p, bool latency, const char *work, const char *unit,
                         double per_ns_to_cycles)
{
    cJSON *o = cJSON_CreateObject();
    double med, lo, hi;
    mfb_probe_point_stats(p, &med, &lo, &hi);
    cJSON_AddNumberToObject(o, "size", (double)p->size);
    cJSON_AddNumberToObject(o, work, (double)p->work);
    cJSON_AddNumberToObject(o, "huge_fraction", p->huge_fraction);
    cJSON *reps = cJSON_CreateArray();
    for (unsigned k = 0; k < p->nrep; k++)
        cJSON_AddItemToArray(reps, cJSON_CreateNumber(p->rep[k]));
    cJSON_AddItemToObject(o, unit, reps);
    char key[32];
    snprintf(key, sizeof key, "%s_median", unit);
    cJSON_AddItemToObject(o, key, number_or_null(med));
    snprintf(key, sizeof key, "%s_min", unit);
    cJSON_AddItemToObject(o, key, number_or_null(lo));
    snprintf(key, sizeof key, "%s_max", unit);
    cJSON_AddItemToObject(o, key, number_or_null(hi));
    if (latency)
        cJSON_AddItemToObject(o, "cycles_median", per_ns_to_cycles > 0 ? number_or_null(med * per_ns_to_cycles)
                                                                       : cJSON_CreateNull());
    return o;
}

static const char *nearest_level(const struct mfb_caches *c, double bytes, size_t *sys)
{
    const char *names[] = {"L1d", "L2", "LLC"};
    size_t sizes[] = {c->l1d, c->l2, c->llc};
    int best = 0;
    for (int i = 1; i < 3; i++)
        if (fabs(log2(bytes / (double)sizes[i])) < fabs(log2(bytes / (double)sizes[best])))
            best = i;
    *sys = sizes[best];
    return names[best];
}

/* Plateaus and boundaries of one curve. Latency plateaus are in ns (and cycles); bandwidth
 * plateaus were found in ns per byte and are given back in GB/s. */
static cJSON *levels_json(const struct mfb_levels *lv, const struct mfb_caches *caches, bool bandwidth, double ghz)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *pl = cJSON_AddArrayToObject(o, "plateaus");
    for (int i = 0; i < lv->nplateaus; i++) {
        const struct mfb_plateau *p = &lv->plateaus[i];
        cJSON *x = cJSON_CreateObject();
        cJSON_AddNumberToObject(x, "from", (double)p->from);
        cJSON_AddNumberToObject(x, "to", (double)p->to);
        if (bandwidth) {
            cJSON_AddNumberToObject(x, "gbps", 1 / p->ns);
        } else {
            cJSON_AddNumberToObject(x, "ns", p->ns);
            cJSON_AddItemToObject(x, "cycles", ghz > 0 ? cJSON_CreateNumber(p->ns * ghz) : cJSON_CreateNull());
        }
        cJSON_AddItemToArray(pl, x);
    }
    cJSON *bs = cJSON_AddArrayToObject(o, "boundaries");
    for (int i = 0; i < lv->nboundaries; i++) {
        const struct mfb_boundary *b = &lv->boundaries[i];
        cJSON *x = cJSON_CreateObject();
        cJSON_AddNumberToObject(x, "level", i + 1);
        cJSON_AddNumberToObject(x, "below", (double)b->below);
        cJSON_AddNumberToObject(x, "above", (double)b->above);
        cJSON_AddNumberToObject(x, "estimate", round(b->estimate));
        size_t sys;
        const char *name = nearest_level(caches, b->estimate, &sys);
        cJSON *n = cJSON_AddObjectToObject(x, "nearest_reported");
        cJSON_AddStringToObject(n, "name", name);
        cJSON_AddNumberToObject(n, "bytes", (double)sys);
        cJSON_AddNumberToObject(n, "estimate_over_reported", b->estimate / (double)sys);
        cJSON_AddItemToArray(bs, x);
    }
    return o;
}

static cJSON *latency_json(const struct mfb_probe_result *r)
{
    cJSON *o = cJSON_CreateObject();
    double ghz = r->clock.known ? r->clock.ghz : 0;
    cJSON *curves = cJSON_AddArrayToObject(o, "curves");
    for (int i = 0; i < r->nlat; i++) {
        const struct mfb_lat_curve *c = &r->lat[i];
        cJSON *x = cJSON_CreateObject();
        cJSON_AddStringToObject(x, "pattern", mfb_chase_name(c->chase));
        cJSON_AddStringToObject(x, "pages", mfb_pages_name(c->pages));
        cJSON *pts = cJSON_AddArrayToObject(x, "points");
        for (size_t k = 0; k < c->npoints; k++)
            cJSON_AddItemToArray(pts, point_json(&c->points[k], true, "loads", "ns", ghz));
        cJSON_AddItemToArray(curves, x);
    }
    cJSON *lv = r->levels_curve >= 0 ? levels_json(&r->levels, &r->caches, false, ghz) : cJSON_CreateNull();
    if (r->levels_curve >= 0) {
        cJSON_AddStringToObject(lv, "pattern", mfb_chase_name(r->lat[r->levels_curve].chase));
        cJSON_AddStringToObject(lv, "pages", mfb_pages_name(r->lat[r->levels_curve].pages));
        cJSON_AddStringToObject(lv, "values", "each point's best repeat (least ns)");
        cJSON_AddItemToObject(lv, "with_pages", r->levels_also >= 0
                                                    ? cJSON_CreateString(mfb_pages_name(r->lat[r->levels_also].pages))
                                                    : cJSON_CreateNull());
    }
    cJSON_AddItemToObject(o, "levels", lv);
    return o;
}

static cJSON *bandwidth_json(const struct mfb_probe_config *cfg, const struct mfb_probe_result *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "vector", mfb_vector_name(r->vector));
    cJSON_AddNumberToObject(o, "vector_bytes", (double)mfb_vector_bytes(r->vector));
    cJSON_AddStringToObject(o, "pages", mfb_pages_name(r->bw_pages));
    cJSON_AddNumberToObject(o, "threads", cfg->threads);
    cJSON_AddStringToObject(o, "unit", "GB/s: 1e9 bytes per second, each byte counted once (a copy of n bytes "
                                       "counts n), all threads together");
    cJSON *lv = r->bw_levels_curve >= 0 ? levels_json(&r->bw_levels, &r->caches, true, 0) : cJSON_CreateNull();
    if (r->bw_levels_curve >= 0)
        cJSON_AddStringToObject(lv, "kernel", mfb_stream_kernel_name(r->bw[r->bw_levels_curve].kernel));
    cJSON_AddItemToObject(o, "levels", lv);
    cJSON *curves = cJSON_AddArrayToObject(o, "curves");
    for (int i = 0; i < r->nbw; i++) {
        const struct mfb_bw_curve *c = &r->bw[i];
        cJSON *x = cJSON_CreateObject();
        cJSON_AddStringToObject(x, "kernel", mfb_stream_kernel_name(c->kernel));
        cJSON *pts = cJSON_AddArrayToObject(x, "points");
        for (size_t k = 0; k < c->npoints; k++)
            cJSON_AddItemToArray(pts, point_json(&c->points[k], false, "bytes", "gbps", 0));
        cJSON_AddItemToArray(curves, x);
    }
    return o;
}

/* What one curve says about one level of the cross-check. */
static cJSON *view_json(const struct mfb_xc_level *l, enum mfb_xc_curve c, const struct mfb_levels *lv)
{
    const struct mfb_xc_view *v = &l->view[c];
    if (!v->measured)
        return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject();
    bool step = v->step >= 0;
    cJSON_AddItemToObject(o, "step", step ? cJSON_CreateNumber(round(v->at)) : cJSON_CreateNull());
    cJSON_AddItemToObject(o, "below", step ? cJSON_CreateNumber((double)lv->boundaries[v->step].below) : cJSON_CreateNull());
    cJSON_AddItemToObject(o, "above", step ? cJSON_CreateNumber((double)lv->boundaries[v->step].above) : cJSON_CreateNull());
    cJSON_AddItemToObject(o, "over_reference", step && l->reference ? cJSON_CreateNumber(v->at / (double)l->reference)
                                                                    : cJSON_CreateNull());
    cJSON_AddBoolToObject(o, "reaches", v->reaches);
    cJSON_AddBoolToObject(o, "within_tolerance", v->within);
    cJSON_AddBoolToObject(o, "contradicts", v->contradicts);
    return o;
}

/* The levels found against the reported sizes (probe/crosscheck.h); null when not checked. */
static cJSON *crosscheck_json(const struct mfb_probe_result *r)
{
    const struct mfb_crosscheck *x = &r->xc;
    if (!x->done)
        return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "tolerance", x->tolerance);
    cJSON_AddStringToObject(o, "reference_source", mfb_cache_source_name(x->source));
    cJSON_AddItemToObject(o, "read_memory_from", x->memory_from > 0 ? cJSON_CreateNumber(x->memory_from)
                                                                     : cJSON_CreateNull());
    cJSON *levels = cJSON_AddArrayToObject(o, "levels");
    for (int i = 0; i < MFB_XC_NLEVELS; i++) {
        const struct mfb_xc_level *l = &x->level[i];
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "level", mfb_xc_level_name(l->id));
        cJSON_AddNumberToObject(e, "reference", (double)l->reference);
        cJSON_AddItemToObject(e, "latency", view_json(l, MFB_XC_LATENCY, &r->levels));
        cJSON_AddItemToObject(e, "bandwidth", view_json(l, MFB_XC_BANDWIDTH, &r->bw_levels));
        cJSON_AddStringToObject(e, "verdict", mfb_xc_verdict_name(l->verdict));
        cJSON *by = cJSON_AddArrayToObject(e, "contradicted_by");
        for (int c = 0; c < MFB_XC_NCURVES; c++)
            if (l->view[c].contradicts)
                cJSON_AddItemToArray(by, cJSON_CreateString(mfb_xc_curve_name((enum mfb_xc_curve)c)));
        cJSON_AddNumberToObject(e, "kept", (double)l->kept);
        cJSON_AddStringToObject(e, "kept_from", mfb_xc_kept_from(x, l));
        char why[768];
        mfb_xc_explain(x, l, why, sizeof why);
        cJSON_AddStringToObject(e, "why", why);
        cJSON_AddItemToArray(levels, e);
    }
    cJSON_AddBoolToObject(o, "usable", x->usable);
    return o;
}

cJSON *mfb_probe_document(const struct mfb_probe_config *cfg, const struct mfb_probe_result *r,
                          const struct mfb_timer *t, const struct mfb_host *host)
{
    cJSON *d = cJSON_CreateObject();
    cJSON_AddStringToObject(d, "schema", "memfbench-probe");
    cJSON_AddNumberToObject(d, "schema_version", MFB_PROBE_SCHEMA_VERSION);
    cJSON_AddItemToObject(d, "tool", mfb_tool_json());
    cJSON *st = cJSON_AddObjectToObject(d, "status");
    cJSON_AddBoolToObject(st, "complete", !r->interrupted);
    cJSON_AddStringToObject(st, "stop_reason", r->interrupted ? "interrupted" : "done");
    cJSON_AddItemToObject(st, "warnings", mfb_warnings_json(&r->warn));
    cJSON_AddItemToObject(d, "config", config_json(cfg));
    cJSON_AddItemToObject(d, "host", mfb_host_json(host));
    cJSON_AddItemToObject(d, "timer", mfb_timer_json(t));
    cJSON *clk = cJSON_AddObjectToObject(d, "core_clock");
    cJSON_AddBoolToObject(clk, "known", r->clock.known);
    cJSON_AddItemToObject(clk, "ghz", r->clock.known ? cJSON_CreateNumber(r->clock.ghz) : cJSON_CreateNull());
    cJSON_AddItemToObject(clk, "ghz_min", r->clock.known ? cJSON_CreateNumber(r->clock.ghz_min) : cJSON_CreateNull());
    cJSON_AddItemToObject(clk, "ghz_max", r->clock.known ? cJSON_CreateNumber(r->clock.ghz_max) : cJSON_CreateNull());
    cJSON_AddStringToObject(clk, "method", "a chain of dependent integer adds (one cycle each), timed");
    cJSON *pages = cJSON_AddObjectToObject(d, "pages");
    cJSON_AddStringToObject(pages, "requested", mfb_huge_request_name(cfg->huge));
    cJSON_AddStringToObject(pages, "huge", mfb_pages_name(r->huge));
    cJSON_AddNumberToObject(pages, "huge_page_size", (double)r->huge_page_size);
    cJSON_AddItemToObject(pages, "why", r->huge_why[0] ? cJSON_CreateString(r->huge_why) : cJSON_CreateNull());
    cJSON_AddItemToObject(d, "latency", cfg->latency ? latency_json(r) : cJSON_CreateNull());
    cJSON_AddItemToObject(d, "bandwidth", cfg->bandwidth ? bandwidth_json(cfg, r) : cJSON_CreateNull());
    cJSON *found = r->found ? cJSON_CreateObject() : cJSON_CreateNull();
    if (r->found) {
        cJSON_AddNumberToObject(found, "l1d", (double)r->caches_found.l1d);
        cJSON_AddNumberToObject(found, "l2", (double)r->caches_found.l2);
        cJSON_AddNumberToObject(found, "llc", (double)r->caches_found.llc);
        cJSON_AddNumberToObject(found, "line", (double)r->caches_found.line);
        cJSON_AddStringToObject(found, "l1d_from", mfb_xc_kept_from(&r->xc, &r->xc.level[MFB_XC_L1D]));
        cJSON_AddStringToObject(found, "l2_from", mfb_xc_kept_from(&r->xc, &r->xc.level[MFB_XC_L2]));
        cJSON_AddStringToObject(found, "llc_from", mfb_xc_kept_from(&r->xc, &r->xc.level[MFB_XC_LLC]));
    }
    cJSON_AddItemToObject(d, "cross_check", crosscheck_json(r));
    cJSON_AddItemToObject(d, "caches_found", found);
    return d;
}
