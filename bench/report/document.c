#include "document.h"

#include <stdio.h>
#include <string.h>
#include <math.h>
#include <time.h>

#include "config.h"
#include "rng.h"

static void add_u64_string(cJSON *o, const char *key, uint64_t v)
{
    /* 64-bit seeds do not fit a JSON number exactly (doubles), so they are decimal strings. */
    char buf[32];
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)v);
    cJSON_AddStringToObject(o, key, buf);
}

static void add_or_null(cJSON *o, const char *key, const char *s)
{
    if (s)
        cJSON_AddStringToObject(o, key, s);
    else
        cJSON_AddNullToObject(o, key);
}

static cJSON *table_json(const struct mfb_table *t)
{
    if (!t->n)
        return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "origin", t->origin ? t->origin : "file");
    add_or_null(o, "path", t->path);
    cJSON_AddNumberToObject(o, "rows", (double)t->n);
    cJSON_AddNumberToObject(o, "total_weight", t->total_weight);
    if (t->kind == MFB_T_SIZE || t->kind == MFB_T_ALIGN) {
        cJSON_AddNumberToObject(o, "mean", mfb_table_mean(t));
        cJSON_AddNumberToObject(o, "max", (double)mfb_table_max(t));
    }
    cJSON *lo = cJSON_AddArrayToObject(o, "lo"), *hi = cJSON_AddArrayToObject(o, "hi");
    cJSON *p = cJSON_AddArrayToObject(o, "p");
    static const char *const ovl[] = {"none", "forward", "backward"};
    static const char *const mis[] = {"equal", "uniform", "at", "last"};
    for (size_t i = 0; i < t->n; i++) {
        const struct mfb_row *r = &t->rows[i];
        if (t->kind == MFB_T_OVERLAP) {
            cJSON_AddItemToArray(lo, cJSON_CreateString(ovl[r->lo]));
            cJSON_AddItemToArray(hi, cJSON_CreateNull());
        } else if (t->kind == MFB_T_MISMATCH) {
            cJSON_AddItemToArray(lo, cJSON_CreateString(mis[r->lo]));
            cJSON_AddItemToArray(hi, r->lo == MFB_MIS_AT ? cJSON_CreateNumber((double)r->hi) : cJSON_CreateNull());
        } else {
            cJSON_AddItemToArray(lo, cJSON_CreateNumber((double)r->lo));
            cJSON_AddItemToArray(hi, cJSON_CreateNumber((double)r->hi));
        }
        cJSON_AddItemToArray(p, cJSON_CreateNumber(r->p));
    }
    return o;
}

static cJSON *window_json(const struct mfb_window *w, uint64_t threshold, bool small)
{
    if (!w->used)
        return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "bytes_per_buffer", (double)w->size);
    if (small)
        cJSON_AddNumberToObject(o, "max_call_size", (double)threshold);
    else {
        cJSON_AddNumberToObject(o, "slice_bytes", (double)w->slice);
        cJSON_AddNumberToObject(o, "shift_granularity", 4096);
    }
    return o;
}

static cJSON *build_json(void)
{
    cJSON *b = cJSON_CreateObject();
    cJSON_AddStringToObject(b, "type", MFB_BUILD_TYPE);
    cJSON_AddStringToObject(b, "optimization", MFB_OPTIMIZATION);
#ifdef __OPTIMIZE__
    cJSON_AddBoolToObject(b, "optimized", 1);
#else
    cJSON_AddBoolToObject(b, "optimized", 0);
#endif
    cJSON_AddStringToObject(b, "compiler", MFB_COMPILER " " __VERSION__);
    cJSON_AddStringToObject(b, "c_args", MFB_C_ARGS);
    cJSON_AddStringToObject(b, "variant_c_args", MFB_VARIANT_C_ARGS);
    return b;
}

cJSON *mfb_document(const struct mfb_run *r, cJSON *host)
{
    const struct mfb_config *c = r->cfg;
    cJSON *d = cJSON_CreateObject();
    cJSON_AddStringToObject(d, "schema", "memfbench-run");
    cJSON_AddNumberToObject(d, "schema_version", MFB_SCHEMA_VERSION);
    cJSON_AddStringToObject(d, "mode", "replay");
    cJSON *tool = cJSON_AddObjectToObject(d, "tool");
    cJSON_AddStringToObject(tool, "name", "memfbench");
    cJSON_AddStringToObject(tool, "version", MFB_VERSION);
    cJSON_AddItemToObject(tool, "build", build_json());
    char ts[64];
    time_t now = time(NULL);
    strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    cJSON_AddStringToObject(d, "created_utc", ts);
    cJSON *argv = cJSON_AddArrayToObject(d, "command_line");
    for (int i = 0; i < c->argc; i++)
        cJSON_AddItemToArray(argv, cJSON_CreateString(c->argv[i]));

    cJSON *st = cJSON_AddObjectToObject(d, "status");
    cJSON_AddBoolToObject(st, "complete", strcmp(r->stop_reason, "interrupted") != 0);
    cJSON_AddStringToObject(st, "stop_reason", r->stop_reason);
    if (c->target_ci > 0) {
        cJSON *tc = cJSON_AddObjectToObject(st, "target_ci");
        cJSON_AddNumberToObject(tc, "percent", c->target_ci);
        cJSON_AddBoolToObject(tc, "reached", r->target_reached);
        cJSON *hw = cJSON_AddObjectToObject(tc, "half_widths");
        for (int i = 1; i < r->nvars; i++)
            if (!r->vars[i].v->noop && isfinite(r->target_widths[i]))
                cJSON_AddNumberToObject(hw, r->vars[i].v->name, r->target_widths[i]);
    }
    cJSON *warns = cJSON_AddArrayToObject(st, "warnings");
    for (int i = 0; i < r->warn->n; i++) {
        cJSON *w = cJSON_CreateObject();
        cJSON_AddStringToObject(w, "code", r->warn->code[i]);
        cJSON_AddStringToObject(w, "message", r->warn->msg[i]);
        cJSON_AddItemToArray(warns, w);
    }

    cJSON *cfg = cJSON_AddObjectToObject(d, "config");
    cJSON_AddStringToObject(cfg, "function", mfb_func_name(c->func));
    cJSON_AddStringToObject(cfg, "distribution", r->dist->name);
    cJSON *vn = cJSON_AddArrayToObject(cfg, "variants");
    for (int i = 0; i < r->nvars; i++)
        cJSON_AddItemToArray(vn, cJSON_CreateString(r->vars[i].v->name));
    cJSON_AddStringToObject(cfg, "baseline", r->vars[0].v->name);
    if (c->time_s > 0)
        cJSON_AddNumberToObject(cfg, "time_budget_s", c->time_s);
    else
        cJSON_AddNullToObject(cfg, "time_budget_s");
    if (c->rounds)
        cJSON_AddNumberToObject(cfg, "rounds_limit", (double)c->rounds);
    else
        cJSON_AddNullToObject(cfg, "rounds_limit");
    if (c->warmup_rounds >= 0)
        cJSON_AddNumberToObject(cfg, "warmup_rounds", (double)c->warmup_rounds);
    else
        cJSON_AddNullToObject(cfg, "warmup_rounds");
    if (c->target_ci > 0)
        cJSON_AddNumberToObject(cfg, "target_ci_percent", c->target_ci);
    else
        cJSON_AddNullToObject(cfg, "target_ci_percent");
    cJSON_AddNumberToObject(cfg, "processes", (double)c->processes);
    cJSON_AddStringToObject(cfg, "placement", mfb_placement_name(c->placement));
    cJSON_AddStringToObject(cfg, "alignment_mode", mfb_align_mode_name(c->align_mode));
    cJSON_AddStringToObject(cfg, "clock_requested", c->clock);
    if (c->cpu >= 0)
        cJSON_AddNumberToObject(cfg, "cpu", c->cpu);
    else
        cJSON_AddNullToObject(cfg, "cpu");
    cJSON_AddStringToObject(cfg, "cpu_source", c->cpu_given ? "given" : "default: last allowed CPU");
    cJSON_AddStringToObject(cfg, "distribution_dir", c->dist_dir);

    cJSON *seeds = cJSON_AddObjectToObject(d, "seeds");
    add_u64_string(seeds, "master", r->seed);
    cJSON_AddStringToObject(seeds, "source", c->seed_given ? "given" : "fresh (getrandom)");
    const char *names[] = {"params", "order", "shift", "verify", "selfcheck", "calibrate"};
    for (int i = 0; i < 6; i++)
        add_u64_string(seeds, names[i], mfb_seed_derive(r->seed, (uint64_t)i + 1));

    cJSON_AddItemToObject(d, "host", host);

    const struct mfb_timer *t = r->timer;
    cJSON *tm = cJSON_AddObjectToObject(d, "timer");
    cJSON_AddStringToObject(tm, "name", t->name);
    cJSON_AddStringToObject(tm, "why", t->why);
    cJSON_AddNumberToObject(tm, "hz", t->hz);
    cJSON_AddNumberToObject(tm, "ns_per_tick", t->ns_per_tick);
    cJSON_AddStringToObject(tm, "hz_source", t->hz_source);
    cJSON_AddNumberToObject(tm, "hz_spread_ppm", t->hz_spread_ppm);
    cJSON_AddBoolToObject(tm, "invariant", t->invariant);
    cJSON_AddNumberToObject(tm, "overhead_ticks", t->overhead_ticks);
    cJSON_AddNumberToObject(tm, "overhead_ns", t->overhead_ticks * t->ns_per_tick);
    cJSON_AddNumberToObject(tm, "overhead_min_ticks", t->overhead_min_ticks);
    cJSON_AddNumberToObject(tm, "tick_ns", t->tick_ns);
    cJSON_AddNumberToObject(tm, "min_step_ns", t->min_step_ns);

    cJSON *dist = cJSON_AddObjectToObject(d, "distribution");
    cJSON_AddStringToObject(dist, "name", r->dist->name);
    cJSON_AddStringToObject(dist, "format", r->dist->format);
    cJSON *files = cJSON_AddArrayToObject(dist, "files");
    for (int i = 0; i < r->dist->nfiles; i++) {
        cJSON *f = cJSON_CreateObject();
        cJSON_AddStringToObject(f, "role", r->dist->files[i].role);
        cJSON_AddStringToObject(f, "path", r->dist->files[i].path);
        cJSON_AddStringToObject(f, "sha256", r->dist->files[i].sha256);
        cJSON_AddItemToArray(files, f);
    }
    cJSON *tabs = cJSON_AddObjectToObject(dist, "tables");
    cJSON_AddItemToObject(tabs, "size", table_json(&r->dist->size));
    cJSON_AddItemToObject(tabs, "src_alignment", table_json(&r->dist->src_align));
    cJSON_AddItemToObject(tabs, "dst_alignment", table_json(&r->dist->dst_align));
    cJSON_AddItemToObject(tabs, "overlap", table_json(&r->dist->overlap));
    cJSON_AddItemToObject(tabs, "mismatch", table_json(&r->dist->mismatch));
    cJSON_AddBoolToObject(dist, "overlap_ignored", r->dist->overlap_ignored);
    const struct mfb_selfcheck *sc = &r->selfcheck;
    cJSON *scj = cJSON_AddObjectToObject(dist, "selfcheck");
    cJSON_AddNumberToObject(scj, "draws", (double)sc->draws);
    cJSON_AddNumberToObject(scj, "mean_size_expected", sc->mean_expected);
    cJSON_AddNumberToObject(scj, "mean_size_realized", sc->mean_realized);
    cJSON_AddNumberToObject(scj, "mean_size_z", sc->mean_z);
    cJSON_AddNumberToObject(scj, "size_max_z", sc->size_max_z);
    cJSON_AddNumberToObject(scj, "src_alignment_max_z", sc->src_align_max_z);
    cJSON_AddNumberToObject(scj, "dst_alignment_max_z", sc->dst_align_max_z);
    cJSON_AddNumberToObject(scj, "overlap_max_z", sc->overlap_max_z);
    cJSON_AddNumberToObject(scj, "limit_z", MFB_SELFCHECK_Z);
    cJSON_AddBoolToObject(scj, "passed", sc->passed);

    const struct mfb_workset *ws = r->ws;
    cJSON *w = cJSON_AddObjectToObject(d, "workset");
    cJSON_AddStringToObject(w, "placement", mfb_placement_name(ws->placement));
    cJSON_AddNumberToObject(w, "buffers", ws->roles);
    cJSON_AddNumberToObject(w, "params_per_array", ws->params_cap);
    cJSON_AddNumberToObject(w, "param_record_bytes", (double)sizeof(struct mfb_call));
    cJSON_AddNumberToObject(w, "l1_budget_bytes", (double)ws->l1_budget);
    cJSON_AddItemToObject(w, "small_window", window_json(&ws->small, ws->threshold, true));
    cJSON_AddItemToObject(w, "large_window", window_json(&ws->large, ws->threshold, false));
    cJSON_AddNumberToObject(w, "arena_bytes", (double)ws->arena_size);
    cJSON_AddNumberToObject(w, "prefault_ms", ws->prefault_ms);
    cJSON_AddStringToObject(w, "fill", ws->fill);

    cJSON *b = cJSON_AddObjectToObject(d, "batch");
    cJSON_AddNumberToObject(b, "calls_per_pass", r->calls_per_pass);
    cJSON_AddNumberToObject(b, "passes", r->passes);
    cJSON_AddNumberToObject(b, "calls", (double)r->calls_per_pass * r->passes);
    cJSON_AddNumberToObject(b, "target_ns", r->target_batch_ns);
    cJSON_AddNumberToObject(b, "max_ns", r->max_batch_ns);
    cJSON_AddNumberToObject(b, "predicted_fastest_ns", r->fastest_batch_ns);
    cJSON_AddNumberToObject(b, "predicted_slowest_ns", r->slowest_batch_ns);
    cJSON_AddStringToObject(b, "rule", r->batch_rule);
    cJSON_AddBoolToObject(b, "single_call", r->single_call);
    cJSON_AddStringToObject(b, "pass_order", "every pass visits the call array in its own random order "
                            "(odd stride and offset modulo the power-of-two array length)");
    cJSON_AddNumberToObject(b, "linearity_tolerance", r->linearity_tolerance);
    cJSON *h = cJSON_AddObjectToObject(d, "harness");
    cJSON_AddNumberToObject(h, "overhead_ns_per_call", r->overhead_ns_per_call);
    cJSON_AddStringToObject(h, "method", "median of 9 batches of the function's noop, with the run's batch "
                            "size, through the timed loop");
    cJSON_AddStringToObject(b, "order", "random permutation on even rounds, reversed on odd rounds");
    cJSON_AddStringToObject(b, "calls_overlap", "throughput: consecutive calls are independent and may overlap in the core");

    cJSON *vars = cJSON_AddArrayToObject(d, "variants");
    for (int i = 0; i < r->nvars; i++) {
        const struct mfb_run_variant *rv = &r->vars[i];
        cJSON *v = cJSON_CreateObject();
        cJSON_AddNumberToObject(v, "index", i);
        cJSON_AddStringToObject(v, "name", rv->v->name);
        cJSON_AddStringToObject(v, "origin", rv->v->origin);
        cJSON_AddStringToObject(v, "description", rv->v->description);
        cJSON_AddBoolToObject(v, "noop", rv->v->noop);
        char addr[32];
        snprintf(addr, sizeof addr, "0x%llx", (unsigned long long)rv->code.address);
        cJSON_AddStringToObject(v, "address", addr);
        add_or_null(v, "symbol", rv->code.symbol);
        add_or_null(v, "object", rv->code.object);
        if (rv->code.size)
            cJSON_AddNumberToObject(v, "code_size", (double)rv->code.size);
        else
            cJSON_AddNullToObject(v, "code_size");
        cJSON_AddNumberToObject(v, "verified_calls", (double)rv->verified_calls);
        cJSON_AddNumberToObject(v, "pilot_ns_per_call", rv->pilot_ns_per_call);
        cJSON_AddNumberToObject(v, "linearity", rv->linearity);
        if (rv->v->copy_of) {
            cJSON *cp = cJSON_AddObjectToObject(v, "copy_of");
            cJSON_AddStringToObject(cp, "variant", rv->v->copy_of);
            cJSON_AddNumberToObject(cp, "bytes_compared", (double)rv->copy_bytes_compared);
            cJSON_AddBoolToObject(cp, "identical", rv->copy_identical);
        }
        cJSON_AddItemToArray(vars, v);
    }

    cJSON *rounds = cJSON_AddObjectToObject(d, "rounds");
    cJSON_AddNumberToObject(rounds, "count", r->rounds);
    cJSON_AddNumberToObject(rounds, "warmup", r->warmup_rounds);
    cJSON_AddNumberToObject(rounds, "measured", r->rounds - r->warmup_rounds);
    cJSON *wu = cJSON_AddObjectToObject(rounds, "warmup_detail");
    cJSON_AddStringToObject(wu, "mode", r->warmup_mode);
    cJSON_AddNumberToObject(wu, "seconds", r->warmup_s);
    if (!strcmp(r->warmup_mode, "detected")) {
        cJSON_AddBoolToObject(wu, "settled", r->warmup_settled);
        cJSON_AddNumberToObject(wu, "last_change", r->warmup_change);
        cJSON_AddStringToObject(wu, "criterion", "warm-up rounds replay the first calls; settled when the median "
                                "round time of the last 5 rounds is within 1 % of the 5 before; cap max(0.5 s, "
                                "time/10) or 2000 rounds");
    }
    cJSON_AddNumberToObject(rounds, "duration_s", r->rounds_s);
    cJSON_AddNumberToObject(rounds, "prepare_s", r->prepare_s);
    /* Later modes (perf counters, threads, latency probes) add their blocks here. */
    cJSON_AddObjectToObject(d, "extensions");
    return d;
}
