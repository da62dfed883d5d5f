#include "processes/child.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/filetext.h"
#include "report/columns.h"

/* Where the reading is, for its one-line errors: "process 2 of 10: its result has no config.function". */
struct reading {
    const cJSON *doc;
    int i, k;
    struct mfb_err *err;
};

static const cJSON *item(const struct reading *rd, const char *section, const char *key)
{
    const cJSON *s = section ? cJSON_GetObjectItemCaseSensitive(rd->doc, section) : rd->doc;
    return cJSON_GetObjectItemCaseSensitive(s, key);
}

static int missing(const struct reading *rd, const char *section, const char *key, const char *what)
{
    return mfb_fail(rd->err, "process %d of %d: its result has no %s%s%s (%s)", rd->i + 1, rd->k,
                    section ? section : "", section ? "." : "", key, what);
}

/* A copy of a string field: NULL (and the error said) when it is not a string. */
static char *text(const struct reading *rd, const char *section, const char *key)
{
    const cJSON *x = item(rd, section, key);
    if (!cJSON_IsString(x)) {
        missing(rd, section, key, "a string");
        return NULL;
    }
    char *s = strdup(x->valuestring);
    if (!s)
        mfb_fail(rd->err, "out of memory reading process %d of %d", rd->i + 1, rd->k);
    return s;
}

static int number(const struct reading *rd, const char *section, const char *key, double *out)
{
    const cJSON *x = item(rd, section, key);
    if (!cJSON_IsNumber(x))
        return missing(rd, section, key, "a number");
    *out = x->valuedouble;
    return 0;
}

/* What differs between processes: seeds, layout, clock calibration, code addresses and placements,
 * batch, rounds, the placement check and a --background stressor. */
static cJSON *process_entry(const cJSON *doc, int i)
{
    cJSON *e = cJSON_CreateObject();
    cJSON_AddNumberToObject(e, "index", i);
    const char *keep[] = {"seeds", "layout", "timer", "batch", "rounds", "harness", "status", "placement_check", "setup"};
    for (size_t k = 0; k < sizeof keep / sizeof keep[0]; k++)
        cJSON_AddItemToObject(e, keep[k], cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(doc, keep[k]), 1));
    const cJSON *bg = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "config"), "background");
    if (cJSON_IsObject(bg))
        cJSON_AddItemToObject(e, "background", cJSON_Duplicate(bg, 1));
    cJSON *addr = cJSON_AddArrayToObject(e, "variant_addresses");
    cJSON *place = cJSON_AddArrayToObject(e, "variant_code_placements");
    cJSON *rot = cJSON_AddArrayToObject(e, "variant_rotations"); /* --code-rotation round: per round */
    cJSON *lin = cJSON_AddArrayToObject(e, "variant_linearity");   /* what the parent judges (merge.c) */
    const cJSON *v;
    cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(doc, "variants")) {
        const cJSON *l = cJSON_GetObjectItemCaseSensitive(v, "linearity");
        cJSON_AddItemToArray(lin, cJSON_IsNumber(l) ? cJSON_CreateNumber(l->valuedouble) : cJSON_CreateNull());
        cJSON_AddItemToArray(addr, cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(v, "address"), 0));
        cJSON_AddItemToArray(place, cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(v, "code_placement"), 0));
        const cJSON *ps = cJSON_GetObjectItemCaseSensitive(v, "code_placements");
        cJSON_AddItemToArray(rot, ps ? cJSON_Duplicate(ps, 1) : cJSON_CreateNull());
    }
    return e;
}

/* The document's sections but its samples, in its order, as copies. */
static cJSON *sections_of(const cJSON *doc)
{
    cJSON *s = cJSON_CreateObject();
    const cJSON *x;
    cJSON_ArrayForEach(x, doc)
        if (strcmp(x->string, "samples") != 0)
            cJSON_AddItemToObject(s, x->string, cJSON_Duplicate(x, 1));
    return s;
}

/* A code placement as the file gives it: 0 .. MFB_CODE_PLACEMENTS - 1, else (null, absent) -1. */
static int8_t placement_of(const cJSON *x)
{
    return cJSON_IsNumber(x) && x->valuedouble >= 0 && x->valuedouble < MFB_CODE_PLACEMENTS ? (int8_t)x->valuedouble
                                                                                             : -1;
}

static int read_variants(const struct reading *rd, struct mfb_child_result *out)
{
    const cJSON *vars = item(rd, NULL, "variants"), *v;
    if (!cJSON_IsArray(vars) || cJSON_GetArraySize(vars) < 1 || cJSON_GetArraySize(vars) > MFB_MAX_VARIANTS)
        return missing(rd, NULL, "variants", "an array of 1 to 32 variants");
    cJSON_ArrayForEach(v, vars) {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(v, "name");
        const cJSON *origin = cJSON_GetObjectItemCaseSensitive(v, "origin");
        if (!cJSON_IsString(name) || !cJSON_IsString(origin))
            return missing(rd, "variants[]", "name", "each variant's name and origin as strings");
        if (!(out->names[out->nvars] = strdup(name->valuestring)))
            return mfb_fail(rd->err, "out of memory reading process %d of %d", rd->i + 1, rd->k);
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(v, "layout_sentinel")))
            out->sentinel = out->nvars;
        const cJSON *place = cJSON_GetObjectItemCaseSensitive(v, "code_placement");
        out->placements.variant[out->nvars] = placement_of(place);
        const cJSON *lin = cJSON_GetObjectItemCaseSensitive(v, "linearity");
        out->linearity[out->nvars] = cJSON_IsNumber(lin) ? lin->valuedouble : NAN;
        out->harness[out->nvars++] = !strcmp(origin->valuestring, mfb_origin_name(MFB_ORIGIN_HARNESS));
    }
    return 0;
}

/* status.warnings as the typed list a run keeps (base/warn.h). */
static int read_warnings(const struct reading *rd, struct mfb_child_result *out)
{
    const cJSON *w;
    cJSON_ArrayForEach(w, item(rd, "status", "warnings")) {
        const cJSON *code = cJSON_GetObjectItemCaseSensitive(w, "code");
        const cJSON *msg = cJSON_GetObjectItemCaseSensitive(w, "message");
        if (!cJSON_IsString(code) || !cJSON_IsString(msg))
            return missing(rd, "status.warnings[]", "code", "each warning's code and message as strings");
        int kind = mfb_warning_of_code(code->valuestring);
        if (kind >= 0 && mfb_warnings_add(&out->warnings, (enum mfb_warning)kind, msg->valuestring, 0) < 0 &&
            out->warnings.n < MFB_MAX_WARNINGS)
            return mfb_fail(rd->err, "out of memory reading process %d of %d", rd->i + 1, rd->k);
    }
    return 0;
}

/* --by-class or --sweep: each class's sizes (null by_class: the whole distribution only). */
static int read_classes(const struct reading *rd, struct mfb_child_result *out)
{
    out->sweep = cJSON_IsObject(item(rd, NULL, "sweep"));
    const cJSON *bc = item(rd, NULL, "by_class");
    if (cJSON_IsNull(bc))
        return 0;
    const cJSON *classes = cJSON_GetObjectItemCaseSensitive(bc, "classes"), *c;
    if (!cJSON_IsArray(classes))
        return missing(rd, "by_class", "classes", "an array");
    int n = cJSON_GetArraySize(classes);
    out->class_lo = malloc(((size_t)n + 1) * sizeof *out->class_lo);
    out->class_hi = malloc(((size_t)n + 1) * sizeof *out->class_hi);
    if (!out->class_lo || !out->class_hi)
        return mfb_fail(rd->err, "out of memory reading process %d of %d", rd->i + 1, rd->k);
    cJSON_ArrayForEach(c, classes) {
        const cJSON *lo = cJSON_GetObjectItemCaseSensitive(c, "lo"), *hi = cJSON_GetObjectItemCaseSensitive(c, "hi");
        if (!cJSON_IsNumber(lo) || !cJSON_IsNumber(hi) || lo->valuedouble < 0 || hi->valuedouble < lo->valuedouble)
            return missing(rd, "by_class.classes[]", "lo", "each class's lo <= hi as numbers");
        out->class_lo[out->nclasses] = (uint64_t)lo->valuedouble;
        out->class_hi[out->nclasses++] = (uint64_t)hi->valuedouble;
    }
    return 0;
}

static int read_background(const struct reading *rd, struct mfb_child_result *out)
{
    const cJSON *bg = cJSON_GetObjectItemCaseSensitive(item(rd, NULL, "config"), "background");
    if (!cJSON_IsObject(bg))
        return 0;
    struct reading in = *rd;
    in.doc = cJSON_GetObjectItemCaseSensitive(rd->doc, "config");
    struct mfb_child_background *b = &out->background;
    out->has_background = true;
    if (!(b->stressor = text(&in, "background", "stressor")) || number(&in, "background", "seconds", &b->seconds) < 0)
        return -1;
    const cJSON *cpus = cJSON_GetObjectItemCaseSensitive(bg, "cpus");
    if (!cJSON_IsArray(cpus))
        return missing(rd, "config.background", "cpus", "an array");
    b->cpus = cJSON_GetArraySize(cpus);
    const cJSON *rate = cJSON_GetObjectItemCaseSensitive(bg, "bytes_per_ns");
    b->rated = cJSON_IsNumber(rate);
    b->bytes_per_ns = b->rated ? rate->valuedouble : 0;
    return 0;
}

/* The status, batch and rounds fields the parent acts on. */
static int read_progress(const struct reading *rd, struct mfb_child_result *out)
{
    const cJSON *complete = item(rd, "status", "complete"), *reason = item(rd, "status", "stop_reason");
    if (!cJSON_IsBool(complete))
        return missing(rd, "status", "complete", "true or false");
    out->complete = cJSON_IsTrue(complete);
    if (!cJSON_IsString(reason) || mfb_stop_reason_parse(reason->valuestring, &out->stop_reason) < 0)
        return missing(rd, "status", "stop_reason", "a stop reason's name");
    double passes = 0, measured = 0;
    if (number(rd, "batch", "passes", &passes) < 0 || number(rd, "rounds", "duration_s", &out->rounds_s) < 0 ||
        number(rd, "rounds", "measured", &measured) < 0 || number(rd, "timer", "hz", &out->timer_hz) < 0)
        return -1;
    out->batch_passes = (long)passes;
    out->measured_rounds = (long)measured;
    return 0;
}

int mfb_child_from_json(const cJSON *doc, int i, int k, bool keep_sections, struct mfb_child_result *out,
                        struct mfb_err *err)
{
    *out = (struct mfb_child_result){.index = i, .sentinel = -1, .rerun_of = -1};
    struct reading rd = {.doc = doc, .i = i, .k = k, .err = err};
    if (read_progress(&rd, out) < 0 || read_variants(&rd, out) < 0 || read_classes(&rd, out) < 0 ||
        read_background(&rd, out) < 0 || read_warnings(&rd, out) < 0)
        return -1;
    if (!(out->function = text(&rd, "config", "function")) || !(out->distribution = text(&rd, "config", "distribution")) ||
        !(out->clock = text(&rd, "timer", "name")))
        return -1;
    if (!(out->host = malloc(sizeof *out->host)))
        return mfb_fail(err, "out of memory reading process %d of %d", i + 1, k);
    struct mfb_err why = {{0}};
    if (mfb_host_from_json(item(&rd, NULL, "host"), out->host, &why) < 0)
        return mfb_fail(err, "process %d of %d: %s", i + 1, k, why.msg);
    /* Files from before --code-rotation have none: they rotated per process, as the analysis reads them. */
    const cJSON *rotation = item(&rd, "config", "code_rotation");
    int rotation_value = !rotation ? MFB_ROTATE_PROCESS : cJSON_IsString(rotation)
                             ? mfb_choice_parse(MFB_SET_ROTATION, rotation->valuestring) : -1;
    if (rotation_value < 0)
        return missing(&rd, "config", "code_rotation", "process or round");
    out->rotation = (enum mfb_code_rotation)rotation_value;
    out->placements.kernel = placement_of(item(&rd, "layout", "kernel_code_placement"));
    const cJSON *tol = item(&rd, "batch", "linearity_tolerance");
    out->linearity_tolerance = cJSON_IsNumber(tol) ? tol->valuedouble : 0;
    out->entry = process_entry(doc, i);
    out->sections = keep_sections ? sections_of(doc) : NULL;
    if (!out->entry || (keep_sections && !out->sections))
        return mfb_fail(err, "out of memory reading process %d of %d", i + 1, k);
    return 0;
}

/* The file whole, parsed; NULL (with the reason in err) when it cannot be. */
static cJSON *parse_file(const char *path, int i, int k, struct mfb_err *err)
{
    size_t n;
    struct mfb_err why = {{0}};
    char *buf = mfb_file_text(path, SIZE_MAX - 1, &n, &why);
    if (!buf) {
        mfb_fail(err, "process %d of %d wrote no readable result: %s", i + 1, k, why.msg);
        return NULL;
    }
    cJSON *doc = cJSON_ParseWithLength(buf, n);
    free(buf);
    if (!doc)
        mfb_fail(err, "process %d of %d: its result is not JSON", i + 1, k);
    return doc;
}

int mfb_child_read(const char *path, int i, int k, bool keep_sections, struct mfb_samples *all,
                   struct mfb_child_result *out, struct mfb_err *err)
{
    *out = (struct mfb_child_result){.index = i, .sentinel = -1};
    cJSON *doc = parse_file(path, i, k, err);
    if (!doc)
        return -1;
    char where[64];
    snprintf(where, sizeof where, "process %d of %d", i + 1, k);
    int rc = mfb_columns_read(cJSON_GetObjectItemCaseSensitive(doc, "samples"), all, i, where, err);
    if (rc == 0)
        rc = mfb_child_from_json(doc, i, k, keep_sections, out, err);
    /* The samples are in `all` now and the context in out: one copy of the batches is kept. */
    cJSON_Delete(doc);
    return rc;
}

int mfb_child_same_study(const struct mfb_child_result *a, const struct mfb_child_result *b, int k,
                         struct mfb_err *err)
{
    if (strcmp(a->function, b->function) || strcmp(a->distribution, b->distribution))
        return mfb_fail(err, "process %d of %d measured %s on %s, process %d %s on %s", b->index + 1, k, b->function,
                        b->distribution, a->index + 1, a->function, a->distribution);
    bool same = a->nvars == b->nvars;
    for (int v = 0; same && v < a->nvars; v++)
        same = !strcmp(a->names[v], b->names[v]);
    if (!same)
        return mfb_fail(err, "process %d of %d measured other variants than process %d", b->index + 1, k, a->index + 1);
    return 0;
}

void mfb_child_free(struct mfb_child_result *r)
{
    for (int v = 0; v < r->nvars; v++)
        free(r->names[v]);
    free(r->function);
    free(r->distribution);
    free(r->host);
    free(r->clock);
    free(r->class_lo);
    free(r->class_hi);
    free(r->background.stressor);
    mfb_warnings_free(&r->warnings);
    cJSON_Delete(r->entry);
    cJSON_Delete(r->sections);
    *r = (struct mfb_child_result){0};
}
