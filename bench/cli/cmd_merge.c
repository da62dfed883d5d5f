/* memfbench merge -o DIR [--bpftrace FUNCTION:FILE]... FOLDER...: sums recorded tables (their
 * weights are call counts, so a fleet of recordings adds up with each weighing what it called),
 * and bpftrace size histograms taken from a running process, into one recorded folder. */
#include <cJSON.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "base/flags.h"
#include "base/inputs.h"
#include "report/folder.h"
#include "report/provenance.h"
#include "workload/recording.h"

/* --bpftrace options at most: the command line would be unwieldy long before. */
#define MAX_BPFTRACE 64

/* The options of memfbench merge, in the order --help lists them (base/flags.h). */
static const struct mfb_flag merge_flags[] = {
    MFB_ROW("output", required_argument, 'o', true, "DIR",
     "the new folder (refused if it exists; written whole or not\n"
     "at all)"),
    MFB_ROW("bpftrace", required_argument, 'b', false, "FUNCTION:FILE",
     "a bpftrace histogram of FUNCTION's sizes (repeatable)"),
    MFB_ROW_HELP,
};

static void usage(FILE *out)
{
    fputs("usage: memfbench merge -o DIR [--bpftrace FUNCTION:FILE]... [FOLDER...]\n\n"
          "Adds the tables of recorded folders (memfbench record's; weights are call counts) and\n"
          "bpftrace size histograms (lines '@[SIZE]: COUNT') into a new folder DIR.\n\n", out);
    mfb_flags_usage(out, merge_flags, sizeof merge_flags / sizeof merge_flags[0]);
}

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

int mfb_cmd_merge(int argc, char **argv)
{
    const char *out = NULL, *bpf[MAX_BPFTRACE];
    int nbpf = 0;
    enum { NFLAGS = sizeof merge_flags / sizeof merge_flags[0] };
    struct option opts[NFLAGS + 1];
    char shorts[MFB_FLAGS_SHORTS_CAP(NFLAGS)];
    mfb_flags_getopt(merge_flags, NFLAGS, false, opts, shorts);
    optind = 0;
    opterr = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, shorts, opts, NULL)) != -1) {
        if (ch == 'o') {
            out = optarg;
        } else if (ch == 'b') {
            if (nbpf == MAX_BPFTRACE) {
                fprintf(stderr, "memfbench merge: at most %d --bpftrace files\n", MAX_BPFTRACE);
                return MFB_EXIT_USAGE;
            }
            bpf[nbpf++] = optarg;
        } else if (ch == 'h') {
            usage(stdout);
            return MFB_EXIT_OK;
        } else {
            fprintf(stderr, "memfbench merge: %s '%s' (see memfbench merge --help)\n",
                    ch == ':' ? "a value is missing for" : "unknown option", argv[optind - 1]);
            return MFB_EXIT_USAGE;
        }
    }
    if (!out || (optind >= argc && nbpf == 0)) {
        fprintf(stderr, "memfbench merge: %s\n", !out ? "-o DIR is required" : "nothing to merge: give folders or --bpftrace");
        return MFB_EXIT_USAGE;
    }
    struct mfb_err err = {{0}};
    if (merge_inputs(argv + optind, argc - optind, bpf, nbpf, out, &err) < 0) {
        fprintf(stderr, "memfbench merge: %s\n", err.msg);
        return MFB_EXIT_USAGE;
    }
    struct mfb_recording rec = {0};
    int rc = 0;
    for (int i = optind; i < argc && rc == 0; i++)
        if ((rc = mfb_provenance_check(argv[i], &err)) == 0)
            rc = mfb_recording_add_tables(&rec, argv[i], &err);
    for (int i = 0; i < nbpf && rc == 0; i++) {
        char fname[16];
        const char *colon = strchr(bpf[i], ':');
        enum mfb_func f;
        if (!colon || colon - bpf[i] >= (long)sizeof fname) {
            rc = mfb_fail(&err, "--bpftrace: '%s' is not FUNCTION:FILE", bpf[i]);
            break;
        }
        snprintf(fname, sizeof fname, "%.*s", (int)(colon - bpf[i]), bpf[i]);
        char names[MFB_FUNC_NAMES_CAP];
        if (mfb_func_parse(fname, &f) < 0)
            rc = mfb_fail(&err, "--bpftrace: '%s' is not %s", fname, mfb_func_names(names, sizeof names));
        else
            rc = mfb_recording_add_bpftrace(&rec, colon + 1, f, &err);
    }
    char *tmp = rc == 0 ? mfb_folder_begin(out, &err) : NULL;
    int written = tmp ? mfb_recording_write(&rec, tmp, &err) : -1;
    if (written > 0) {
        cJSON *p = mfb_provenance_new();
        cJSON *src = cJSON_AddArrayToObject(p, "merged_from");
        for (int i = optind; i < argc; i++)
            cJSON_AddItemToArray(src, cJSON_CreateString(argv[i]));
        for (int i = 0; i < nbpf; i++)
            cJSON_AddItemToArray(src, cJSON_CreateString(bpf[i]));
        mfb_provenance_add_calls(p, &rec);
        if (mfb_folder_put_json(tmp, "provenance.json", p, &err) < 0 || mfb_folder_commit(tmp, out, &err) < 0)
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
        fprintf(stderr, "memfbench merge: %s from %d source%s\n", out, rec.sources, rec.sources == 1 ? "" : "s");
    }
    free(tmp);
    mfb_recording_free(&rec);
    return written < 0 ? (rc < 0 ? MFB_EXIT_FAIL : MFB_EXIT_USAGE) : MFB_EXIT_OK;
}
