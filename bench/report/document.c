#include "report/document.h"

#include "study/options.h"

#include "base/warn.h"

#include <stdio.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>

#include "base/seeds.h"
#include "base/warn.h"
#include "config.h"
#include "impl/identity.h"
#include "impl/source.h"
#include "machine/flush.h"
#include "revision.h"

void mfb_json_add_u64_string(cJSON *o, const char *key, uint64_t v)
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
    cJSON_AddStringToObject(o, "origin", mfb_table_origin_name(t->origin));
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

static cJSON *window_json(const struct mfb_space *sp, const struct mfb_window *w, bool small)
{
    if (!w->used)
        return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "bytes_per_buffer", (double)w->size);
    /* each buffer's window start in the arena, which itself starts on a page: multiples of the page */
    cJSON *offs = cJSON_AddArrayToObject(o, "arena_offsets");
    for (int r = 0; r < sp->roles; r++)
        cJSON_AddItemToArray(offs, cJSON_CreateNumber((double)w->off[r]));
    if (small)
        cJSON_AddNumberToObject(o, "max_call_size", (double)sp->threshold);
    else {
        cJSON_AddNumberToObject(o, "slice_bytes", (double)w->slice);
        cJSON_AddNumberToObject(o, "shift_granularity", sp->page);
        /* the distinct shifts a pass draws from: whole pages, pages_mask in 4 KiB units */
        cJSON_AddNumberToObject(o, "shift_places", (double)(((uint64_t)w->pages_mask + 1) / sp->page_units));
    }
    return o;
}

/* The page the windows were laid out by: the kernel's, or one MEMFBENCH_PAGE_SIZE simulated. */
static cJSON *page_json(const struct mfb_page_size *p)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "bytes", p->bytes);
    cJSON_AddNumberToObject(o, "kernel_bytes", p->real);
    cJSON_AddStringToObject(o, "source", p->simulated ? "simulated (" MFB_PAGE_SIZE_ENV ")" : "sysconf");
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
    cJSON_AddStringToObject(b, "source_revision", MFB_SOURCE_REVISION);
    return b;
}

static void add_number_or_null(cJSON *o, const char *key, bool present, double v)
{
    if (present)
        cJSON_AddNumberToObject(o, key, v);
    else
        cJSON_AddNullToObject(o, key);
}

cJSON *mfb_tool_json(void)
{
    cJSON *tool = cJSON_CreateObject();
    cJSON_AddStringToObject(tool, "name", "memfbench");
    cJSON_AddStringToObject(tool, "version", MFB_VERSION);
    cJSON_AddItemToObject(tool, "build", build_json());
    return tool;
}

cJSON *mfb_command_line_json(const struct mfb_study *s)
{
    cJSON *argv = cJSON_CreateArray();
    for (int i = 0; i < s->argc; i++)
        cJSON_AddItemToArray(argv, cJSON_CreateString(s->argv[i]));
    return argv;
}

cJSON *mfb_warnings_json(const struct mfb_warnings *ws)
{
    cJSON *warns = cJSON_CreateArray();
    for (int i = 0; i < ws->n; i++) {
        cJSON *w = cJSON_CreateObject();
        const struct mfb_warning_kind *k = mfb_warning_kind(ws->kind[i]);
        cJSON_AddStringToObject(w, "code", k->code);
        cJSON_AddStringToObject(w, "message", ws->msg[i]);
        cJSON_AddStringToObject(w, "severity", mfb_severity_name(k->severity));
        if (ws->processes[i] > 0) /* a study's: how many of its processes found it */
            cJSON_AddNumberToObject(w, "processes", ws->processes[i]);
        if (ws->others[i]) /* and whether they said it of other variants than the message names */
            cJSON_AddBoolToObject(w, "others", true);
        cJSON_AddItemToArray(warns, w);
    }
    return warns;
}

static cJSON *status_json(const struct mfb_run *r)
{
    const struct mfb_stop *stop = &r->procedure.stop;
    cJSON *st = cJSON_CreateObject();
    cJSON_AddBoolToObject(st, "complete", stop->reason != MFB_STOP_INTERRUPTED);
    cJSON_AddStringToObject(st, "stop_reason", mfb_stop_reason_name(stop->reason));
    if (r->config.study->target_ci > 0) {
        cJSON *tc = cJSON_AddObjectToObject(st, "target_ci");
        cJSON_AddNumberToObject(tc, "percent", r->config.study->target_ci);
        cJSON_AddBoolToObject(tc, "reached", stop->target_reached);
        cJSON *hw = cJSON_AddObjectToObject(tc, "half_widths");
        for (int i = 1; i < r->config.nvars; i++)
            if (!r->config.vars[i].v->noop && isfinite(stop->target_widths[i]))
                cJSON_AddNumberToObject(hw, r->config.vars[i].v->name, stop->target_widths[i]);
    }
    cJSON_AddItemToObject(st, "warnings", mfb_warnings_json(r->runtime.warn));
    return st;
}

/* The study as resolved: what was asked for, with the defaults the run filled in. */
/* config.threads: the timing threads' CPUs and where those sit (one thread without --threads). */
static void add_threads(cJSON *cfg, const struct mfb_run *r)
{
    const struct mfb_team *t = r->runtime.team;
    int n = t ? t->n : 1;
    cJSON *th = cJSON_AddObjectToObject(cfg, "threads");
    cJSON_AddNumberToObject(th, "count", n);
    cJSON *cpus = cJSON_AddArrayToObject(th, "cpus");
    cJSON_AddStringToObject(th, "start", "batch");
    cJSON_AddBoolToObject(th, "alone_batches", n > 1); /* thread 0 times alone in every team */
    cJSON *topo = cJSON_AddArrayToObject(th, "topology");
    for (int k = 0; k < n; k++) {
        int cpu = t ? t->place[k].cpu : r->config.study->cpu;
        cJSON_AddItemToArray(cpus, cJSON_CreateNumber(cpu));
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "thread", k);
        cJSON_AddNumberToObject(o, "cpu", cpu);
        /* thread 0 runs on the master seed; thread k on its own (base/seeds.h) */
        mfb_json_add_u64_string(o, "seed", k ? mfb_thread_seed(r->config.seed, k) : r->config.seed);
        add_number_or_null(o, "core", t && t->place[k].core >= 0, t ? t->place[k].core : 0);
        add_number_or_null(o, "package", t && t->place[k].package >= 0, t ? t->place[k].package : 0);
        add_or_null(o, "siblings", t && t->place[k].siblings[0] ? t->place[k].siblings : NULL);
        cJSON *with = cJSON_AddArrayToObject(o, "shares_core_with");
        for (int j = 0; t && j < n; j++)
            if (j != k && mfb_team_same_core(t, j, k))
                cJSON_AddItemToArray(with, cJSON_CreateNumber(j));
        cJSON_AddItemToArray(topo, o);
    }
}

/* config.background: the stressor, its CPUs and the work it did while the rounds ran. */
static void add_background(cJSON *cfg, const struct mfb_background *b)
{
    if (!b) {
        cJSON_AddNullToObject(cfg, "background");
        return;
    }
    cJSON *o = cJSON_AddObjectToObject(cfg, "background");
    cJSON_AddStringToObject(o, "stressor", mfb_choice_name(MFB_SET_STRESSOR, b->kind));
    cJSON *cpus = cJSON_AddArrayToObject(o, "cpus");
    for (int i = 0; i < b->n; i++)
        cJSON_AddItemToArray(cpus, cJSON_CreateNumber(b->cpus[i]));
    cJSON_AddNumberToObject(o, "buffer_bytes", b->kind == MFB_STRESS_BANDWIDTH ? (double)b->buffer_bytes : 0);
    cJSON_AddNumberToObject(o, "seconds", b->seconds);
    add_number_or_null(o, "bytes_per_ns", b->kind == MFB_STRESS_BANDWIDTH && b->seconds > 0,
                       (double)b->bytes / (b->seconds * 1e9));
    cJSON_AddNumberToObject(o, "loops", (double)b->loops);
}

/* config: the request as the option rows echo it (study/options.c), then what the run resolved
 * from it (the distribution's and variants' names, the build cache, the pressure block, threads,
 * stressors and counters it had). A merged file writes the same two parts (processes/merge.c). */
static cJSON *config_json(const struct mfb_run *r)
{
    const struct mfb_study *c = r->config.study;
    cJSON *cfg = cJSON_CreateObject();
    mfb_study_echo(cfg, c);
    cJSON_AddStringToObject(cfg, "distribution", r->config.dist->name);
    cJSON *vn = cJSON_AddArrayToObject(cfg, "variants");
    for (int i = 0; i < r->config.nvars; i++)
        cJSON_AddItemToArray(vn, cJSON_CreateString(r->config.vars[i].v->name));
    cJSON_AddStringToObject(cfg, "baseline", r->config.vars[0].v->name);
    char cache[4096];
    mfb_source_cache_root(cache, sizeof cache);
    add_or_null(cfg, "variant_cache", cache[0] ? cache : NULL);
    if (r->runtime.pressure.bytes) {
        cJSON *ip = cJSON_AddObjectToObject(cfg, "icache_pressure");
        cJSON_AddNumberToObject(ip, "bytes", (double)r->runtime.pressure.bytes);
        cJSON_AddNumberToObject(ip, "taken_branches", (double)r->runtime.pressure.branches);
        cJSON_AddStringToObject(ip, "where", "inside the timed loop, after every call");
        cJSON_AddNumberToObject(ip, "ns_per_run", r->runtime.pressure.ns_per_run);
    } else {
        cJSON_AddNullToObject(cfg, "icache_pressure");
    }
    add_threads(cfg, r);
    add_background(cfg, r->runtime.background);
    cJSON *ctr = cJSON_AddObjectToObject(cfg, "counters");
    cJSON_AddStringToObject(ctr, "requested", mfb_choice_name(MFB_SET_COUNTERS, c->counters));
    cJSON_AddStringToObject(ctr, "source", r->runtime.counters.source);
    cJSON *ev = cJSON_AddArrayToObject(ctr, "events");
    for (int k = 0; k < MFB_COUNTER_COUNT; k++)
        if (r->runtime.counters.active && r->runtime.counters.have[k])
            cJSON_AddItemToArray(ev, cJSON_CreateString(mfb_counter_name((enum mfb_counter)k)));
    add_or_null(ctr, "why", r->runtime.counters.why[0] ? r->runtime.counters.why : NULL);
    return cfg;
}

/* The master seed and every stream derived from it (base/seeds.h). */
static cJSON *seeds_json(const struct mfb_run *r)
{
    cJSON *seeds = cJSON_CreateObject();
    mfb_json_add_u64_string(seeds, "master", r->config.seed);
    cJSON_AddStringToObject(seeds, "source", r->config.study->seed_given ? "given" : "fresh (getrandom)");
    for (int i = 0; i < MFB_STREAM_COUNT; i++)
        mfb_json_add_u64_string(seeds, mfb_stream_name((enum mfb_stream)i), mfb_stream_seed(r->config.seed,
            (enum mfb_stream)i));
    return seeds;
}

static cJSON *layout_json(const struct mfb_layout *l)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "stack_offset", l->stack_offset);
    cJSON_AddNumberToObject(o, "env_pad", l->env_pad);
    cJSON_AddNumberToObject(o, "kernel_code_placement", l->kernel_placement);
    char addr[32];
    snprintf(addr, sizeof addr, "0x%llx", (unsigned long long)(uintptr_t)mfb_kernel_placements[l->kernel_placement]);
    cJSON_AddStringToObject(o, "kernel_address", addr);
    cJSON_AddNumberToObject(o, "code_placements", MFB_CODE_PLACEMENTS);
    cJSON_AddNumberToObject(o, "code_placement_step", MFB_PLACEMENT_STEP);
    cJSON_AddStringToObject(o, "code_placement_design", l->balanced ? "balanced" : "random");
    if (l->balanced)
        cJSON_AddNumberToObject(o, "code_placement_block", l->block);
    cJSON_AddStringToObject(o, "code_rotation", mfb_choice_name(MFB_SET_ROTATION, l->rotation));
    if (l->rotation == MFB_ROTATE_ROUND) {
        /* round r runs the loop from kernel_code_placements[r % code_placements] */
        cJSON *k = cJSON_AddArrayToObject(o, "kernel_code_placements");
        for (uint32_t r = 0; r < MFB_CODE_PLACEMENTS; r++)
            cJSON_AddItemToArray(k, cJSON_CreateNumber(mfb_layout_kernel_at(l, r)));
    }
    cJSON_AddStringToObject(o, "method", "stack offset drawn from the seed (multiple of 16 below 4096) before "
                            "the study runs; environment pad MEMFBENCH_PAD of random length set by the "
                            "--processes parent; both move addresses by less than the pages ASLR moves them by. "
                            "The timed loop and every built-in variant run from one of code_placements copies "
                            "of their code, each starting code_placement_step bytes further into a page "
                            "(variants[].code_placement): balanced, process i of a study takes entry i mod "
                            "code_placements of a random permutation per loop and variant, drawn afresh for each "
                            "block of code_placements processes (code_placement_block: i / code_placements), so "
                            "every placement is used once per block and the blocks meet independent pairings of "
                            "placements; random, drawn from the process's seed (one process). An A/A "
                            "copy never shares its original's placement. libc and plugins cannot be moved. Data offsets "
                            "are drawn per call within each window");
    return o;
}

cJSON *mfb_timer_json(const struct mfb_timer *t)
{
    cJSON *tm = cJSON_CreateObject();
    cJSON_AddStringToObject(tm, "name", t->name);
    cJSON_AddStringToObject(tm, "why", t->why);
    cJSON_AddNumberToObject(tm, "hz", t->hz);
    cJSON_AddNumberToObject(tm, "ns_per_tick", t->ns_per_tick);
    cJSON_AddStringToObject(tm, "hz_source", t->hz_source);
    cJSON_AddNumberToObject(tm, "hz_spread_ppm", t->hz_spread_ppm);
    if (!isnan(t->hz_check_ppm)) {
        cJSON_AddNumberToObject(tm, "hz_check_ppm", t->hz_check_ppm);
        cJSON_AddNumberToObject(tm, "hz_check_ms", t->hz_check_ms);
    }
    cJSON_AddBoolToObject(tm, "invariant", t->invariant);
    cJSON_AddNumberToObject(tm, "overhead_ticks", t->overhead_ticks);
    cJSON_AddNumberToObject(tm, "overhead_ns", t->overhead_ticks * t->ns_per_tick);
    cJSON_AddNumberToObject(tm, "overhead_min_ticks", t->overhead_min_ticks);
    cJSON_AddNumberToObject(tm, "tick_ns", t->tick_ns);
    cJSON_AddNumberToObject(tm, "min_step_ns", t->min_step_ns);
    return tm;
}

static cJSON *selfcheck_json(const struct mfb_selfcheck *sc)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "draws", (double)sc->draws);
    cJSON_AddNumberToObject(o, "mean_size_expected", sc->mean_expected);
    cJSON_AddNumberToObject(o, "mean_size_realized", sc->mean_realized);
    cJSON_AddNumberToObject(o, "mean_size_z", sc->mean_z);
    cJSON_AddNumberToObject(o, "size_max_z", sc->size_max_z);
    cJSON_AddNumberToObject(o, "src_alignment_max_z", sc->src_align_max_z);
    cJSON_AddNumberToObject(o, "dst_alignment_max_z", sc->dst_align_max_z);
    cJSON_AddNumberToObject(o, "overlap_max_z", sc->overlap_max_z);
    cJSON_AddNumberToObject(o, "limit_z", MFB_SELFCHECK_Z);
    cJSON_AddBoolToObject(o, "passed", sc->passed);
    return o;
}

/* --by-class: the edges and each class's sizes, share of calls, mean size, batch shape and
 * self-check; null without --by-class. */
static cJSON *by_class_json(const struct mfb_by_class *bc)
{
    if (!bc->on)
        return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject();
    cJSON *edges = cJSON_AddArrayToObject(o, "edges");
    for (int i = 0; i < bc->classes.nedges; i++)
        cJSON_AddItemToArray(edges, cJSON_CreateNumber((double)bc->classes.edges[i]));
    cJSON *list = cJSON_AddArrayToObject(o, "classes");
    for (int k = 0; k < bc->classes.n; k++) {
        const struct mfb_size_class *c = &bc->classes.c[k];
        cJSON *e = cJSON_CreateObject();
        cJSON_AddNumberToObject(e, "index", k + 1);
        cJSON_AddNumberToObject(e, "lo", (double)c->lo);
        cJSON_AddNumberToObject(e, "hi", (double)c->hi);
        cJSON_AddNumberToObject(e, "p", c->p);
        cJSON_AddNumberToObject(e, "mean_size", c->mean_size);
        cJSON_AddNumberToObject(e, "calls_per_pass", (double)(1u << bc->shape[k].calls_log2));
        cJSON_AddNumberToObject(e, "passes", bc->shape[k].passes);
        cJSON_AddItemToObject(e, "selfcheck", selfcheck_json(&bc->shape[k].selfcheck));
        cJSON_AddItemToArray(list, e);
    }
    return o;
}

/* A sweep: its sizes, how each point draws them, the alignments; null for a replay. */
static cJSON *sweep_json(const struct mfb_sweep *s)
{
    if (!s)
        return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject();
    cJSON *sizes = cJSON_AddArrayToObject(o, "sizes");
    for (size_t i = 0; i < s->n; i++)
        cJSON_AddItemToArray(sizes, cJSON_CreateNumber((double)s->sizes[i]));
    cJSON_AddStringToObject(o, "mode", mfb_sweep_mode_name(s->mode));
    if (s->mode == MFB_SWEEP_SPREAD)
        cJSON_AddNumberToObject(o, "spread_percent", s->spread_pct);
    else
        cJSON_AddNullToObject(o, "spread_percent");
    if (s->align_src)
        cJSON_AddNumberToObject(o, "align_src", (double)s->align_src);
    else
        cJSON_AddNullToObject(o, "align_src");
    if (s->align_dst)
        cJSON_AddNumberToObject(o, "align_dst", (double)s->align_dst);
    else
        cJSON_AddNullToObject(o, "align_dst");
    return o;
}

cJSON *mfb_dist_files_json(const struct mfb_dist *d)
{
    cJSON *files = cJSON_CreateArray();
    for (int i = 0; i < d->nfiles; i++) {
        cJSON *f = cJSON_CreateObject();
        cJSON_AddStringToObject(f, "role", d->files[i].role);
        cJSON_AddStringToObject(f, "path", d->files[i].path);
        cJSON_AddStringToObject(f, "sha256", d->files[i].sha256);
        cJSON_AddItemToArray(files, f);
    }
    return files;
}

/* tables: false in a later process of a --processes study, whose parent keeps the first process's
 * sections only (processes/child.c): the same tables, a few thousand rows a child would format and
 * its parent parse only to drop them. */
static cJSON *distribution_json(const struct mfb_dist *dd, const struct mfb_selfcheck *sc, bool tables)
{
    cJSON *dist = cJSON_CreateObject();
    cJSON_AddStringToObject(dist, "name", dd->name);
    cJSON_AddStringToObject(dist, "format", mfb_dist_format_name(dd->format));
    cJSON_AddItemToObject(dist, "files", mfb_dist_files_json(dd));
    if (!tables) {
        cJSON_AddItemToObject(dist, "selfcheck", selfcheck_json(sc));
        return dist;
    }
    cJSON *tabs = cJSON_AddObjectToObject(dist, "tables");
    cJSON_AddItemToObject(tabs, "size", table_json(&dd->size));
    cJSON_AddItemToObject(tabs, "src_alignment", table_json(&dd->src_align));
    cJSON_AddItemToObject(tabs, "dst_alignment", table_json(&dd->dst_align));
    cJSON_AddItemToObject(tabs, "overlap", table_json(&dd->overlap));
    cJSON_AddItemToObject(tabs, "mismatch", table_json(&dd->mismatch));
    cJSON_AddBoolToObject(dist, "overlap_ignored", dd->overlap_ignored);
    cJSON_AddItemToObject(dist, "selfcheck", selfcheck_json(sc));
    return dist;
}

static cJSON *workset_json(const struct mfb_workset *ws)
{
    cJSON *w = cJSON_CreateObject();
    cJSON_AddStringToObject(w, "placement", mfb_choice_name(MFB_SET_PLACEMENT, ws->placement));
    cJSON_AddNumberToObject(w, "buffers", ws->space.roles);
    cJSON_AddNumberToObject(w, "params_per_array", mfb_workset_params(ws));
    cJSON_AddNumberToObject(w, "param_record_bytes", (double)sizeof(struct mfb_call));
    cJSON_AddNumberToObject(w, "l1_budget_bytes", (double)ws->l1_budget);
    cJSON_AddItemToObject(w, "page_size", page_json(&ws->page));
    cJSON_AddItemToObject(w, "small_window", window_json(&ws->space, &ws->space.small, true));
    cJSON_AddStringToObject(w, "small_max_source", mfb_small_max_source_name(ws->small_max_source));
    cJSON_AddNumberToObject(w, "align_room_bytes", (double)ws->align_room);
    if (ws->space.small.used)
        cJSON_AddNumberToObject(w, "small_fits_bytes", (double)ws->small_fits);
    cJSON *large = window_json(&ws->space, &ws->space.large, false);
    if (ws->space.large.used)
        cJSON_AddStringToObject(large, "scheme", mfb_large_scheme_name(ws->large_scheme));
    if (ws->space.large.used && ws->large_scheme == MFB_LARGE_EVICTED) {
        /* the stride of the eviction step (measure/evict.c) and where it was read */
        const struct mfb_flush *f = mfb_flush_caps();
        cJSON_AddNumberToObject(large, "flush_line_bytes", f->line);
        cJSON_AddStringToObject(large, "flush_line_source", f->line_source);
        cJSON_AddStringToObject(large, "flush_instruction", mfb_flush_insn_name(f->insn));
        cJSON_AddStringToObject(large, "flush_instruction_source", f->insn_source);
    }
    /* sized scheme: every role's large window together, against the LLC the plan assumed: how
     * likely a page shift lands on lines still cached is about the inverse */
    if (ws->space.large.used && ws->llc && ws->large_scheme == MFB_LARGE_SIZED) {
        cJSON_AddNumberToObject(large, "llc_multiple",
                                (double)ws->space.large.size * ws->space.roles / (double)ws->llc);
        /* what the large_window warning reads (measure/workset.h, MFB_LARGE_LLC_MULTIPLE) */
        cJSON_AddNumberToObject(large, "llc_multiple_per_buffer", (double)ws->space.large.size / (double)ws->llc);
    }
    cJSON_AddItemToObject(w, "large_window", large);
    cJSON_AddNumberToObject(w, "arena_bytes", (double)ws->arena_size);
    cJSON_AddNumberToObject(w, "prefault_ms", ws->prefault_ms);
    cJSON_AddStringToObject(w, "fill", ws->fill);
    return w;
}

/* The batch shape (calibration) and how batches are ordered and replayed. */
static cJSON *calibration_json(const struct mfb_run *r)
{
    const struct mfb_calibration *c = &r->procedure.cal;
    cJSON *b = cJSON_CreateObject();
    cJSON_AddNumberToObject(b, "calls_per_pass", mfb_calls_per_pass(c));
    cJSON_AddNumberToObject(b, "passes", c->passes);
    cJSON_AddNumberToObject(b, "calls", (double)mfb_calls_per_pass(c) * c->passes);
    cJSON_AddNumberToObject(b, "target_ns", c->target_batch_ns);
    cJSON_AddNumberToObject(b, "max_ns", c->max_batch_ns);
    cJSON_AddNumberToObject(b, "predicted_fastest_ns", c->fastest_batch_ns);
    cJSON_AddNumberToObject(b, "predicted_slowest_ns", c->slowest_batch_ns);
    cJSON_AddStringToObject(b, "rule", mfb_batch_rule_text(c->rule));
    cJSON_AddBoolToObject(b, "single_call", c->single_call);
    cJSON_AddStringToObject(b, "pass_order", r->modes.trace ? "every timed pass visits the trace's window in the "
                            "program's order; the priming pass in a random order of its own"
                            : "every pass visits the call array in its own random order (odd stride and offset "
                              "modulo the power-of-two array length)");
    cJSON_AddNumberToObject(b, "linearity_tolerance", c->linearity_tolerance);
    cJSON_AddStringToObject(b, "order", "random permutation on even rounds, reversed on odd rounds");
    cJSON_AddStringToObject(b, "calls_overlap", r->config.study->latency
                            ? "latency: each call's addresses depend on the previous call's result, so calls "
                              "cannot overlap"
                            : "throughput: consecutive calls are independent and may overlap in the core");
    return b;
}

static cJSON *harness_json(const struct mfb_harness *h)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "overhead_ns_per_call", h->overhead_ns_per_call);
    cJSON_AddStringToObject(o, "method", "median of 9 batches of the function's noop, with the run's batch "
                            "size, through the timed loop");
    return o;
}

/* What the correctness check covered before anything was timed (workload/shapes.h). */
static cJSON *verification_json(const struct mfb_run *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "shapes", (double)r->procedure.verified_shapes);
    cJSON_AddNumberToObject(o, "sizes", (double)r->procedure.verified_sizes);
    cJSON_AddNumberToObject(o, "sizes_listed", (double)r->procedure.support_sizes);
    cJSON_AddNumberToObject(o, "sizes_in_support", (double)r->procedure.sizes_in_support);
    cJSON_AddBoolToObject(o, "complete",
                          r->procedure.verified_shapes > 0 && r->procedure.verified_sizes == r->procedure.sizes_in_support);
    cJSON_AddStringToObject(o, "scope", r->procedure.verified_shapes
        ? "the first parameter array, then every call shape: each size of the distribution's support (a range wider "
          "than 4096 sizes: every size up to 4096, then its ends, powers of two and neighbours, about 4096 sizes "
          "evenly spread and 8 drawn) and each combination of alignment, overlap and mismatch rows; sizes above "
          "4096 thinned evenly when the listed sizes add up to more than 256 MiB"
        : "the first parameter array (the study's first process checked every call shape)");
    return o;
}

/* What a variant's code is, so that results of different code under one name are never pooled
 * (impl/identity.h). memfbench's own variants are known by this build. */
static cJSON *identity_json(const struct mfb_run_variant *rv)
{
    static const char build[] = MFB_COMPILER " " __VERSION__ "; c_args " MFB_C_ARGS "; variant_c_args "
                                MFB_VARIANT_C_ARGS "; revision " MFB_SOURCE_REVISION;
    struct mfb_code_identity id;
    mfb_code_identity(rv->v, &rv->code, build, rv->source ? rv->source->key : NULL, &id);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "id", id.id);
    cJSON_AddStringToObject(o, "basis", mfb_identity_basis_name(id.basis));
    add_or_null(o, "file_sha256", id.file_sha256[0] ? id.file_sha256 : NULL);
    if (id.basis == MFB_IDENTITY_LIBRARY_FILE) {
        char off[32];
        snprintf(off, sizeof off, "0x%llx", (unsigned long long)id.offset);
        cJSON_AddStringToObject(o, "offset", off);
    } else {
        cJSON_AddNullToObject(o, "offset");
    }
    add_or_null(o, "build", id.basis == MFB_IDENTITY_BUILD ? build : NULL);
    return o;
}

/* What NAME-pgo's profile came from (orchestrate/pgo.h). */
static cJSON *pgo_json(const struct mfb_pgo *p)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "of", p->of);
    cJSON_AddStringToObject(o, "compiler_family", mfb_pgo_family_name(p->family));
    cJSON_AddStringToObject(o, "instrument_flags", p->instrument_flags);
    cJSON_AddStringToObject(o, "use_flags", p->use_flags);
    cJSON *t = cJSON_AddObjectToObject(o, "train");
    cJSON_AddStringToObject(t, "distribution", p->train_spec);
    cJSON_AddBoolToObject(t, "own", p->train_own);
    cJSON_AddStringToObject(t, "table", p->train_table);
    char seed[24];
    snprintf(seed, sizeof seed, "0x%016llx", (unsigned long long)p->train_seed);
    cJSON_AddStringToObject(t, "seed", seed);
    cJSON_AddStringToObject(t, "seed_source", p->seed_given ? "--pgo-seed" : "default (fixed)");
    cJSON_AddNumberToObject(t, "calls", p->train_calls);
    cJSON_AddNumberToObject(t, "verified_calls", (double)p->verified_calls);
    cJSON_AddNumberToObject(t, "seconds", p->train_s);
    cJSON_AddStringToObject(t, "method", "memfbench counts --replay of the instrumented build: the calls drawn from "
                            "the training distribution with the training seed (never a timed process's seed), the "
                            "variant verified on them, then replayed twice; the profile written as the process ends");
    cJSON_AddStringToObject(o, "profile_sha256", p->profile_sha);
    cJSON_AddStringToObject(o, "profile_file", p->profile_file);
    cJSON_AddStringToObject(o, "instrumented_key", p->instrumented_key);
    add_or_null(o, "merge_tool", p->merge_tool);
    cJSON_AddBoolToObject(o, "cached", p->cached);
    return o;
}

/* How a source variant was built and where its placements' copies sit (impl/source.h). */
static cJSON *source_build_json(const struct mfb_source *s)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "file", s->path);
    cJSON_AddStringToObject(o, "kind", mfb_source_kind_name(s->kind));
    cJSON_AddStringToObject(o, "symbol", s->symbol);
    cJSON_AddStringToObject(o, "compiler", s->compiler);
    cJSON_AddStringToObject(o, "compiler_path", s->compiler_path);
    cJSON_AddStringToObject(o, "compiler_version", s->compiler_version);
    cJSON_AddStringToObject(o, "flags", s->flags);
    cJSON_AddStringToObject(o, "flags_source", mfb_flags_source_name(s->flags_source));
    cJSON_AddStringToObject(o, "key", s->key);
    cJSON_AddStringToObject(o, "cache_entry", s->dir);
    cJSON_AddBoolToObject(o, "cached", s->cached);
    cJSON_AddNumberToObject(o, "seconds", s->build_s);
    cJSON_AddNumberToObject(o, "code_bytes", (double)s->sym.size);
    cJSON_AddNumberToObject(o, "relocated_fields", (double)s->sym.nfields);
    cJSON_AddBoolToObject(o, "line_offsets_all", s->line_offsets_all);
    cJSON *p = cJSON_AddArrayToObject(o, "page_offsets");
    for (unsigned k = 0; k < MFB_CODE_PLACEMENTS; k++)
        cJSON_AddItemToArray(p, cJSON_CreateNumber((double)(s->address[k] & 4095u)));
    if (s->pgo)
        cJSON_AddItemToObject(o, "pgo", pgo_json(s->pgo));
    cJSON_AddStringToObject(o, "method", "compiled once into one relocatable object (FILE.o as given, FILE.a's members "
                            "that define the symbol), linked once per code placement into a shared object whose text "
                            "opens that placement's pad into a page; the copies are the same bytes but for the "
                            "relocated fields, which hold where each copy sits");
    return o;
}

/* identify: whether to say what the code is (identity_json). A study's file keeps its first
 * process's variants block (processes/merge.c), so a later process skips it: the identity of a
 * library hashes its whole file (about 8 ms for glibc's on the Zen 5 VM), work that file would
 * throw away. */
static cJSON *variant_json(const struct mfb_run_variant *rv, int index, const struct mfb_layout *l, bool identify)
{
    cJSON *v = cJSON_CreateObject();
    cJSON_AddNumberToObject(v, "index", index);
    cJSON_AddStringToObject(v, "name", rv->v->name);
    cJSON_AddStringToObject(v, "origin", mfb_origin_name(rv->v->origin));
    cJSON_AddStringToObject(v, "description", rv->v->description);
    cJSON_AddBoolToObject(v, "noop", rv->v->noop);
    char addr[32];
    snprintf(addr, sizeof addr, "0x%llx", (unsigned long long)rv->code.address);
    cJSON_AddStringToObject(v, "address", addr);
    add_or_null(v, "symbol", rv->code.symbol);
    add_or_null(v, "object", rv->code.object);
    add_number_or_null(v, "code_size", rv->code.size != 0, (double)rv->code.size);
    add_number_or_null(v, "code_placement", rv->code_placement >= 0, rv->code_placement);
    /* placed: the code runs from every placement over the study (built-ins, source variants);
     * fixed: one layout, where its loader put it (libc, a prebuilt plugin) */
    cJSON_AddStringToObject(v, "code_layout", rv->code_placement >= 0 ? "placed" : "fixed");
    if (rv->source)
        cJSON_AddItemToObject(v, "build", source_build_json(rv->source));
    if (rv->layout_sentinel)
        cJSON_AddBoolToObject(v, "layout_sentinel", true);
    if (identify)
        cJSON_AddItemToObject(v, "code_identity", identity_json(rv));
    if (rv->code_placement >= 0 && l->rotation == MFB_ROTATE_ROUND) {
        /* round r runs this variant from code_placements[r % the layout's code_placements] */
        cJSON *p = cJSON_AddArrayToObject(v, "code_placements");
        for (uint32_t r = 0; r < MFB_CODE_PLACEMENTS; r++)
            cJSON_AddItemToArray(p, cJSON_CreateNumber(mfb_layout_placement_at(l, index, rv->extra, r)));
    }
    cJSON_AddNumberToObject(v, "verified_calls", (double)rv->verified_calls);
    cJSON_AddNumberToObject(v, "pilot_ns_per_call", rv->pilot_ns_per_call);
    cJSON_AddNumberToObject(v, "linearity", rv->linearity);
    if (rv->v->copy_of) {
        cJSON *cp = cJSON_AddObjectToObject(v, "copy_of");
        cJSON_AddStringToObject(cp, "variant", rv->v->copy_of);
        cJSON_AddNumberToObject(cp, "bytes_compared", (double)rv->copy_bytes_compared);
        cJSON_AddBoolToObject(cp, "identical", rv->copy_identical);
    }
    return v;
}

static cJSON *warmup_json(const struct mfb_warmup *w)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "mode", mfb_warmup_mode_name(w->mode));
    cJSON_AddNumberToObject(o, "seconds", w->seconds);
    if (w->mode == MFB_WARMUP_DETECTED) {
        cJSON_AddBoolToObject(o, "settled", w->settled);
        cJSON_AddNumberToObject(o, "last_change", w->change);
        cJSON_AddStringToObject(o, "criterion", "warm-up rounds replay the first calls; settled when the median "
                                "round time of the last 5 rounds is within 1 % of the 5 before; cap min(max(0.5 s, "
                                "time/10), time/2) of the process's time, or 2000 rounds");
    }
    return o;
}

static cJSON *window_check_json(const struct mfb_window_check *c)
{
    if (!c->used)
        return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "expect", mfb_reside_name(c->expect));
    cJSON_AddStringToObject(o, "verdict", mfb_check_verdict_name(c->verdict));
    if (c->verdict == MFB_CHECK_NOT_MEASURED) {
        cJSON_AddStringToObject(o, "why", c->why ? c->why : "");
        return o;
    }
    if (c->why)
        cJSON_AddStringToObject(o, "why", c->why);
    cJSON_AddNumberToObject(o, "lines", c->lines);
    cJSON_AddNumberToObject(o, "ns_per_load", c->ns_per_load);
    cJSON_AddNumberToObject(o, "reference_ns", c->reference_ns);
    cJSON_AddStringToObject(o, "reference", c->expect == MFB_RESIDE_L1 ? "the same walk over 32 lines held in L1d"
                                                                       : "the same lines after a flush from every cache");
    cJSON_AddNumberToObject(o, "ratio", c->ratio);
    cJSON_AddNumberToObject(o, "limit", c->limit);
    if (isfinite(c->after_rounds_ns))
        cJSON_AddNumberToObject(o, "after_rounds_ns", c->after_rounds_ns);
    /* evicted window: ns_per_load is after the run's eviction step; cached_ns shows the flush matters */
    if (isfinite(c->cached_ns)) {
        cJSON_AddNumberToObject(o, "cached_ns", c->cached_ns);
        cJSON_AddNumberToObject(o, "flush_gain_min", MFB_CHECK_FLUSH_GAIN);
        cJSON_AddStringToObject(o, "lines_from", c->from_window ? "window" : "calls");
    }
    return o;
}

/* Whether the windows were where the plan put them, measured after the rounds (measure/residency.h). */
static cJSON *placement_check_json(const struct mfb_residency *r)
{
    if (!r->done)
        return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject();
    cJSON_AddBoolToObject(o, "passed", r->passed);
    cJSON_AddItemToObject(o, "small_window", window_check_json(&r->small));
    cJSON_AddItemToObject(o, "large_window", window_check_json(&r->large));
    cJSON_AddStringToObject(o, "method", "after the rounds, outside every timed batch: a dependent walk over every "
                            "line of the parameter array and small windows against the same walk over 32 lines in "
                            "L1d (pass: ratio <= limit); evicted large window: over lines sampled from the spans "
                            "of drawn passes' large calls, loaded, then after the run's eviction step for those "
                            "passes, against the same lines after the check's own flush (pass: ratio >= limit, "
                            "and the flushed walk at least flush_gain_min x the cached one); sized or cached "
                            "large window: over lines sampled in the window, one per page with its page touched "
                            "first, against the same lines flushed from every cache (pass: ratio >= limit beyond "
                            "the LLC, <= limit for a cached placement)");
    return o;
}

static cJSON *rounds_json(const struct mfb_results *res, const struct mfb_warmup *w)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "count", res->rounds);
    cJSON_AddNumberToObject(o, "warmup", w->rounds);
    cJSON_AddNumberToObject(o, "measured", res->rounds - w->rounds);
    cJSON_AddItemToObject(o, "warmup_detail", warmup_json(w));
    cJSON_AddNumberToObject(o, "duration_s", res->rounds_s);
    cJSON_AddNumberToObject(o, "prepare_s", res->prepare_s);
    return o;
}

/* The file's names of the stages of enum mfb_stage, in its order. */
static const char *const stage_names[MFB_STAGE_COUNT] = {
    [MFB_STAGE_WORKLOAD] = "workload_s",   [MFB_STAGE_SELFCHECK] = "selfcheck_s",
    [MFB_STAGE_VERIFY] = "verification_s", [MFB_STAGE_CALIBRATE] = "calibration_s",
    [MFB_STAGE_CLASSES] = "classes_s",     [MFB_STAGE_OVERHEAD] = "after_rounds_s",
};

/* This process's fixed cost by stage (seconds): what it spent besides the rounds. */
static cJSON *setup_json(const struct mfb_results *res, const struct mfb_workset *ws)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "before_rounds_s", res->before_rounds_s);
    cJSON_AddNumberToObject(o, "arena_map_s", ws->map_ms / 1e3);
    cJSON_AddNumberToObject(o, "arena_fill_s", ws->fill_ms / 1e3);
    for (int k = 0; k < MFB_STAGE_COUNT; k++)
        cJSON_AddNumberToObject(o, stage_names[k], res->stage_s[k]);
    /* part of the rounds' time, not of the fixed cost: what the evicted window costs per process */
    cJSON_AddNumberToObject(o, "rounds_evict_s", res->evict_s);
    cJSON_AddNumberToObject(o, "evicted_lines", (double)res->evicted_lines);
    cJSON_AddStringToObject(o, "clock", "CLOCK_MONOTONIC_RAW; before_rounds_s covers the stages before the rounds and "
                                        "the rest of the set-up (CPU plan, host description, clock calibration)");
    return o;
}

cJSON *mfb_document(const struct mfb_run *r, const struct mfb_host *host)
{
    cJSON *d = cJSON_CreateObject();
    cJSON_AddStringToObject(d, "schema", "memfbench-run");
    cJSON_AddNumberToObject(d, "schema_version", MFB_SCHEMA_VERSION);
    cJSON_AddStringToObject(d, "mode", "replay");
    cJSON_AddItemToObject(d, "tool", mfb_tool_json());
    char ts[64];
    time_t now = time(NULL);
    strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    cJSON_AddStringToObject(d, "created_utc", ts);
    cJSON_AddItemToObject(d, "command_line", mfb_command_line_json(r->config.study));
    cJSON_AddItemToObject(d, "status", status_json(r));
    cJSON_AddItemToObject(d, "config", config_json(r));
    cJSON_AddItemToObject(d, "seeds", seeds_json(r));
    cJSON_AddItemToObject(d, "host", mfb_host_json(host));
    cJSON_AddItemToObject(d, "layout", layout_json(&r->config.layout));
    cJSON_AddItemToObject(d, "timer", mfb_timer_json(r->runtime.timer));
    cJSON_AddItemToObject(d, "distribution", distribution_json(r->config.dist, &r->procedure.selfcheck,
                                                               r->config.study->process_index <= 0));
    cJSON_AddItemToObject(d, "workset", workset_json(r->runtime.ws));
    cJSON_AddItemToObject(d, "batch", calibration_json(r));
    cJSON_AddItemToObject(d, "by_class", by_class_json(&r->modes.by_class));
    cJSON_AddItemToObject(d, "sweep", sweep_json(r->modes.sweep));
    cJSON_AddItemToObject(d, "harness", harness_json(&r->runtime.harness));
    cJSON_AddItemToObject(d, "verification", verification_json(r));
    cJSON *vars = cJSON_AddArrayToObject(d, "variants");
    for (int i = 0; i < r->config.nvars; i++)
        cJSON_AddItemToArray(vars, variant_json(&r->config.vars[i], i, &r->config.layout,
                                                r->config.study->process_index <= 0));
    cJSON_AddItemToObject(d, "rounds", rounds_json(&r->res, &r->procedure.warmup));
    cJSON_AddItemToObject(d, "placement_check", placement_check_json(&r->res.placement_check));
    cJSON_AddItemToObject(d, "setup", setup_json(&r->res, r->runtime.ws));
    /* A new mode adds its own block here, named in the schema (docs/architecture.md). */
    return d;
}
