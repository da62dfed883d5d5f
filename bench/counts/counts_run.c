/* memfbench counts, the parent (orchestrate/counts.h): each variant's replay under callgrind, then
 * one JSON file (docs/schema/memfbench-counts.schema.json) with every count and everything needed
 * to make it again. Each variant counts in a process of its own, so no variant's state (the
 * simulated caches, the predictor's tables) carries into another's. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#include "base/msgpath.h"
#include "base/progress.h"
#include "base/self.h"
#include "config.h"
#include "impl/plugin.h"
#include "impl/source.h"
#include "measure/counted.h"
#include "counts/callgrind.h"
#include "counts/counts.h"
#include "source/varbuild.h"
#include "report/document.h"
#include "report/output.h"
#include "files/inputs.h"
#include "files/temporaries.h"
#include "programs/stop.h"
#include "workload/distribution.h"

#define SCHEMA_VERSION 1
#define MAX_ARGS 48

struct cmdline {
    char *argv[MAX_ARGS];
    char toggle[128], outfile[PATH_MAX + 64], log[PATH_MAX + 64], calls[16], seed[32];
};

/* valgrind, its options, then this binary in the replay mode on one variant. */
static void command_for(struct cmdline *c, const char *valgrind, const char *self, const char *outfile, const char *log,
                        const struct mfb_counts_config *cfg, const char *variant)
{
    int n = 0;
    c->argv[n++] = (char *)valgrind;
    for (int i = 0; mfb_cg_options[i]; i++)
        c->argv[n++] = (char *)mfb_cg_options[i];
    snprintf(c->toggle, sizeof c->toggle, "--toggle-collect=%s", MFB_COUNTED_LOOP_SYMBOL);
    snprintf(c->outfile, sizeof c->outfile, "--callgrind-out-file=%s", outfile);
    /* valgrind's own notes (the LL cache it simulates in place of the host's) go to a file: the
     * simulated caches are in the counts file instead */
    snprintf(c->log, sizeof c->log, "--log-file=%s", log);
    snprintf(c->calls, sizeof c->calls, "%u", cfg->calls);
    snprintf(c->seed, sizeof c->seed, "0x%llx", (unsigned long long)cfg->seed);
    const char *rest[] = {c->toggle, c->outfile, c->log, self, "counts", "--replay", "-f", mfb_func_name(cfg->func), "-d",
                          cfg->dist, "-v", variant, "--calls", c->calls, "--seed", c->seed, NULL};
    for (int i = 0; rest[i]; i++)
        c->argv[n++] = (char *)rest[i];
    if (cfg->cache) {
        c->argv[n++] = "--cache";
        c->argv[n++] = (char *)cfg->cache;
    }
    c->argv[n] = NULL;
}

static cJSON *strings(char *const *v)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; v[i]; i++)
        cJSON_AddItemToArray(a, cJSON_CreateString(v[i]));
    return a;
}

/* A field of the replay's reply (programs/reply.h), or "". */
static const char *field(const struct mfb_cg_result *r, const char *key)
{
    const char *v = mfb_reply_get(&r->reply, key);
    return v ? v : "";
}

/* The code the variant ran (orchestrate/callgrind.h) and its size: the sum of the sizes known, null
 * when the variant's own function's is not (a sum of its callees alone would pass for a small
 * variant), complete only when every function's size is known and the list was not cut. */
static void add_code(cJSON *o, const struct mfb_cg_result *r)
{
    cJSON *code = cJSON_AddArrayToObject(o, "code");
    uint64_t sum = 0;
    bool complete = !r->code_cut && r->nentry > 0, own = r->nentry > 0;
    for (size_t i = 0; i < r->ncode; i++) {
        const struct mfb_cg_function *fn = &r->code[i];
        cJSON *f = cJSON_CreateObject();
        cJSON_AddStringToObject(f, "object", fn->object);
        cJSON_AddStringToObject(f, "function", fn->name);
        if (fn->sized)
            cJSON_AddNumberToObject(f, "bytes", (double)fn->bytes);
        else
            cJSON_AddNullToObject(f, "bytes");
        cJSON_AddItemToArray(code, f);
        sum += fn->sized ? fn->bytes : 0;
        complete &= fn->sized;
        own &= i >= r->nentry || fn->sized;
    }
    if (own)
        cJSON_AddNumberToObject(o, "code_bytes", (double)sum);
    else
        cJSON_AddNullToObject(o, "code_bytes");
    cJSON_AddBoolToObject(o, "code_bytes_complete", complete);
}

/* What is counted of each -v: the value the replay gets (a built-in's name, a plugin's spec, or a
 * source variant's first placement as a plugin) and, for a source variant, how it was built. */
struct counted {
    char replay[PATH_MAX + 512];
    char description[1024];
};

static cJSON *variant_json(const struct mfb_counts_config *cfg, const char *name, const struct counted *what,
                           char *const *argv, const struct mfb_cg_result *r)
{
    const struct mfb_variant *v = mfb_variant_find(cfg->func, name);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", v ? v->name : field(r, "name"));
    cJSON_AddStringToObject(o, "origin", v ? mfb_origin_name(v->origin) : what->description[0] ? "source" : field(r, "origin"));
    cJSON_AddStringToObject(o, "description", v ? v->description : what->description[0] ? what->description : name);
    cJSON_AddStringToObject(o, "symbol", field(r, "symbol"));
    cJSON_AddStringToObject(o, "object", field(r, "object"));
    cJSON_AddNumberToObject(o, "verified_calls", strtod(field(r, "verified"), NULL));
    cJSON_AddItemToObject(o, "command", strings(argv));
    cJSON *tot = cJSON_AddObjectToObject(o, "totals"), *per = cJSON_AddObjectToObject(o, "per_call");
    for (int e = 0; e < MFB_CG_EVENTS; e++) {
        cJSON_AddNumberToObject(tot, mfb_cg_event_name((enum mfb_cg_event)e), (double)r->total[e]);
        cJSON_AddNumberToObject(per, mfb_cg_event_name((enum mfb_cg_event)e), (double)r->total[e] / cfg->calls);
    }
    add_code(o, r);
    return o;
}

static cJSON *document(const struct mfb_counts_config *cfg, const struct mfb_dist *d, const char *version,
                       const struct mfb_cg_result *first)
{
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "schema", "memfbench-counts");
    cJSON_AddNumberToObject(doc, "schema_version", SCHEMA_VERSION);
    cJSON_AddStringToObject(doc, "memfbench", MFB_VERSION);
    cJSON *cmd = cJSON_AddArrayToObject(doc, "command");
    for (int i = 0; i < cfg->argc; i++)
        cJSON_AddItemToArray(cmd, cJSON_CreateString(cfg->argv[i]));
    cJSON_AddStringToObject(doc, "function", mfb_func_name(cfg->func));
    cJSON *dist = cJSON_AddObjectToObject(doc, "distribution");
    cJSON_AddStringToObject(dist, "spec", cfg->dist);
    cJSON_AddItemToObject(dist, "files", mfb_dist_files_json(d));
    cJSON_AddNumberToObject(doc, "calls", cfg->calls);
    mfb_json_add_u64_string(doc, "seed", cfg->seed);
    cJSON_AddStringToObject(doc, "baseline", cfg->variants[0]);
    cJSON *tool = cJSON_AddObjectToObject(doc, "tool");
    cJSON_AddStringToObject(tool, "name", "callgrind");
    cJSON_AddStringToObject(tool, "valgrind", version);
    cJSON_AddStringToObject(tool, "counted_function", MFB_COUNTED_LOOP_SYMBOL);
    cJSON_AddItemToObject(tool, "options", strings((char *const *)mfb_cg_options));
    cJSON *caches = cJSON_AddArrayToObject(tool, "simulated_caches");
    for (int i = 0; i < 3 && first->caches[i][0]; i++)
        cJSON_AddItemToArray(caches, cJSON_CreateString(first->caches[i]));
    cJSON_AddArrayToObject(doc, "variants");
    return doc;
}

/* A source variant (-v FILE.c:SYMBOL[=NAME], .o, .a) built as run builds it (source/varbuild.c:
 * $CC, $CFLAGS else -O2; cached), counted from its first placement's shared object; the files it
 * was built from (its headers too) added to in. */
static int build_source(const char *spec, const struct mfb_deadlines *dl, struct counted *out, struct mfb_inputs *in,
                        struct mfb_err *err)
{
    struct mfb_source *s = mfb_source_new(spec, err);
    if (!s)
        return -1;
    int rc = mfb_varbuild(s, NULL, dl, err);
    if (rc == 0) {
        snprintf(out->replay, sizeof out->replay, "%s/" MFB_SOURCE_PLACED_FMT ":%s=%s", s->dir, 0u, s->symbol, s->name);
        snprintf(out->description, sizeof out->description, "source %s:%s, built by %s %s (placement 0)", s->path,
                 s->symbol, s->compiler, s->flags);
        rc = mfb_varbuild_add_inputs(s, in, err);
    }
    mfb_source_free(s);
    return rc;
}

/* One -v checked without building or loading anything: a source variant's file, a plugin's library
 * (read, not loaded; its name no built-in's), or a built-in available here. Each file it names is
 * added to in. */
static int check_variant(const struct mfb_counts_config *cfg, const char *spec, struct mfb_inputs *in,
                         struct mfb_err *err)
{
    enum mfb_source_kind kind;
    bool source = mfb_source_spec(spec, &kind);
    if (source || mfb_plugin_spec(spec)) {
        struct mfb_source *s = source ? mfb_source_new(spec, err) : NULL;
        mfb_source_free(s);
        if ((source && !s) || (!source && (mfb_plugin_check(spec, err) < 0 || mfb_plugin_name_check(spec, cfg->func, err) < 0)))
            return -1;
        /* the file: the part before the last ':' */
        return mfb_inputs_add(in, source ? MFB_INPUT_SOURCE : MFB_INPUT_PLUGIN, spec,
                              (size_t)(strrchr(spec, ':') - spec), err);
    }
    const struct mfb_variant *v = mfb_variant_find(cfg->func, spec);
    char shown[MFB_MSG_PATH_MAX];
    if (!v)
        return mfb_fail(err, "-v: '%s' is not a variant of %s (memfbench list)", mfb_msg_path(spec, shown, sizeof shown),
                        mfb_func_name(cfg->func));
    if (!mfb_variant_available(v))
        return mfb_fail(err, "-v: '%s' is not available here: it needs %s", v->name, v->needs);
    return 0;
}

/* Everything a bad request names is checked before the first program starts (a compiler, valgrind):
 * the variants, the distribution, and -o against every file counts reads (the distribution's
 * tables, the plugins, the sources); the headers a source includes are known once it is built,
 * and checked then, before any replay. One line, exit 2. */
static int check_request(const struct mfb_counts_config *cfg, struct mfb_dist *d, struct counted *what,
                         struct mfb_err *err)
{
    struct mfb_inputs in = {0};
    int rc = 0;
    for (int i = 0; rc == 0 && i < cfg->nvariants; i++)
        rc = check_variant(cfg, cfg->variants[i], &in, err);
    if (rc == 0 && mfb_dist_resolve(d, cfg->dist, cfg->func, cfg->dist_dir, err) < 0) {
        char msg[sizeof err->msg], shown[MFB_MSG_PATH_MAX];
        snprintf(msg, sizeof msg, "%s", err->msg);
        rc = mfb_fail(err, "-d %s: %s", mfb_msg_path(cfg->dist, shown, sizeof shown), msg);
    }
    for (int i = 0; rc == 0 && i < d->nfiles; i++)
        rc = mfb_inputs_add(&in, MFB_INPUT_DISTRIBUTION, d->files[i].path, strlen(d->files[i].path), err);
    if (rc == 0)
        rc = mfb_inputs_check_output(&in, cfg->output, "-o", err);
    for (int i = 0; rc == 0 && i < cfg->nvariants; i++) {
        enum mfb_source_kind kind;
        snprintf(what[i].replay, sizeof what[i].replay, "%s", cfg->variants[i]);
        what[i].description[0] = '\0';
        if (mfb_source_spec(cfg->variants[i], &kind))
            rc = build_source(cfg->variants[i], &cfg->deadlines, &what[i], &in, err);
    }
    if (rc == 0)
        rc = mfb_inputs_check_output(&in, cfg->output, "-o", err);
    mfb_inputs_free(&in);
    if (rc < 0) {
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", err->msg);
        mfb_fail(err, "memfbench counts: %s", msg);
    }
    return rc;
}

int mfb_counts_execute(const struct mfb_counts_config *cfg)
{
    mfb_stop_install(); /* before anything it must clean up after: a stop ends the replay under way */
    mfb_temp_sweep();
    struct mfb_err err = {{0}};
    struct mfb_dist dist = {0};
    char valgrind[PATH_MAX], version[128], self[PATH_MAX], dir[PATH_MAX];
    struct counted *what = calloc(MFB_COUNTS_MAX_VARIANTS, sizeof *what);
    if (!what || check_request(cfg, &dist, what, &err) < 0) {
        fprintf(stderr, "%s\n", what ? err.msg : "memfbench counts: out of memory");
        free(what);
        mfb_dist_free(&dist);
        /* a stop during a source's build ends it as every command ends on a stop */
        return mfb_stop_signal() ? mfb_stop_exit_status() : MFB_EXIT_USAGE;
    }
    /* the callgrind files go to a folder named as every temporary is (files/temporaries.h), so a
     * killed run's is found and removed by the next run of any command writing there */
    const char *tmp = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    dir[0] = '\0';
    struct mfb_output out;
    char *made = NULL;
    int failed = 0; /* which step failed: the line it says */
    if (mfb_cg_find(valgrind, sizeof valgrind, &err) < 0 ||
        mfb_cg_version(valgrind, &cfg->deadlines, version, sizeof version, &err) < 0)
        failed = 1;
    else if (!strcmp(mfb_self_path(self, sizeof self), "memfbench"))
        failed = mfb_fail(&err, "memfbench counts: cannot find this program's path (/proc/self/exe)") < 0;
    else if (mfb_output_open(&out, cfg->output, &err) < 0)
        failed = 2;
    else if (!(made = mfb_temp_make(tmp, "counts", "", true)) || snprintf(dir, sizeof dir, "%s", made) >= (int)sizeof dir)
        failed = 3;
    if (failed) {
        if (failed == 3) {
            char shown[MFB_MSG_PATH_MAX];
            const char *why = strerror(errno);
            fprintf(stderr, "memfbench counts: cannot make a folder in %s: %s\n", mfb_msg_path(tmp, shown, sizeof shown),
                    why);
            mfb_output_abort(&out);
        } else {
            fprintf(stderr, "%s%s\n", failed == 2 ? "memfbench counts: " : "", err.msg);
        }
        free(what);
        free(made);
        mfb_dist_free(&dist);
        return MFB_EXIT_FAIL;
    }
    free(made);
    cJSON *doc = NULL;
    int rc = 0, stopped = 0;
    struct mfb_progress progress; /* valgrind counts a variant in seconds to hours: say how far it is */
    mfb_progress_start(&progress, stderr, "memfbench counts", "variant", cfg->nvariants, cfg->quiet);
    for (int i = 0; i < cfg->nvariants && rc == 0; i++) {
        char outfile[PATH_MAX + 32], log[PATH_MAX + 32];
        struct cmdline c;
        struct mfb_cg_result r;
        snprintf(outfile, sizeof outfile, "%s/%d.callgrind", dir, i);
        snprintf(log, sizeof log, "%s/%d.log", dir, i);
        command_for(&c, valgrind, self, outfile, log, cfg, what[i].replay);
        char detail[160];
        snprintf(detail, sizeof detail, "%s %.60s under callgrind (%u calls)", mfb_func_name(cfg->func),
                 cfg->variants[i], cfg->calls);
        if (progress.on)
            mfb_progress_step(&progress, stderr, i, detail);
        else if (!cfg->quiet)
            fprintf(stderr, "memfbench counts: %s\n", detail);
        rc = mfb_cg_run(c.argv, &cfg->deadlines, outfile, MFB_COUNTED_LOOP_SYMBOL, cfg->calls, &r, &stopped, &err);
        unlink(outfile);
        if (rc == 0) {
            if (!doc)
                doc = document(cfg, &dist, version, &r);
            cJSON_AddItemToArray(cJSON_GetObjectItem(doc, "variants"), variant_json(cfg, cfg->variants[i], &what[i], c.argv, &r));
        }
        mfb_cg_result_free(&r);
    }
    mfb_progress_end(&progress, stderr);
    mfb_temp_discard(dir);
    free(what);
    if (rc == 0)
        rc = mfb_output_commit(&out, doc, NULL, &err);
    cJSON_Delete(doc);
    mfb_dist_free(&dist);
    if (rc < 0) {
        fprintf(stderr, "%s\n", err.msg);
        mfb_output_abort(&out);
        /* a stop ends every command alike: 128 + the signal */
        return stopped || mfb_stop_signal() ? mfb_stop_exit_status() : MFB_EXIT_FAIL;
    }
    if (!cfg->quiet) {
        char shown[MFB_MSG_PATH_MAX];
        mfb_msg_path(cfg->output, shown, sizeof shown);
        fprintf(stderr, "memfbench counts: wrote %s (memfbench analyze counts %s)\n", shown, shown);
    }
    return MFB_EXIT_OK;
}
