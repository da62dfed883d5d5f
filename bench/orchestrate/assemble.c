#include "orchestrate/assemble.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/elfobj.h"
#include "base/filetext.h"
#include "base/msgpath.h"
#include "files/inputs.h"
#include "base/parse.h"
#include "base/seeds.h"
#include "base/strbuf.h"
#include "base/warn.h"
#include "impl/code_placements.h"
#include "impl/plugin.h"
#include "impl/source.h"
#include "machine/layout.h"
#include "source/pgo.h"
#include "source/varbuild.h"
#include "study/options.h"
#include "probe/cachefrom.h"

static int add_variant(struct mfb_run *r, const struct mfb_variant *v, struct mfb_err *err)
{
    struct mfb_run_variant *rv = &r->config.vars[r->config.nvars];
    const char *why = "";
    if (mfb_variant_instantiate(v, &rv->own, &why) < 0)
        return mfb_fail(err, "--variant: '%s' cannot run here: needs %s", v->name, why);
    rv->v = &rv->own;
    unsigned k = mfb_layout_placement_at(&r->config.layout, r->config.nvars, 0, 0);
    rv->code_placement = mfb_variant_place(&rv->own, k) ? (int)k : -1;
    /* every placement's code, for rotation per round (measure/rounds.c) */
    for (unsigned p = 0; rv->code_placement >= 0 && p < MFB_CODE_PLACEMENTS; p++) {
        struct mfb_variant at = rv->own;
        mfb_variant_place(&at, p);
        rv->at[p] = at.fn;
    }
    if (rv->code_placement >= 0)
        rv->own.fn = rv->at[k];
    r->config.nvars++;
    return 0;
}

static struct mfb_run_variant *find_in_run(struct mfb_run *r, const char *name)
{
    for (int i = 0; i < r->config.nvars; i++)
        if (!strcmp(r->config.vars[i].v->name, name))
            return &r->config.vars[i];
    return NULL;
}

/* Whether name is new among the run's first n variants. */
static int unique_name(const struct mfb_run *r, const char *name, int n, struct mfb_err *err)
{
    for (int k = 0; k < n; k++)
        if (!strcmp(r->config.vars[k].v->name, name))
            return mfb_fail(err, "--variant: '%s' is named twice (a plugin can be renamed with =NAME)", name);
    return 0;
}

/* A built source variant in slot (its libraries' constructors run inside dlopen: the guard names
 * the variant if they crash), then placed as a built-in is, from the process's layout. */
static int place_source(struct mfb_run *r, int slot, const char *spec, const char *what, struct mfb_err *err)
{
    struct mfb_run_variant *rv = &r->config.vars[slot];
    struct mfb_source *src = rv->source;
    r->runtime.activity->variant = spec;
    r->runtime.activity->origin = NULL;
    sig_atomic_t around = r->runtime.activity->phase;
    r->runtime.activity->phase = MFB_PHASE_LOADING;
    int rc = mfb_source_load(src, rv->at, err);
    r->runtime.activity->phase = around;
    if (rc < 0 || unique_name(r, src->name, slot, err) < 0)
        return -1;
    char desc[1536];
    snprintf(desc, sizeof desc, "source %s:%s%s, built by %s %s", src->path, src->symbol, what, src->compiler,
             src->flags);
    if (!(src->description = strdup(desc)))
        return mfb_fail(err, "--variant %s: out of memory", spec);
    rv->own = (struct mfb_variant){.name = src->name, .func = r->config.study->func, .origin = MFB_ORIGIN_SOURCE,
                                   .description = src->description};
    rv->v = &rv->own;
    unsigned k = mfb_layout_placement_at(&r->config.layout, slot, 0, 0);
    rv->code_placement = (int)k;
    rv->own.fn = rv->at[k];
    char shown[MFB_MSG_PATH_MAX];
    if (!src->line_offsets_all)
        mfb_warn(r->runtime.warn, MFB_W_SOURCE_ALIGNMENT,
                 "%s (%s:%s) runs at one offset into a 64-byte line in all %d code "
                 "placements", src->name, mfb_msg_path(src->path, shown, sizeof shown), src->symbol, MFB_CODE_PLACEMENTS);
    return 0;
}

/* The next slot of the run for a source variant, owned from here on (freed with the run whatever
 * fails next); -1 when the run has no room left. */
static int source_slot(struct mfb_run *r, struct mfb_source *src, struct mfb_err *err)
{
    if (r->config.nvars == MFB_MAX_VARIANTS) {
        mfb_source_free(src);
        return mfb_fail(err, "--variant: at most %d variants in a run (--pgo adds one per source)", MFB_MAX_VARIANTS);
    }
    struct mfb_run_variant *rv = &r->config.vars[r->config.nvars];
    rv->source = src;
    rv->owns_source = true;
    return r->config.nvars++;
}

/* --param's setting k of src: its name NAME[A=1,B=2] and its -D flags (study/params.h). */
static int set_param(struct mfb_source *src, const struct mfb_params *ps, size_t k, struct mfb_err *err)
{
    char suffix[MFB_PARAM_TEXT_CAP], flags[MFB_PARAM_TEXT_CAP];
    mfb_params_setting(ps, k, suffix, flags);
    size_t len = strlen(src->name) + strlen(suffix) + 1;
    char *name = malloc(len);
    if (!name || !(src->param_flags = strdup(flags))) {
        free(name);
        return mfb_fail(err, "--variant %s: out of memory", src->spec);
    }
    snprintf(name, len, "%s%s", src->name, suffix);
    free(src->name);
    src->name = name;
    src->extra_flags = src->param_flags;
    return 0;
}

/* A source variant (impl/source.h): built at every code placement (source/varbuild.c, or
 * found in the cache), loaded and placed; with --param, once per setting, each its own variant. */
static int add_source_setting(struct mfb_run *r, const struct mfb_study *c, const char *spec, size_t k,
                              struct mfb_err *err)
{
    struct mfb_source *src = mfb_source_new(spec, err);
    int slot = src ? source_slot(r, src, err) : -1;
    if (slot < 0 || (c->params.n && set_param(src, &c->params, k, err) < 0))
        return -1;
    r->runtime.activity->variant = spec;
    sig_atomic_t around = r->runtime.activity->phase; /* the compiler runs: its runner answers a stop */
    r->runtime.activity->phase = MFB_PHASE_BUILDING;
    int built = mfb_varbuild(src, c->variant_cflags, &c->deadlines, err);
    r->runtime.activity->phase = around;
    if (built < 0)
        return -1;
    return place_source(r, slot, spec, "", err);
}

static int add_source(struct mfb_run *r, const struct mfb_study *c, const char *spec, struct mfb_err *err)
{
    size_t settings = mfb_params_count(&c->params);
    for (size_t k = 0; k < settings; k++)
        if (add_source_setting(r, c, spec, k, err) < 0)
            return -1;
    return 0;
}

/* What --pgo asks of the training of a source variant of c; cache holds --cache's sizes (96 bytes). */
static struct mfb_pgo_request pgo_request(const struct mfb_study *c, char *cache, size_t cap)
{
    struct mfb_pgo_request req = {.func = c->func, .dist_dir = c->dist_dir, .train = c->pgo_train,
                                  .study_dist = c->distribution ? c->distribution : mfb_func_default_distribution(c->func),
                                  .seed = mfb_study_pgo_seed(c), .calls = MFB_PGO_TRAIN_CALLS,
                                  .flags_option = c->variant_cflags, .deadlines = &c->deadlines};
    req.seed_given = c->pgo_seed_given;
    if (c->l1d) { /* --cache: the training's buffers planned as the study's */
        snprintf(cache, cap, "%zu:%zu:%zu", c->l1d, c->l2, c->llc);
        req.cache = cache;
    }
    return req;
}

/* --pgo's request for the source variant s checked before anything is built: s is a FILE.c, the
 * training distribution resolves, and the training never draws a timed process's calls (its seed
 * is none of theirs: the parent knows every process's; a process, its own). */
static int check_pgo(const struct mfb_study *c, const struct mfb_source *s, struct mfb_err *err)
{
    char cache[96];
    struct mfb_pgo_request req = pgo_request(c, cache, sizeof cache);
    bool clash = req.seed == c->seed;
    for (long i = 0; c->process_index < 0 && i < c->processes; i++)
        clash = clash || req.seed == mfb_process_seed(c->seed, (int)i);
    if (clash)
        return mfb_fail(err, "--pgo-seed 0x%llx: the seed of a timed process of this study (--seed %llu): the "
                        "training would replay the timed calls; give another", (unsigned long long)req.seed,
                        (unsigned long long)c->seed);
    return mfb_pgo_check(&req, s, err);
}

/* --pgo: NAME-pgo beside the source variant NAME, built with the profile of a training replay
 * (source/pgo.c); every process of the study finds the profile and the build in the cache. */
static int add_pgo(struct mfb_run *r, const struct mfb_study *c, const char *spec, struct mfb_err *err)
{
    char cache[96];
    struct mfb_pgo_request req = pgo_request(c, cache, sizeof cache);
    struct mfb_source *src;
    r->runtime.activity->variant = spec;
    sig_atomic_t around = r->runtime.activity->phase; /* the compiler and the training run: their runner answers a stop */
    r->runtime.activity->phase = MFB_PHASE_BUILDING;
    int built = mfb_pgo_build(spec, &req, &src, err);
    r->runtime.activity->phase = around;
    if (built < 0)
        return -1;
    int slot = source_slot(r, src, err);
    if (slot < 0)
        return -1;
    char what[PATH_MAX + 128];
    snprintf(what, sizeof what, " with its %s profile (trained on %s, seed 0x%llx)", mfb_pgo_family_name(src->pgo->family),
             src->pgo->train_spec, (unsigned long long)src->pgo->train_seed);
    return place_source(r, slot, spec, what, err);
}

/* NAME-copy of a source variant NAME given before it: the same libraries, so the same code, run
 * from another placement than NAME's in every process (settle_copies). */
static void add_source_copy(struct mfb_run *r, const struct mfb_run_variant *orig, const char *name)
{
    struct mfb_run_variant *rv = &r->config.vars[r->config.nvars];
    int slot = r->config.nvars++;
    *rv = (struct mfb_run_variant){0};
    rv->source = orig->source;
    memcpy(rv->at, orig->at, sizeof rv->at);
    rv->own = orig->own;
    rv->own.name = name;
    rv->own.origin = MFB_ORIGIN_COPY;
    rv->own.copy_of = orig->own.name;
    rv->own.description = "A/A: the same code as its original, from its own build, at another code placement";
    rv->v = &rv->own;
    rv->code_placement = (int)mfb_layout_placement_at(&r->config.layout, slot, 0, 0);
    rv->own.fn = rv->at[rv->code_placement];
}

/* A/A copies: a built-in's copy never shares its original's code placement in the same process
 * (drawn equal, it moves one step further along the permutation, which keeps the study's
 * placements balanced), so the pair always compares the same code at two places; then the copy's
 * code is compared byte for byte with the original's as timed, or, when the original is not in
 * the run, as it would be at another placement. */
static void settle_copies(struct mfb_run *r)
{
    for (int i = 0; i < r->config.nvars; i++) {
        struct mfb_run_variant *rv = &r->config.vars[i];
        if (!rv->v->copy_of)
            continue;
        const struct mfb_variant *o = mfb_variant_find(rv->v->func, rv->v->copy_of);
        struct mfb_run_variant *orv = find_in_run(r, rv->v->copy_of);
        if (orv && rv->code_placement >= 0 && r->config.layout.rotation == MFB_ROTATE_ROUND) {
            r->config.layout.partner[i] = (int8_t)(orv - r->config.vars);
            rv->code_placement = (int)mfb_layout_placement_at(&r->config.layout, i, 0, 0);
            rv->own.fn = rv->at[rv->code_placement];
        } else if (orv && rv->code_placement >= 0 && rv->code_placement == orv->code_placement) {
            rv->extra = 1;
            rv->code_placement = (int)mfb_layout_placement(&r->config.layout, i, 1);
            rv->own.fn = rv->at[rv->code_placement];
        }
        if (rv->source) {
            /* the copies of one build differ where the linker wrote where each sits, nowhere else */
            int other = orv ? orv->code_placement : (rv->code_placement + 1) % MFB_CODE_PLACEMENTS;
            rv->copy_identical = mfb_source_same_code(rv->source, rv->source->address[rv->code_placement],
                                                      rv->source->address[other]);
            rv->copy_bytes_compared = rv->source->sym.size;
            continue;
        }
        struct mfb_variant orig;
        const char *w;
        if (orv)
            orig = *orv->v;
        else if (!o || mfb_variant_instantiate(o, &orig, &w) < 0)
            continue;
        else if (rv->code_placement >= 0)
            mfb_variant_place(&orig, (unsigned)(rv->code_placement + 1) % MFB_CODE_PLACEMENTS);
        rv->copy_bytes_compared = mfb_variant_same_code(&rv->own, &orig, &rv->copy_identical);
    }
}

/* A prebuilt plugin has the one layout its linker gave it, and a verdict about it may be that
 * layout's, not its code's. Where nothing else of the study runs from several code placements, a
 * built-in of the function is added that does (the function's layout sentinel), so that the
 * analysis can say how far identical code moves with its placement on this machine, beside every
 * verdict about a plugin. It is named in the file (variants[].layout_sentinel) and left out of the
 * verdicts. */
static int add_sentinel(struct mfb_run *r, const struct mfb_study *c, struct mfb_err *err)
{
    bool plugin = false;
    for (int i = 0; i < r->config.nvars; i++) {
        if (r->config.vars[i].code_placement >= 0 && !r->config.vars[i].v->noop)
            return 0;
        plugin = plugin || r->config.vars[i].v->origin == MFB_ORIGIN_PLUGIN;
    }
    const struct mfb_variant *v = mfb_variant_find(c->func, mfb_func_traits(c->func)->layout_sentinel);
    if (!plugin || !v || !mfb_variant_available(v) || r->config.nvars == MFB_MAX_VARIANTS || find_in_run(r, v->name))
        return 0;
    if (add_variant(r, v, err) < 0)
        return -1;
    r->config.vars[r->config.nvars - 1].layout_sentinel = true;
    return 0;
}

/* Files read to list their functions for a message: a shared object or object is far smaller. */
#define LISTED_FILE_MAX ((size_t)256 << 20)

/* A -v that names no variant: a file given without its function (the form, and the functions the
 * file offers when it is an ELF file), else the function's variants, with the nearest to a typo. */
static int unknown_variant(const char *spec, enum mfb_func f, const struct mfb_variant *all, size_t n,
                           struct mfb_err *err)
{
    struct mfb_err why = {{0}};
    size_t len;
    unsigned char *data = NULL;
    if (strchr(spec, '/') || strstr(spec, ".so") || mfb_source_spec(spec, &(enum mfb_source_kind){0}))
        data = (unsigned char *)mfb_file_text(spec, LISTED_FILE_MAX, &len, &why);
    char shown[MFB_MSG_PATH_MAX];
    mfb_msg_path(spec, shown, sizeof shown);
    if (data) {
        char fns[400];
        int k = mfb_elf_functions(data, len, fns, sizeof fns);
        free(data);
        return mfb_fail(err, "--variant: '%s' is a file: name the function to time, as %s:SYMBOL[=NAME]%s%s%s", shown,
                        shown, k > 0 ? " (it offers: " : "", k > 0 ? fns : "", k > 0 ? ")" : "");
    }
    char names[512];
    const char *list[MFB_MAX_VARIANTS * 4];
    size_t m = 0;
    struct mfb_strbuf sb;
    mfb_strbuf_init(&sb, names, sizeof names);
    for (size_t k = 0; k < n; k++)
        if (all[k].func == f) {
            mfb_strbuf_add(&sb, " %s", all[k].name);
            if (m < sizeof list / sizeof list[0])
                list[m++] = all[k].name;
        }
    int near = mfb_nearest_name(spec, list, m, 2);
    char hint[96] = "";
    if (near >= 0)
        snprintf(hint, sizeof hint, ": did you mean '%s'?", list[near]);
    return mfb_fail(err, "--variant: '%s' is not a variant of %s%s (have:%s)", shown, mfb_func_name(f), hint, names);
}

/* A variant's name as the command line asks for it, before anything is built or loaded. */
struct asked {
    const char *name; /* a built-in's, a copy's, or a file's NAME (else SYMBOL) */
    bool source;      /* a source variant's, whose NAME-copy may follow */
    bool pgo;         /* NAME-pgo: --pgo's build of the source NAME */
};

/* The name PATH:SYMBOL[=NAME] gives its variant: NAME, else SYMBOL (the tail of spec). */
static const char *spec_name(const char *spec)
{
    const char *sym = strrchr(spec, ':') + 1, *eq = strchr(sym, '=');
    return eq ? eq + 1 : sym;
}

static bool same_name(const struct asked *a, const struct asked *b)
{
    if (a->pgo == b->pgo)
        return !strcmp(a->name, b->name);
    const struct asked *p = a->pgo ? a : b, *o = a->pgo ? b : a;
    size_t n = strlen(p->name);
    return !strncmp(o->name, p->name, n) && !strcmp(o->name + n, "-pgo");
}

/* Whether name is NAME-copy of a source NAME asked before it; with --param, NAME is one of its
 * settings' names, NAME[A=1,B=2] (a family's copy names the setting it copies). */
static bool source_copy(const struct mfb_params *ps, const struct asked *asked, int k, const char *name)
{
    size_t len = strlen(name);
    if (len <= 5 || strcmp(name + len - 5, "-copy"))
        return false;
    size_t settings = mfb_params_count(ps);
    for (int j = 0; j < k; j++) {
        size_t base = strlen(asked[j].name);
        if (!asked[j].source || asked[j].pgo || base > len - 5 || strncmp(asked[j].name, name, base))
            continue;
        for (size_t x = 0; x < settings; x++) {
            char suffix[MFB_PARAM_TEXT_CAP], flags[MFB_PARAM_TEXT_CAP];
            mfb_params_setting(ps, x, suffix, flags);
            if (base + strlen(suffix) == len - 5 && !strncmp(name + base, suffix, len - 5 - base))
                return true;
        }
    }
    return false;
}

/* One -v checked without building or loading it: a source variant's file, a plugin's library (read,
 * never loaded), a built-in (known and available here) or a source's copy; its names into asked. */
static int check_one(const struct mfb_study *c, const char *spec, struct asked *asked, int *k, struct mfb_err *err)
{
    enum mfb_source_kind kind;
    if (mfb_source_spec(spec, &kind)) {
        struct mfb_source *s = mfb_source_new(spec, err);
        int rc = s && c->pgo ? check_pgo(c, s, err) : s ? 0 : -1;
        mfb_source_free(s);
        if (rc < 0)
            return -1;
        asked[(*k)++] = (struct asked){.name = spec_name(spec), .source = true};
        if (c->pgo)
            asked[(*k)++] = (struct asked){.name = spec_name(spec), .source = true, .pgo = true};
        return 0;
    }
    if (mfb_plugin_spec(spec)) {
        if (mfb_plugin_check(spec, err) < 0)
            return -1;
        asked[(*k)++] = (struct asked){.name = spec_name(spec)};
        return 0;
    }
    const struct mfb_variant *v = mfb_variant_find(c->func, spec);
    static const struct mfb_params no_params; /* NAME-copy of a source's own name, no setting */
    if (!v && c->params.n && source_copy(&no_params, asked, *k, spec))
        return mfb_fail(err, "--variant %s: with --param, a copy names the setting it copies, as "
                        "'%.*s[%s=%s%s]-copy'", spec, (int)(strlen(spec) - 5), spec, c->params.p[0].name,
                        c->params.p[0].values[0], c->params.n > 1 ? ",..." : "");
    if (!v && !source_copy(&c->params, asked, *k, spec)) {
        const struct mfb_variant *all;
        size_t n = mfb_variants_all(&all);
        return unknown_variant(spec, c->func, all, n, err);
    }
    if (v && !mfb_variant_available(v))
        return mfb_fail(err, "--variant: '%s' cannot run here: needs %s", v->name, v->needs);
    asked[(*k)++] = (struct asked){.name = v ? v->name : spec};
    return 0;
}

/* Everything a bad -v names, checked before the first build or load (a build can take minutes, a
 * training more): each variant (check_one, --pgo's request with each source), the number of them,
 * every name new (a plugin's no built-in's). */
static int check_variants(const struct mfb_study *c, struct mfb_err *err)
{
    struct asked asked[2 * MFB_MAX_VARIANTS + 2];
    int k = 0;
    for (int i = 0; i < c->nvariants; i++) {
        int before = k;
        if (check_one(c, c->variants[i], asked, &k, err) < 0)
            return -1;
        if (k > MFB_MAX_VARIANTS)
            return mfb_fail(err, "--variant: at most %d variants in a run (--pgo adds one per source)", MFB_MAX_VARIANTS);
        for (int n = before; n < k; n++)
            for (int j = 0; j < n; j++)
                if (same_name(&asked[j], &asked[n]))
                    return mfb_fail(err, "--variant: '%s%s' is named twice (a plugin can be renamed with =NAME)",
                                    asked[n].name, asked[n].pgo ? "-pgo" : "");
        if (mfb_plugin_spec(c->variants[i]) && mfb_plugin_name_check(c->variants[i], c->func, err) < 0)
            return -1;
    }
    return 0;
}

/* --param: a source variant to build with it, and room in the run for every setting of each. */
static int check_params(const struct mfb_study *c, struct mfb_err *err)
{
    int sources = 0;
    for (int i = 0; i < c->nvariants; i++) {
        enum mfb_source_kind kind;
        sources += mfb_source_spec(c->variants[i], &kind);
    }
    if (!sources)
        return mfb_fail(err, "--param: no source variant to build with it (give -v FILE.c:SYMBOL[=NAME])");
    size_t settings = mfb_params_count(&c->params);
    size_t total = (size_t)(c->nvariants - sources) + (size_t)sources * settings;
    if (total > MFB_MAX_VARIANTS)
        return mfb_fail(err, "--param: %zu settings of %d source variant%s and %d other variant%s make %zu variants; at "
                        "most %d in a run", settings, sources, sources == 1 ? "" : "s", c->nvariants - sources,
                        c->nvariants - sources == 1 ? "" : "s", total, MFB_MAX_VARIANTS);
    return 0;
}

int mfb_assemble_variants(struct mfb_run *r, const struct mfb_study *c, struct mfb_err *err)
{
    const struct mfb_variant *all;
    size_t n = mfb_variants_all(&all);
    if (c->nvariants == 0 && c->pgo)
        return mfb_fail(err, "--pgo: no source variant to build with a profile (give -v FILE.c:SYMBOL[=NAME])");
    if (c->params.n && check_params(c, err) < 0)
        return -1;
    if (c->nvariants == 0) {
        for (size_t i = 0; i < n; i++)
            if (all[i].func == c->func && mfb_variant_default(&all[i]) && mfb_variant_available(&all[i]) &&
                add_variant(r, &all[i], err) < 0)
                return -1;
        return 0;
    }
    if (check_variants(c, err) < 0)
        return -1;
    int sources = 0;
    for (int i = 0; i < c->nvariants; i++) {
        enum mfb_source_kind kind;
        if (mfb_source_spec(c->variants[i], &kind)) {
            if (add_source(r, c, c->variants[i], err) < 0 || (c->pgo && add_pgo(r, c, c->variants[i], err) < 0))
                return -1;
            sources++;
            continue;
        }
        if (mfb_plugin_spec(c->variants[i])) {
            struct mfb_run_variant *rv = &r->config.vars[r->config.nvars];
            /* A plugin's constructors run inside dlopen: the guard names it if they crash. */
            r->runtime.activity->variant = c->variants[i];
            r->runtime.activity->origin = NULL;
            sig_atomic_t around = r->runtime.activity->phase; /* the set-up's phase, restored after */
            r->runtime.activity->phase = MFB_PHASE_LOADING;
            int rc = mfb_plugin_load(c->variants[i], c->func, &rv->own, &rv->plugin, err);
            r->runtime.activity->phase = around;
            if (rc < 0)
                return -1;
            r->config.nvars++; /* owned from here on: freed with the run even if its name clashes */
            if (unique_name(r, rv->own.name, r->config.nvars - 1, err) < 0)
                return -1;
            rv->v = &rv->own;
            rv->code_placement = -1;
            continue;
        }
        const struct mfb_variant *v = mfb_variant_find(c->func, c->variants[i]);
        size_t len = strlen(c->variants[i]);
        if (!v && len > 5 && !strcmp(c->variants[i] + len - 5, "-copy")) {
            /* a source variant's copy: NAME-copy of a NAME built earlier on the command line */
            const struct mfb_run_variant *orig = NULL;
            for (int k = 0; k < r->config.nvars; k++)
                if (r->config.vars[k].owns_source && strlen(r->config.vars[k].v->name) == len - 5 &&
                    !strncmp(r->config.vars[k].v->name, c->variants[i], len - 5))
                    orig = &r->config.vars[k];
            if (orig) {
                if (unique_name(r, c->variants[i], r->config.nvars, err) < 0)
                    return -1;
                add_source_copy(r, orig, c->variants[i]);
                continue;
            }
        }
        if (!v)
            return unknown_variant(c->variants[i], c->func, all, n, err);
        if (unique_name(r, v->name, r->config.nvars, err) < 0 || add_variant(r, v, err) < 0)
            return -1;
    }
    if (c->pgo && sources == 0)
        return mfb_fail(err, "--pgo: no source variant to build with a profile (give -v FILE.c:SYMBOL[=NAME])");
    settle_copies(r);
    return add_sentinel(r, c, err);
}

void mfb_assemble_caches(struct mfb_caches *caches, const struct mfb_study *c, const struct mfb_caches *probed,
                         struct mfb_warnings *warn)
{
    mfb_cache_detect(caches, c->cpu);
    if (c->cache_from) {
        *caches = *probed;
    } else if (c->l1d) {
        caches->l1d = c->l1d;
        caches->l2 = c->l2;
        caches->llc = c->llc;
        caches->source = MFB_CACHE_USER;
    } else if (caches->assumed) {
        /* One line: what was assumed; its fix names the probe, the way to measure them. A run does
         * not probe by itself, since a full probe takes minutes (docs/probe.md). */
        unsigned a = caches->assumed;
        mfb_warn(warn, MFB_W_CACHES, "%s reports no %s%s%s%s%s size; assuming L1d %zu, L2 %zu, LLC %zu",
                 caches->source == MFB_CACHE_DEFAULT ? "neither sysfs nor sysconf" : mfb_cache_source_name(caches->source),
                 a & MFB_CACHE_ASSUMED_L1D ? "L1d" : "", (a & MFB_CACHE_ASSUMED_L1D) && (a & ~1u) ? "/" : "",
                 a & MFB_CACHE_ASSUMED_L2 ? "L2" : "", (a & MFB_CACHE_ASSUMED_L2) && (a & MFB_CACHE_ASSUMED_LLC) ? "/" : "",
                 a & MFB_CACHE_ASSUMED_LLC ? "LLC" : "", caches->l1d, caches->l2, caches->llc);
    }
}

int mfb_assemble_instruments(struct mfb_run *r, struct mfb_timer *timer, const struct mfb_study *c, struct mfb_err *err)
{
    if (mfb_timer_init(timer, c->clock, c->timer_hz, err) < 0)
        return -1;
    /* the pressure block is sized in ns: on a settled rate (what it waits for is at most 4 ms) */
    if (c->icache_pressure)
        mfb_timer_settle(timer);
    if (c->icache_pressure && mfb_pressure_make(&r->runtime.pressure, c->icache_pressure, timer, err) < 0)
        return -1;
    /* on the pinned thread that times the batches: perf_event counts this thread */
    mfb_counters_open(&r->runtime.counters, c->counters);
    if (!r->runtime.counters.active && c->counters == MFB_COUNTERS_ON)
        mfb_warn(r->runtime.warn, MFB_W_COUNTERS, "--counters on: no hardware counters (%s); the run goes on without",
                 r->runtime.counters.why);
    else if (!r->runtime.counters.active && c->counters == MFB_COUNTERS_AUTO)
        mfb_warn(r->runtime.warn, MFB_W_COUNTERS_ABSENT, "--counters auto: no hardware counters (%s)",
                 r->runtime.counters.why);
    if (!timer->invariant)
        mfb_warn(r->runtime.warn, MFB_W_CLOCK, "the TSC is not invariant");
    return 0;
}

int mfb_assemble_workload(struct mfb_run *r, struct mfb_dist *dist, struct mfb_trace *trace, struct mfb_sweep **sweep,
                          const struct mfb_study *c, struct mfb_err *err)
{
    uint64_t t0 = mfb_mono_ns();
    if (c->trace) {
        if (mfb_trace_load(trace, c->trace, err) < 0 ||
            mfb_trace_dist(trace, c->trace, c->func, c->dist_dir, dist, err) < 0)
            return -1;
        r->modes.trace = trace;
    } else if (c->sweeping) {
        if (!(*sweep = malloc(sizeof **sweep))) {
            mfb_fail(err, "out of memory for the sweep");
            return -1;
        }
        **sweep = c->sweep; /* points and mode as parsed with the options */
        (*sweep)->align_src = c->align_src;
        (*sweep)->align_dst = c->align_dst;
        if (mfb_sweep_build(*sweep, c->func, c->dist_dir, dist, &r->modes.by_class.classes, err) < 0)
            return -1;
        r->modes.sweep = *sweep;
        r->modes.by_class.on = true;
    } else {
        const char *spec = c->distribution ? c->distribution : mfb_func_default_distribution(c->func);
        if (mfb_dist_resolve(dist, spec, c->func, c->dist_dir, err) < 0)
            return -1;
    }
    if (dist->overlap_ignored)
        mfb_warn(r->runtime.warn, MFB_W_OVERLAP, "%s asks for overlapping calls, which %s does not allow",
                 dist->name, mfb_func_name(c->func));
    r->res.stage_s[MFB_STAGE_WORKLOAD] = (double)(mfb_mono_ns() - t0) / 1e9;
    return 0;
}

void mfb_assemble_workset_warnings(const struct mfb_workset *ws, const struct mfb_caches *caches,
                                   struct mfb_warnings *warn)
{
    if (ws->small_max_source == MFB_SMALL_MAX_REDUCED && ws->space.threshold == 0)
        mfb_warn(warn, MFB_W_SMALL_MAX, "this CPU's L1d (%zu bytes) leaves no room for small calls (default bound %u "
                 "bytes): every call goes to the large window", caches->l1d, MFB_DEFAULT_SMALL_MAX);
    else if (ws->small_max_source == MFB_SMALL_MAX_REDUCED)
        mfb_warn(warn, MFB_W_SMALL_MAX, "this CPU's L1d (%zu bytes) leaves room for small calls up to %llu bytes only, "
                 "not the default %u", caches->l1d, (unsigned long long)ws->space.threshold, MFB_DEFAULT_SMALL_MAX);
    if (!mfb_workset_large_beyond_llc(ws))
        mfb_warn(warn, MFB_W_LARGE_WINDOW, "the large window (%llu MiB per buffer, capped by the arena) is only %.2fx "
                 "the LLC of %zu MiB, under %.0fx", (unsigned long long)(ws->space.large.size >> 20),
                 (double)ws->space.large.size / (double)caches->llc, caches->llc >> 20, MFB_LARGE_LLC_MULTIPLE);
}

/* What a run reads: every plugin and source, the distribution's tables (siblings included), the
 * trace, the probe file and --pgo-train's tables. The result file is checked against this list before anything is measured. */
static int run_inputs(const struct mfb_study *c, const struct mfb_dist *d, struct mfb_inputs *in, struct mfb_err *err)
{
    for (int i = 0; i < c->nvariants; i++) {
        enum mfb_source_kind kind;
        bool source = mfb_source_spec(c->variants[i], &kind);
        if (!source && !mfb_plugin_spec(c->variants[i]))
            continue;
        const char *colon = strrchr(c->variants[i], ':');
        if (mfb_inputs_add(in, source ? MFB_INPUT_SOURCE : MFB_INPUT_PLUGIN, c->variants[i],
                           (size_t)(colon - c->variants[i]), err) < 0)
            return -1;
    }
    if ((c->cache_from && mfb_inputs_add(in, MFB_INPUT_PROBE_FILE, c->cache_from, strlen(c->cache_from), err) < 0) ||
        (c->trace && mfb_inputs_add(in, MFB_INPUT_TRACE, c->trace, strlen(c->trace), err) < 0))
        return -1;
    for (int i = 0; i < d->nfiles; i++)
        if (mfb_inputs_add(in, MFB_INPUT_DISTRIBUTION, d->files[i].path, strlen(d->files[i].path), err) < 0)
            return -1;
    if (c->pgo && c->pgo_train) { /* --pgo-train's tables (the study's own are listed above) */
        char cache[96];
        struct mfb_pgo_request req = pgo_request(c, cache, sizeof cache);
        return mfb_pgo_train_inputs(&req, in, err);
    }
    return 0;
}

/* The result must not replace a file the run reads (stdout, output NULL, replaces nothing); with
 * built (the run's variants assembled), every header its source variants included too. */
static int check_inputs(const char *output, const struct mfb_study *c, const struct mfb_dist *d,
                        const struct mfb_run *built, struct mfb_err *err)
{
    if (!output)
        return 0;
    struct mfb_inputs in = {0};
    int rc = run_inputs(c, d, &in, err);
    for (int i = 0; built && rc == 0 && i < built->config.nvars; i++)
        if (built->config.vars[i].owns_source)
            rc = mfb_varbuild_add_inputs(built->config.vars[i].source, &in, err);
    if (rc == 0)
        rc = mfb_inputs_check_output(&in, output, "-o", err);
    mfb_inputs_free(&in);
    return rc;
}

int mfb_assemble_config(struct mfb_run *run, const char *output, struct mfb_dist *dist, struct mfb_trace *trace,
                        struct mfb_sweep **sweep, struct mfb_caches *probed, struct mfb_err *err)
{
    const struct mfb_study *c = run->config.study;
    /* the files named first, the variants built after: a bad output costs no compile (the headers
     * a source includes are known once it is built, and checked then, before anything is written) */
    if (mfb_assemble_workload(run, dist, trace, sweep, c, err) < 0 || check_inputs(output, c, dist, NULL, err) < 0 ||
        mfb_assemble_variants(run, c, err) < 0 || check_inputs(output, c, dist, run, err) < 0)
        return -1;
    /* read before any process starts, so a bad probe file fails once, at once */
    return c->cache_from ? mfb_probe_read_caches(c->cache_from, probed, err) : 0;
}
