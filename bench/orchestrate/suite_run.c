#include "orchestrate/suite_run.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <unistd.h>

#include "base/functions.h"
#include "base/progress.h"
#include "orchestrate/analysis.h"
#include "programs/study_child.h"
#include "files/temporaries.h"
#include "programs/stop.h"
#include "report/folder.h"

/* fleetbench's per-workload tables of a function: <Function>_0 .. <Function>_8 beside its _Fleet. */
#define WORKLOAD_TABLES 9
/* A study's argv besides the user's options: run, -f F, -d D, --deadline KINDS, -o FILE, -q, the NULL. */
#define OWN_ARGS 12
/* "--deadline"'s value for every kind: a name and a number (%g) each. */
#define DEADLINES_TEXT 256

static const char *const set_names[MFB_SUITE_SETS] = {[MFB_SUITE_FLEET] = "fleet", [MFB_SUITE_WORKLOADS] = "workloads"};
static const char *const set_about[MFB_SUITE_SETS] = {
    [MFB_SUITE_FLEET] = "the five functions, each on its fleet table (5 studies)",
    [MFB_SUITE_WORKLOADS] = "each function on each of fleetbench's workload tables 0-8 (45 studies)"};

int mfb_suite_set_parse(const char *word)
{
    for (int s = 0; s < MFB_SUITE_SETS; s++)
        if (!strcmp(word, set_names[s]))
            return s;
    return -1;
}

const char *mfb_suite_set_name(enum mfb_suite_set s)
{
    return set_names[s];
}

const char *mfb_suite_set_about(enum mfb_suite_set s)
{
    return set_about[s];
}

/* The k-th study of the set: its function and distribution (into dist, cap bytes); false past the end. */
static bool study_of(enum mfb_suite_set set, int k, enum mfb_func *f, char *dist, size_t cap)
{
    int per = set == MFB_SUITE_FLEET ? 1 : WORKLOAD_TABLES;
    if (k >= MFB_FUNC_COUNT * per)
        return false;
    *f = (enum mfb_func)(k / per);
    const char *fleet = mfb_func_default_distribution(*f);
    if (set == MFB_SUITE_FLEET) {
        snprintf(dist, cap, "%s", fleet);
        return true;
    }
    /* "fleetbench/Memcpy_Fleet" -> "fleetbench/Memcpy_3" */
    const char *under = strrchr(fleet, '_');
    snprintf(dist, cap, "%.*s_%d", under ? (int)(under - fleet) : (int)strlen(fleet), fleet, k % per);
    return true;
}

/* An option with "{function}" in it, for function f: a fresh string (the caller frees), or NULL. */
static char *with_function(const char *arg, enum mfb_func f)
{
    const char *at = strstr(arg, "{function}"), *name = mfb_func_name(f);
    if (!at)
        return strdup(arg);
    size_t len = strlen(arg) - strlen("{function}") + strlen(name) + 1;
    char *s = malloc(len);
    if (s)
        snprintf(s, len, "%.*s%s%s", (int)(at - arg), arg, name, at + strlen("{function}"));
    return s;
}

/* Runs one study into path as memfbench's own child (orchestrate/study_child.h): its exit status,
 * 128 + the signal when a stop request ended it, 1 when it failed without one (why, in one line). */
static int run_study(const struct mfb_suite_request *r, enum mfb_func f, const char *dist, const char *path)
{
    char **argv = calloc((size_t)r->nrun_args + OWN_ARGS, sizeof *argv);
    char **made = calloc((size_t)r->nrun_args + 1, sizeof *made); /* the user's options, each for f */
    int n = 0, nmade = 0, status = -1;
    if (!argv || !made)
        goto done;
    argv[n++] = "memfbench";
    argv[n++] = "run";
    argv[n++] = "-f";
    argv[n++] = (char *)mfb_func_name(f);
    argv[n++] = "-d";
    argv[n++] = (char *)dist;
    /* the suite's deadlines bound the study's own programs too (its builds, its processes); a
     * --deadline among the run options comes after, so the one given for the studies wins */
    char deadlines[DEADLINES_TEXT];
    mfb_deadlines_format(r->deadlines, deadlines, sizeof deadlines);
    if (deadlines[0]) {
        argv[n++] = "--deadline";
        argv[n++] = deadlines;
    }
    for (int i = 0; i < r->nrun_args; i++) {
        if (!(made[nmade] = with_function(r->run_args[i], f)))
            goto done;
        argv[n++] = made[nmade++];
    }
    argv[n++] = "-o";
    argv[n++] = (char *)path;
    /* quiet: a study's own summary would name its file in the suite's temporary folder, which is
     * gone once the suite is in place (issue 54); the suite says where each study goes, and its
     * analysis reads each study's warnings from its file. */
    argv[n++] = "-q";
    char what[400];
    snprintf(what, sizeof what, "the study of %s on %s", mfb_func_name(f), dist);
    status = mfb_study_child_run("memfbench suite", what, "no suite written", argv, r->deadlines);
done:
    for (int i = 0; i < nmade; i++)
        free(made[i]);
    free(made);
    free(argv);
    return status;
}

/* A study's file name in the suite's folder: memcpy.json.gz, or memcpy-Memcpy_3.json.gz in a set
 * of per-workload tables. */
static void file_name(const struct mfb_suite_request *r, enum mfb_func f, const char *dist, char *out, size_t cap)
{
    const char *table = strrchr(dist, '/') ? strrchr(dist, '/') + 1 : dist;
    if (r->set == MFB_SUITE_FLEET)
        snprintf(out, cap, "%s.json.gz", mfb_func_name(f));
    else
        snprintf(out, cap, "%s-%s.json.gz", mfb_func_name(f), table);
}

int mfb_suite_execute(const struct mfb_suite_request *r)
{
    mfb_stop_install(); /* before the folder's temporary exists: a stop never leaves it behind */
    mfb_temp_sweep();
    struct mfb_err err = {{0}};
    char *tmp = mfb_folder_begin(r->out, &err);
    if (!tmp) {
        fprintf(stderr, "memfbench suite: %s\n", err.msg);
        return 2;
    }
    enum mfb_func f;
    char dist[256], path[4096], name[300];
    int k = 0, status = 0, studies = 0;
    while (study_of(r->set, studies, &f, dist, sizeof dist))
        studies++;
    struct mfb_progress progress;
    mfb_progress_start(&progress, stderr, "memfbench suite", "study", studies, r->quiet);
    for (; study_of(r->set, k, &f, dist, sizeof dist) && status == 0; k++) {
        file_name(r, f, dist, name, sizeof name);
        snprintf(path, sizeof path, "%s/%s", tmp, name);
        char detail[900];
        snprintf(detail, sizeof detail, "%s on %s -> %.200s/%s", mfb_func_name(f), dist, r->out, name);
        if (progress.on) /* a terminal: one line rewritten, with the time left */
            mfb_progress_step(&progress, stderr, k, detail);
        else if (!r->quiet) /* named by where it will be once the suite is in place */
            fprintf(stderr, "memfbench suite: study %d of %d: %s\n", k + 1, studies, detail);
        status = run_study(r, f, dist, path); /* a failure is said there, in one line */
        if (status != 0)
            mfb_progress_end(&progress, stderr);
        if (status != 0 && mfb_stop_signal())
            fprintf(stderr, "memfbench suite: interrupted by %s during the study of %s on %s; no suite written\n",
                    mfb_stop_signal_name(mfb_stop_signal()), mfb_func_name(f), dist);
    }
    mfb_progress_end(&progress, stderr);
    if (status != 0 || mfb_folder_commit(tmp, r->out, &err) < 0) {
        if (status == 0)
            fprintf(stderr, "memfbench suite: %s\n", err.msg);
        mfb_folder_abort(tmp);
        free(tmp);
        if (mfb_stop_signal())
            return mfb_stop_exit_status();
        return status == 0 || status < 0 ? 1 : status;
    }
    free(tmp);
    /* the analysis's suite line over the studies' files, in their order */
    int nfiles = k, n = 0;
    char **argv = calloc((size_t)nfiles + 3, sizeof *argv), **paths = calloc((size_t)nfiles, sizeof *paths);
    if (!argv || !paths) {
        free(argv);
        free(paths);
        fprintf(stderr, "memfbench suite: out of memory\n");
        return 1;
    }
    argv[n++] = "analyze";
    argv[n++] = "suite";
    for (int i = 0; study_of(r->set, i, &f, dist, sizeof dist); i++) {
        file_name(r, f, dist, name, sizeof name);
        size_t len = strlen(r->out) + strlen(name) + 2;
        if (!(paths[i] = malloc(len)))
            break;
        snprintf(paths[i], len, "%s/%s", r->out, name);
        argv[n++] = paths[i];
    }
    fprintf(stderr, "memfbench suite: %d studies in %s\n", nfiles, r->out);
    return mfb_analysis_exec(n, argv);
}
