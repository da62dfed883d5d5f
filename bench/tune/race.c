#include "tune/race.h"

#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <signal.h>

#include "base/filetext.h"
#include "config.h"
#include "files/temporaries.h"
#include "impl/source.h"
#include "orchestrate/analysis.h"
#include "programs/study_child.h"
#include "programs/run.h"
#include "programs/stop.h"
#include "report/folder.h"
#include "workload/distribution.h"

/* A candidate: a setting of the family's macros. */
struct candidate {
    char *text;  /* "A=1,B=2", as --setting takes it */
    char *name;  /* NAME[A=1,B=2], as the studies name it */
    bool alive;
};

struct race {
    const struct mfb_tune_request *r;
    char *tmp;                 /* the folder being filled */
    const char *dist;          /* the race's distribution: -d, else the function's fleet table */
    struct mfb_source *src;    /* the family's -v, parsed once: its path, symbol and NAME */
    struct candidate *c;
    size_t n;
    long baseline_setting;     /* the baseline's index when it is a setting of the family, else -1 */
    int steps;
    double race_s;
    bool by_budget;            /* the budget ended the race, not the rule */
    char leader[512], runner_up[512];
    char why[512];             /* the analysis's reason the race ended */
    char *check_dists[64 + MFB_TUNE_CHECKS_MAX];
    int nchecks;
};

/* A race's shipped checks: at most this many distributions of one function (fleetbench's 10 and
 * a few more are shipped per function). */
#define SHIPPED_CHECKS_MAX 64
/* The analysis's decision file is small: its bound. */
#define RACE_JSON_MAX (16u << 20)
/* A family's source file copied into the winner's: its bound. */
#define SOURCE_MAX (1u << 20)

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void free_race(struct race *x)
{
    for (size_t k = 0; k < x->n; k++) {
        free(x->c[k].text);
        free(x->c[k].name);
    }
    free(x->c);
    mfb_source_free(x->src);
    for (int i = 0; i < x->nchecks; i++)
        free(x->check_dists[i]);
    free(x->tmp);
}

/* The family's settings as candidates (the baseline's setting left out: it is the baseline). */
static int make_candidates(struct race *x, struct mfb_err *err)
{
    const struct mfb_tune_request *r = x->r;
    size_t total = mfb_params_count(&r->params);
    x->c = calloc(total, sizeof *x->c);
    if (!x->c)
        return mfb_fail(err, "memfbench tune: out of memory");
    for (size_t k = 0; k < total; k++) {
        if ((long)k == x->baseline_setting)
            continue;
        char suffix[MFB_PARAM_TEXT_CAP], flags[MFB_PARAM_TEXT_CAP];
        mfb_params_setting(&r->params, k, suffix, flags);
        size_t len = strlen(suffix);
        struct candidate *c = &x->c[x->n];
        c->text = malloc(len);
        c->name = malloc(strlen(x->src->name) + len + 1);
        if (!c->text || !c->name) {
            free(c->text);
            free(c->name);
            return mfb_fail(err, "memfbench tune: out of memory");
        }
        snprintf(c->text, len, "%.*s", (int)(len - 2), suffix + 1); /* "[A=1,B=2]" -> "A=1,B=2" */
        snprintf(c->name, strlen(x->src->name) + len + 1, "%s%s", x->src->name, suffix);
        c->alive = true;
        x->n++;
    }
    return 0;
}

/* A study's command line: run, its function and table, the user's run options, the family (the
 * baseline first), then the settings asked and the shape (study_end). */
struct args {
    char **v;
    int n, cap;
    char deadlines[256], processes[16], time_s[32];
};

static void push(struct args *a, const char *s)
{
    if (a->n < a->cap - 1) /* sized for every push below: never short */
        a->v[a->n++] = (char *)s;
}

static int study_begin(const struct race *x, struct args *a, const char *dist)
{
    const struct mfb_tune_request *r = x->r;
    a->cap = 32 + r->nrun_args + 2 * MFB_PARAMS_MAX + 2 * ((int)x->n + 2);
    a->n = 0;
    if (!(a->v = calloc((size_t)a->cap, sizeof *a->v)))
        return -1;
    push(a, "memfbench");
    push(a, "run");
    push(a, "-f");
    push(a, mfb_func_name(r->func));
    push(a, "-d");
    push(a, dist);
    mfb_deadlines_format(r->deadlines, a->deadlines, sizeof a->deadlines);
    if (a->deadlines[0]) { /* the tune's deadlines bound each study's own programs too */
        push(a, "--deadline");
        push(a, a->deadlines);
    }
    for (int i = 0; i < r->nrun_args; i++)
        push(a, r->run_args[i]);
    if (x->baseline_setting < 0) {
        push(a, "-v");
        push(a, r->baseline);
    }
    push(a, "-v");
    push(a, r->source);
    for (int i = 0; i < r->params.n; i++) {
        push(a, "--param");
        push(a, r->param_args[i]);
    }
    if (x->baseline_setting >= 0) { /* the first setting built is the first variant: the baseline */
        push(a, "--setting");
        push(a, r->baseline);
    }
    return 0;
}

/* processes or time_s 0: the run's default (the fresh study's, unless given). */
static int study_end(const struct race *x, struct args *a, int processes, double time_s, const char *path,
                     const char *what)
{
    if (processes > 0) {
        snprintf(a->processes, sizeof a->processes, "%d", processes);
        push(a, "--processes");
        push(a, a->processes);
    }
    if (time_s > 0) {
        snprintf(a->time_s, sizeof a->time_s, "%.17g", time_s);
        push(a, "-t");
        push(a, a->time_s);
    }
    push(a, "-o");
    push(a, path);
    /* quiet: a study's summary would name its file in the temporary folder; the tune's analysis
     * reads each study's warnings from its file */
    push(a, "-q");
    a->v[a->n] = NULL;
    int rc = mfb_study_child_run("memfbench tune", what, "no tune written", a->v, x->r->deadlines);
    free(a->v);
    a->v = NULL;
    return rc;
}

/* The analysis's step: TMP/race.json (each candidate's history with its units, who is alive, the
 * leader, whether the race is done) made from the race so far (the last race.json, --resume) and
 * this step's files, so that no study is read twice; and the step's line printed. */
static int analyse_step(const struct race *x, char **files, int nfiles)
{
    const struct mfb_tune_request *r = x->r;
    char margin[32], alpha[32], json[4200];
    snprintf(margin, sizeof margin, "%.17g", r->margin_pct);
    snprintf(alpha, sizeof alpha, "%.17g", r->alpha);
    snprintf(json, sizeof json, "%s/race.json", x->tmp);
    char **argv = calloc((size_t)nfiles + 12, sizeof *argv);
    if (!argv)
        return MFB_EXIT_FAIL;
    int n = 0;
    argv[n++] = "memfbench";
    argv[n++] = "analyze";
    argv[n++] = "race";
    argv[n++] = "--margin";
    argv[n++] = margin;
    argv[n++] = "--alpha";
    argv[n++] = alpha;
    argv[n++] = "--json";
    argv[n++] = json;
    if (x->steps > 1) {
        argv[n++] = "--resume";
        argv[n++] = json;
    }
    for (int i = 0; i < nfiles; i++)
        argv[n++] = files[i];
    struct mfb_prog p = {.kind = MFB_PROG_PROCESS, .who = "memfbench tune", .name = "the race's analysis",
                         .argv = argv, .self = true, .in = MFB_IO_NULL,
                         .out = r->quiet ? MFB_IO_NULL : MFB_IO_FD, .out_fd = 2, .err = MFB_IO_CAPTURE,
                         .death_signal = SIGTERM, .deadlines = r->deadlines, .cpu = -1};
    struct mfb_prog_outcome o;
    struct mfb_err err = {{0}};
    int rc = 0;
    if (mfb_prog_run(&p, &o, &err) < 0) {
        fprintf(stderr, "%s\n", err.msg);
        rc = MFB_EXIT_FAIL;
    } else if (o.end == MFB_PROG_STOPPED) {
        rc = 128 + o.signal;
    } else if (!mfb_prog_ok(&o)) {
        char how[400], last[400] = "";
        mfb_prog_describe(&p, &o, how, sizeof how);
        mfb_prog_last_line(o.err, last, sizeof last);
        fprintf(stderr, "memfbench tune: the race's analysis: %s%s%s; no tune written\n", how, last[0] ? ": " : "",
                last);
        rc = MFB_EXIT_FAIL;
    }
    mfb_prog_outcome_free(&o);
    free(argv);
    return rc;
}

/* Reads TMP/race.json: who is alive (the others marked dropped), the leader, the runner-up,
 * whether the race is done and why. */
static int read_decision(struct race *x, bool *done)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/race.json", x->tmp);
    struct mfb_err err = {{0}};
    size_t len;
    char *text = mfb_file_text(path, RACE_JSON_MAX, &len, &err);
    cJSON *doc = text ? cJSON_Parse(text) : NULL;
    free(text);
    const cJSON *alive = cJSON_GetObjectItemCaseSensitive(doc, "alive");
    const cJSON *leader = cJSON_GetObjectItemCaseSensitive(doc, "leader");
    const cJSON *runner = cJSON_GetObjectItemCaseSensitive(doc, "runner_up");
    const cJSON *fin = cJSON_GetObjectItemCaseSensitive(doc, "done");
    const cJSON *why = cJSON_GetObjectItemCaseSensitive(doc, "why");
    if (!cJSON_IsArray(alive) || !cJSON_IsString(leader) || !cJSON_IsBool(fin)) {
        cJSON_Delete(doc);
        fprintf(stderr, "memfbench tune: the race's analysis wrote no decision in %s; no tune written\n", path);
        return MFB_EXIT_FAIL;
    }
    for (size_t k = 0; k < x->n; k++) {
        bool kept = false;
        const cJSON *e;
        cJSON_ArrayForEach(e, alive)
            kept |= cJSON_IsString(e) && !strcmp(e->valuestring, x->c[k].name);
        x->c[k].alive = x->c[k].alive && kept; /* a dropped candidate never comes back */
    }
    snprintf(x->leader, sizeof x->leader, "%s", leader->valuestring);
    snprintf(x->runner_up, sizeof x->runner_up, "%s", cJSON_IsString(runner) ? runner->valuestring : "");
    snprintf(x->why, sizeof x->why, "%s", cJSON_IsString(why) ? why->valuestring : "");
    *done = cJSON_IsTrue(fin);
    cJSON_Delete(doc);
    return 0;
}

static size_t count_alive(const struct race *x)
{
    size_t a = 0;
    for (size_t k = 0; k < x->n; k++)
        a += x->c[k].alive;
    return a;
}

/* The candidate named name, or NULL. */
static const struct candidate *named(const struct race *x, const char *name)
{
    for (size_t k = 0; k < x->n; k++)
        if (!strcmp(x->c[k].name, name))
            return &x->c[k];
    return NULL;
}

/* The race: steps of studies of the alive candidates (groups of at most r->group, the baseline in
 * each), the analysis after each, until it says done, one candidate is left, or the next step
 * would pass the budget. Every step's files stay in TMP/race; the analysis reads each once. */
static int race(struct race *x)
{
    const struct mfb_tune_request *r = x->r;
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/race", x->tmp);
    if (mkdir(dir, 0777) != 0) {
        fprintf(stderr, "memfbench tune: cannot create %s\n", dir);
        return MFB_EXIT_FAIL;
    }
    int rc = 0;
    double start = now_s(), last_step = 0;
    size_t last_alive = 0;
    for (bool done = false; !done && rc == 0;) {
        size_t alive = count_alive(x);
        double elapsed = now_s() - start;
        /* the next step's time, from the last one's in proportion to the candidates it times */
        double guess = last_alive ? last_step * (double)alive / (double)last_alive : 0;
        if (x->steps > 0 && (alive <= 1 || elapsed + guess > r->budget_s)) {
            x->by_budget = alive > 1;
            break;
        }
        int groups = (int)((alive + (size_t)r->group - 1) / (size_t)r->group);
        size_t per = (alive + (size_t)groups - 1) / (size_t)groups; /* balanced groups */
        char **files = calloc((size_t)groups, sizeof *files); /* this step's: the analysis resumes from the last */
        int nfiles = 0;
        if (!files) {
            rc = MFB_EXIT_FAIL;
            break;
        }
        x->steps++;
        if (!r->quiet)
            fprintf(stderr, "memfbench tune: step %d: %zu candidate%s in %d stud%s of %d processes, %g s each "
                    "(%.0f s of the %.0f-s budget used)\n", x->steps, alive, alive == 1 ? "" : "s", groups,
                    groups == 1 ? "y" : "ies", r->step_processes, r->step_time_s, elapsed, r->budget_s);
        double t0 = now_s();
        size_t k = 0;
        for (int g = 0; g < groups && rc == 0; g++) {
            struct args a;
            if (study_begin(x, &a, x->dist) < 0) {
                rc = MFB_EXIT_FAIL;
                break;
            }
            for (size_t in = 0; in < per && k < x->n; k++)
                if (x->c[k].alive) {
                    push(&a, "--setting");
                    push(&a, x->c[k].text);
                    in++;
                }
            char path[4300], what[128];
            snprintf(path, sizeof path, "%s/step-%03d-%02d.json.gz", dir, x->steps, g + 1);
            snprintf(what, sizeof what, "step %d's study %d of %d", x->steps, g + 1, groups);
            if (!(files[nfiles] = strdup(path))) {
                free(a.v);
                rc = MFB_EXIT_FAIL;
                break;
            }
            nfiles++;
            rc = study_end(x, &a, r->step_processes, r->step_time_s, path, what);
        }
        if (rc == 0)
            rc = analyse_step(x, files, nfiles);
        if (rc == 0)
            rc = read_decision(x, &done);
        for (int i = 0; i < nfiles; i++)
            free(files[i]);
        free(files);
        last_step = now_s() - t0;
        last_alive = alive;
    }
    x->race_s = now_s() - start;
    return rc;
}

/* The fresh study: the baseline, the leader and the runner-up, the study's default shape (never
 * the race's data: the leader was chosen on it, so its own ratio there is biased towards it). */
static int final_study(const struct race *x)
{
    struct args a;
    if (study_begin(x, &a, x->dist) < 0)
        return MFB_EXIT_FAIL;
    const struct candidate *l = named(x, x->leader), *u = x->runner_up[0] ? named(x, x->runner_up) : NULL;
    if (l) {
        push(&a, "--setting");
        push(&a, l->text);
    }
    if (u) {
        push(&a, "--setting");
        push(&a, u->text);
    }
    char path[4200];
    snprintf(path, sizeof path, "%s/final.json.gz", x->tmp);
    return study_end(x, &a, x->r->final_processes, x->r->final_time_s, path, "the fresh study of the leader");
}

/* Whether a shipped distribution's name (group/Table) is one of f's: its table is the function's
 * name, or the name and "_" and more, in any case ("fleetbench/Memcpy_3", "spec2017/memcpy"). */
static bool of_function(const char *name, enum mfb_func f)
{
    const char *table = strrchr(name, '/') ? strrchr(name, '/') + 1 : name, *fn = mfb_func_name(f);
    size_t len = strlen(fn);
    return !strncasecmp(table, fn, len) && (table[len] == '\0' || table[len] == '_');
}

static void add_shipped(const char *name, void *ctx)
{
    struct race *x = ctx;
    if (!of_function(name, x->r->func) || !strcmp(name, x->dist) || x->nchecks >= SHIPPED_CHECKS_MAX)
        return;
    x->check_dists[x->nchecks] = strdup(name);
    x->nchecks += x->check_dists[x->nchecks] != NULL;
}

/* The leader against the baseline on each other distribution: the function's shipped tables and
 * --check-on's, each a shorter study (a check of sign and size, not the headline). */
static int checks(struct race *x)
{
    const struct mfb_tune_request *r = x->r;
    if (mfb_dist_list(MFB_DIST_DIR, add_shipped, x) < 0) {
        fprintf(stderr, "memfbench tune: cannot list the shipped distributions in %s\n", MFB_DIST_DIR);
        return MFB_EXIT_FAIL;
    }
    for (int i = 0; i < r->nchecks; i++)
        if ((x->check_dists[x->nchecks] = strdup(r->checks[i])))
            x->nchecks++;
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/checks", x->tmp);
    if (x->nchecks && mkdir(dir, 0777) != 0) {
        fprintf(stderr, "memfbench tune: cannot create %s\n", dir);
        return MFB_EXIT_FAIL;
    }
    const struct candidate *l = named(x, x->leader);
    for (int i = 0; i < x->nchecks; i++) {
        if (!r->quiet)
            fprintf(stderr, "memfbench tune: check %d of %d: %s on %s\n", i + 1, x->nchecks, x->leader,
                    x->check_dists[i]);
        struct args a;
        if (study_begin(x, &a, x->check_dists[i]) < 0)
            return MFB_EXIT_FAIL;
        if (l) {
            push(&a, "--setting");
            push(&a, l->text);
        }
        char path[4300], what[400];
        snprintf(path, sizeof path, "%s/check-%02d.json.gz", dir, i + 1);
        snprintf(what, sizeof what, "the check on %.300s", x->check_dists[i]);
        int rc = study_end(x, &a, r->check_processes, r->check_time_s, path, what);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* s inside a C comment: a star followed by a slash in a path or a name would end the comment
 * early, so a space is written between them. */
static void comment_text(FILE *fp, const char *s)
{
    for (; *s; s++) {
        fputc(*s, fp);
        if (s[0] == '*' && s[1] == '/')
            fputc(' ', fp);
    }
}

/* winner.c: the family's source with the leader's settings defined first, to build as it is. */
static int write_winner(const struct race *x)
{
    const struct mfb_tune_request *r = x->r;
    struct mfb_err err = {{0}};
    const struct mfb_source *src = x->src;
    size_t len = 0;
    char *text = mfb_file_text(src->path, SOURCE_MAX, &len, &err);
    const struct candidate *l = named(x, x->leader);
    char path[4200];
    snprintf(path, sizeof path, "%s/winner.c", x->tmp);
    FILE *fp = text && l ? fopen(path, "w") : NULL;
    int bad = !fp;
    if (fp) {
        fputs("/* ", fp);
        comment_text(fp, l->name);
        fprintf(fp, ": the leader of memfbench tune's race (%s, folder ", mfb_func_name(r->func));
        comment_text(fp, r->out);
        fputs("), its settings\n * defined first; the family's source ", fp);
        comment_text(fp, src->path);
        fprintf(fp, " follows unchanged. Its symbol is %s. */\n", src->symbol);
        for (const char *t = l->text; *t;) { /* "A=1,B=2": one #define each */
            size_t n = strcspn(t, ","), eq = strcspn(t, "=");
            fprintf(fp, "#define %.*s %.*s\n", (int)eq, t, (int)(n - eq - 1), t + eq + 1);
            t += n + (t[n] == ',');
        }
        fputs(text, fp);
        bad |= ferror(fp) != 0;
        bad |= fclose(fp) != 0;
    }
    if (bad)
        fprintf(stderr, "memfbench tune: cannot write %s%s%s; no tune written\n", path, err.msg[0] ? ": " : "",
                err.msg);
    free(text);
    return bad ? MFB_EXIT_FAIL : 0;
}

/* tune.json: what the tune was asked and what it did, for memfbench analyze tune. */
static int write_summary(const struct race *x)
{
    const struct mfb_tune_request *r = x->r;
    cJSON *doc = cJSON_CreateObject(), *cfg = cJSON_AddObjectToObject(doc, "config");
    cJSON_AddStringToObject(doc, "schema", "memfbench-tune");
    cJSON_AddNumberToObject(doc, "schema_version", 1);
    cJSON_AddStringToObject(cfg, "function", mfb_func_name(r->func));
    cJSON_AddStringToObject(cfg, "distribution", x->dist);
    if (r->family)
        cJSON_AddStringToObject(cfg, "family", r->family);
    else
        cJSON_AddNullToObject(cfg, "family");
    cJSON_AddStringToObject(cfg, "source", r->source);
    cJSON_AddItemToObject(cfg, "params", mfb_params_json(&r->params));
    cJSON_AddStringToObject(cfg, "baseline", r->baseline);
    cJSON_AddStringToObject(cfg, "baseline_kind", x->baseline_setting >= 0 ? "setting" : "variant");
    cJSON_AddNumberToObject(cfg, "budget_s", r->budget_s);
    cJSON_AddNumberToObject(cfg, "margin_percent", r->margin_pct);
    cJSON_AddNumberToObject(cfg, "alpha", r->alpha);
    cJSON_AddNumberToObject(cfg, "step_processes", r->step_processes);
    cJSON_AddNumberToObject(cfg, "step_time_s", r->step_time_s);
    cJSON_AddNumberToObject(cfg, "group", r->group);
    if (r->final_processes)
        cJSON_AddNumberToObject(cfg, "final_processes", r->final_processes);
    else
        cJSON_AddNullToObject(cfg, "final_processes");
    if (r->final_time_s > 0)
        cJSON_AddNumberToObject(cfg, "final_time_s", r->final_time_s);
    else
        cJSON_AddNullToObject(cfg, "final_time_s");
    cJSON_AddNumberToObject(cfg, "check_processes", r->check_processes);
    cJSON_AddNumberToObject(cfg, "check_time_s", r->check_time_s);
    cJSON *ra = cJSON_AddArrayToObject(cfg, "run_args");
    for (int i = 0; i < r->nrun_args; i++)
        cJSON_AddItemToArray(ra, cJSON_CreateString(r->run_args[i]));
    cJSON_AddNumberToObject(doc, "candidates", (double)x->n);
    cJSON_AddNumberToObject(doc, "steps", x->steps);
    cJSON_AddNumberToObject(doc, "race_s", x->race_s);
    cJSON_AddStringToObject(doc, "ended_by", x->by_budget ? "budget" : "rule");
    cJSON_AddStringToObject(doc, "why", x->by_budget ? "the next step would pass the budget" : x->why);
    cJSON_AddStringToObject(doc, "leader", x->leader);
    if (x->runner_up[0])
        cJSON_AddStringToObject(doc, "runner_up", x->runner_up);
    else
        cJSON_AddNullToObject(doc, "runner_up");
    const struct candidate *l = named(x, x->leader);
    cJSON_AddStringToObject(doc, "leader_setting", l ? l->text : "");
    cJSON *ch = cJSON_AddArrayToObject(doc, "checks");
    for (int i = 0; i < x->nchecks; i++) {
        char name[32];
        snprintf(name, sizeof name, "checks/check-%02d.json.gz", i + 1);
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "distribution", x->check_dists[i]);
        cJSON_AddStringToObject(o, "file", name);
        cJSON_AddItemToArray(ch, o);
    }
    struct mfb_err err = {{0}};
    int rc = mfb_folder_put_json(x->tmp, "tune.json", doc, &err);
    cJSON_Delete(doc);
    if (rc < 0)
        fprintf(stderr, "memfbench tune: %s; no tune written\n", err.msg);
    return rc < 0 ? MFB_EXIT_FAIL : 0;
}

/* The race's distribution, the family's source parsed (its NAME names the candidates) and the
 * baseline's setting, if it is one. */
static int prepare(struct race *x, struct mfb_err *err)
{
    const struct mfb_tune_request *r = x->r;
    x->dist = r->distribution ? r->distribution : mfb_func_default_distribution(r->func);
    if (!(x->src = mfb_source_new(r->source, err)))
        return -1;
    x->baseline_setting = -1;
    if (strchr(r->baseline, '=') && !strchr(r->baseline, ':')) {
        if ((x->baseline_setting = mfb_params_index(&r->params, r->baseline, err)) < 0)
            return -1;
    }
    return make_candidates(x, err);
}

int mfb_tune_execute(const struct mfb_tune_request *r)
{
    mfb_stop_install(); /* before the folder's temporary exists: a stop never leaves it behind */
    mfb_temp_sweep();
    struct mfb_err err = {{0}};
    struct race x = {.r = r};
    if (prepare(&x, &err) < 0) {
        fprintf(stderr, "%s\n", err.msg);
        free_race(&x);
        return MFB_EXIT_USAGE;
    }
    if (x.n < 2) {
        fprintf(stderr, "memfbench tune: %zu candidate%s: a race needs two or more settings besides the baseline\n",
                x.n, x.n == 1 ? "" : "s");
        free_race(&x);
        return MFB_EXIT_USAGE;
    }
    if (!(x.tmp = mfb_folder_begin(r->out, &err))) {
        fprintf(stderr, "memfbench tune: %s\n", err.msg);
        free_race(&x);
        return MFB_EXIT_USAGE;
    }
    if (!r->quiet)
        fprintf(stderr, "memfbench tune: %zu candidates of %s against %s on %s, budget %.0f s\n", x.n,
                x.src->name, r->baseline, x.dist, r->budget_s);
    int rc = race(&x);
    if (rc == 0 && !r->quiet)
        fprintf(stderr, "memfbench tune: the race ended after %d step%s in %.0f s (%s): leader %s; the fresh "
                "study of it, the runner-up and %s\n", x.steps, x.steps == 1 ? "" : "s", x.race_s,
                x.by_budget ? "the budget" : x.why, x.leader, r->baseline);
    if (rc == 0)
        rc = final_study(&x);
    if (rc == 0 && !r->no_checks)
        rc = checks(&x);
    if (rc == 0)
        rc = write_winner(&x);
    if (rc == 0)
        rc = write_summary(&x);
    if (rc != 0 || mfb_folder_commit(x.tmp, r->out, &err) < 0) {
        if (rc == 0)
            fprintf(stderr, "memfbench tune: %s\n", err.msg);
        else if (mfb_stop_signal())
            fprintf(stderr, "memfbench tune: interrupted by %s; no tune written\n",
                    mfb_stop_signal_name(mfb_stop_signal()));
        mfb_folder_abort(x.tmp);
        free_race(&x);
        if (mfb_stop_signal())
            return mfb_stop_exit_status();
        return rc == 0 || rc < 0 ? MFB_EXIT_FAIL : rc;
    }
    free_race(&x);
    char *argv[] = {"analyze", "tune", (char *)r->out, NULL};
    return mfb_analysis_exec(3, argv);
}
