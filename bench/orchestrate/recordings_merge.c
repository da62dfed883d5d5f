/* memfbench merge's run: sums recorded tables (their weights are call counts, so a fleet of
 * recordings adds up with each weighing what it called), and bpftrace size histograms taken from
 * a running process, into one recorded folder, written whole or not at all. */
#include "orchestrate/recordings_merge.h"

#include <cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/filetext.h"
#include "base/functions.h"
#include "files/inputs.h"
#include "files/temporaries.h"
#include "programs/stop.h"
#include "report/folder.h"
#include "report/provenance.h"
#include "workload/distribution.h"
#include "workload/recording.h"

/* What merge reads: the folders and the bpftrace files (a FUNCTION:FILE's file part). They add
 * up, so none may be given twice, even through a link; and the new folder must not be one of them
 * (it must not exist at all, which mfb_folder_begin checks; this names the input it would be). */
static int merge_inputs(char **folders, int nfolders, const char *const *bpf, int nbpf, const char *out,
                        struct mfb_err *err)
{
    struct mfb_inputs in = {0};
    int rc = 0;
    for (int i = 0; i < nfolders && rc == 0; i++)
        rc = mfb_inputs_add(&in, MFB_INPUT_RECORDING, folders[i], strlen(folders[i]), err);
    for (int i = 0; i < nbpf && rc == 0; i++) {
        const char *file = strchr(bpf[i], ':');
        if (file) /* one without a colon is refused, with its form, where it is read */
            rc = mfb_inputs_add(&in, MFB_INPUT_BPFTRACE, file + 1, strlen(file + 1), err);
    }
    if (rc == 0)
        rc = mfb_inputs_check_distinct(&in, err);
    if (rc == 0)
        rc = mfb_inputs_check_output(&in, out, "-o", err);
    mfb_inputs_free(&in);
    return rc;
}

/* provenance.json is a few hundred bytes (mfb_provenance_check bounds it alike). */
enum { PROVENANCE_MAX_BYTES = 1 << 20 };

/* A count of provenance.json's "calls": a whole number from 0 to 2^53, or -1. */
static int whole_count(const cJSON *o, const char *key, uint64_t *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0) || v->valuedouble > (double)MFB_MAX_CALL_COUNT ||
        v->valuedouble != floor(v->valuedouble))
        return -1;
    *out = (uint64_t)v->valuedouble;
    return 0;
}

/* The folder's tables against what its provenance.json says the recording counted: each function
 * it lists with sampled calls has a size table, each size table's function is listed, and the
 * table's weights add up to its calls (exactly; with --rate 1/N each row was scaled and rounded on
 * its own, so within half a call per row). A table copied from another function or recording
 * under this name fails one of them, where its keys alone would pass. A folder without a
 * provenance.json (tables made by hand) has nothing to agree with. */
static int folder_agrees(const char *dir, const struct mfb_recording *one, struct mfb_err *err)
{
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/provenance.json", dir) >= sizeof path)
        return mfb_fail(err, "%s: path too long", dir);
    size_t n;
    char *text = mfb_file_text(path, PROVENANCE_MAX_BYTES, &n, err);
    if (!text)
        return errno == ENOENT ? 0 : -1;
    cJSON *d = cJSON_ParseWithLength(text, n);
    free(text);
    const cJSON *calls = cJSON_GetObjectItemCaseSensitive(d, "calls"), *c;
    bool listed[MFB_FUNC_COUNT] = {false};
    int rc = cJSON_IsObject(calls) ? 0 : mfb_fail(err, "%s: no \"calls\" object", path);
    cJSON_ArrayForEach(c, calls)
    {
        enum mfb_func f;
        uint64_t k, sampled;
        if (rc < 0)
            break;
        /* the key is not echoed: it is not a name we know, and may hold anything */
        if (!c->string || mfb_func_parse(c->string, &f) < 0 || listed[f]) {
            rc = mfb_fail(err, "%s: \"calls\" holds a key that is not a function memfbench records, or one twice",
                          path);
            break;
        }
        listed[f] = true;
        if (whole_count(c, "calls", &k) < 0 || whole_count(c, "sampled", &sampled) < 0 || sampled > k) {
            rc = mfb_fail(err, "%s: \"calls\": %s: not whole counts of calls and of sampled calls (at most the calls)",
                          path, c->string);
            break;
        }
        const struct mfb_rec_func *t = &one->f[f];
        uint64_t slack = sampled == k ? 0 : (t->nsizes + 1) / 2;
        uint64_t gap = t->calls > k ? t->calls - k : k - t->calls;
        if (sampled > 0 && t->calls == 0)
            rc = mfb_fail(err, "%s: records %llu %s calls, and the folder has no %s_size.csv: a recording missing "
                               "its table", path, (unsigned long long)k, c->string, c->string);
        else if (t->calls > 0 && gap > slack)
            rc = mfb_fail(err, "%s/%s_size.csv: its weights add up to %llu calls, and provenance.json records %llu "
                               "%s calls: a table that is not this recording's (another function's, another "
                               "recording's, or edited)", dir, c->string, (unsigned long long)t->calls,
                          (unsigned long long)k, c->string);
    }
    for (int f = 0; f < MFB_FUNC_COUNT && rc == 0; f++)
        if (one->f[f].calls > 0 && !listed[f])
            rc = mfb_fail(err, "%s/%s_size.csv: provenance.json records no %s calls: a table that is not this "
                               "recording's (another function's, or another recording's)", dir,
                          mfb_func_name((enum mfb_func)f), mfb_func_name((enum mfb_func)f));
    cJSON_Delete(d);
    return rc;
}

/* One recorded folder: whole (its provenance), read on its own, held to its provenance, then added. */
static int add_folder(struct mfb_recording *rec, const char *dir, struct mfb_err *err)
{
    struct mfb_recording one = {0};
    int rc = mfb_provenance_check(dir, err);
    if (rc == 0)
        rc = mfb_recording_add_tables(&one, dir, err);
    if (rc == 0)
        rc = folder_agrees(dir, &one, err);
    if (rc == 0)
        rc = mfb_recording_sum(rec, &one, err);
    mfb_recording_free(&one);
    return rc;
}

/* Each merged table read back as memfbench run reads it: sources that are each fine can still sum
 * to a table run refuses (a bpftrace size inside a recorded size range), and a merge must not
 * write a folder that cannot be replayed. */
static int check_replayable(const char *tmp, const char *out, const struct mfb_recording *rec, struct mfb_err *err)
{
    for (int f = 0; f < MFB_FUNC_COUNT; f++) {
        if (!rec->f[f].calls)
            continue;
        char table[4096 + 64];
        snprintf(table, sizeof table, "%s/%s_size.csv", tmp, mfb_func_name((enum mfb_func)f));
        struct mfb_dist d;
        int rc = mfb_dist_resolve(&d, table, (enum mfb_func)f, "", err);
        mfb_dist_free(&d);
        if (rc < 0) {
            char why[sizeof err->msg];
            size_t t = strlen(tmp); /* the table named where it would have been, not in the temporary */
            snprintf(why, sizeof why, "%s%s", strncmp(err->msg, tmp, t) ? "" : out, err->msg + (strncmp(err->msg, tmp, t) ? 0 : t));
            return mfb_fail(err, "the merged %s table would not replay (nothing written): %s",
                            mfb_func_name((enum mfb_func)f), why);
        }
    }
    return 0;
}

int mfb_recordings_merge(const struct mfb_merge_request *r)
{
    /* nothing it runs takes long, but a stop still ends it and removes its temporary (at exit) */
    mfb_stop_install();
    mfb_temp_sweep();
    struct mfb_err err = {{0}};
    if (merge_inputs(r->folders, r->nfolders, r->bpf, r->nbpf, r->out, &err) < 0) {
        fprintf(stderr, "memfbench merge: %s\n", err.msg);
        return MFB_EXIT_USAGE;
    }
    struct mfb_recording rec = {0};
    int rc = 0;
    for (int i = 0; i < r->nfolders && rc == 0; i++)
        rc = add_folder(&rec, r->folders[i], &err);
    for (int i = 0; i < r->nbpf && rc == 0; i++) {
        char fname[16];
        const char *colon = strchr(r->bpf[i], ':');
        enum mfb_func f;
        if (!colon || colon - r->bpf[i] >= (long)sizeof fname) {
            rc = mfb_fail(&err, "--bpftrace: '%s' is not FUNCTION:FILE", r->bpf[i]);
            break;
        }
        snprintf(fname, sizeof fname, "%.*s", (int)(colon - r->bpf[i]), r->bpf[i]);
        char names[MFB_FUNC_NAMES_CAP];
        if (mfb_func_parse(fname, &f) < 0)
            rc = mfb_fail(&err, "--bpftrace: '%s' is not %s", fname, mfb_func_names(names, sizeof names));
        else
            rc = mfb_recording_add_bpftrace(&rec, colon + 1, f, &err);
    }
    char *tmp = rc == 0 ? mfb_folder_begin(r->out, &err) : NULL;
    int written = tmp ? mfb_recording_write(&rec, tmp, &err) : -1;
    if (written > 0 && check_replayable(tmp, r->out, &rec, &err) < 0)
        written = rc = -1;
    if (written > 0) {
        cJSON *p = mfb_provenance_new();
        cJSON *src = cJSON_AddArrayToObject(p, "merged_from");
        for (int i = 0; i < r->nfolders; i++)
            cJSON_AddItemToArray(src, cJSON_CreateString(r->folders[i]));
        for (int i = 0; i < r->nbpf; i++)
            cJSON_AddItemToArray(src, cJSON_CreateString(r->bpf[i]));
        mfb_provenance_add_calls(p, &rec);
        /* a stop request ends it here, before the folder is put in place */
        if (mfb_stop_signal())
            written = mfb_fail(&err, "interrupted by %s; %s not written", mfb_stop_signal_name(mfb_stop_signal()),
                               r->out);
        else if (mfb_folder_put_json(tmp, "provenance.json", p, &err) < 0 ||
                 mfb_folder_commit(tmp, r->out, &err) < 0)
            written = -1;
        cJSON_Delete(p);
    } else if (written == 0) {
        mfb_fail(&err, "nothing to merge: the inputs hold no calls");
        written = -1;
    }
    if (written < 0) {
        mfb_folder_abort(tmp);
        fprintf(stderr, "memfbench merge: %s\n", err.msg);
    } else {
        fprintf(stderr, "memfbench merge: %s from %d source%s\n", r->out, rec.sources, rec.sources == 1 ? "" : "s");
    }
    free(tmp);
    mfb_recording_free(&rec);
    if (written < 0 && mfb_stop_signal())
        return mfb_stop_exit_status();
    return written < 0 ? (rc < 0 ? MFB_EXIT_FAIL : MFB_EXIT_USAGE) : MFB_EXIT_OK;
}
