/* memfbench merge's run: sums recorded tables (their weights are call counts, so a fleet of
 * recordings adds up with each weighing what it called), and bpftrace size histograms taken from
 * a running process, into one recorded folder, written whole or not at all. */
#include "orchestrate/recordings_merge.h"

#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/functions.h"
#include "base/inputs.h"
#include "report/folder.h"
#include "report/provenance.h"
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

int mfb_recordings_merge(const struct mfb_merge_request *r)
{
    struct mfb_err err = {{0}};
    if (merge_inputs(r->folders, r->nfolders, r->bpf, r->nbpf, r->out, &err) < 0) {
        fprintf(stderr, "memfbench merge: %s\n", err.msg);
        return MFB_EXIT_USAGE;
    }
    struct mfb_recording rec = {0};
    int rc = 0;
    for (int i = 0; i < r->nfolders && rc == 0; i++)
        if ((rc = mfb_provenance_check(r->folders[i], &err)) == 0)
            rc = mfb_recording_add_tables(&rec, r->folders[i], &err);
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
    if (written > 0) {
        cJSON *p = mfb_provenance_new();
        cJSON *src = cJSON_AddArrayToObject(p, "merged_from");
        for (int i = 0; i < r->nfolders; i++)
            cJSON_AddItemToArray(src, cJSON_CreateString(r->folders[i]));
        for (int i = 0; i < r->nbpf; i++)
            cJSON_AddItemToArray(src, cJSON_CreateString(r->bpf[i]));
        mfb_provenance_add_calls(p, &rec);
        if (mfb_folder_put_json(tmp, "provenance.json", p, &err) < 0 || mfb_folder_commit(tmp, r->out, &err) < 0)
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
    return written < 0 ? (rc < 0 ? MFB_EXIT_FAIL : MFB_EXIT_USAGE) : MFB_EXIT_OK;
}
