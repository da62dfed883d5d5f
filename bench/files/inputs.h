/* The files a subcommand reads, and the one rule over them: an output never names an input.
 * Each subcommand lists what it reads here (run: distribution tables and their siblings, plugins,
 * a trace, a probe file; record: the program; merge: recorded folders and bpftrace histograms);
 * the same check then decides for every output path, so no subcommand can overwrite an input
 * through a link, another spelling of its name or a hard link. */
#ifndef MFB_INPUTS_H
#define MFB_INPUTS_H

#include <stddef.h>

#include "base/error.h"

/* What an input is, for the message that names it. */
enum mfb_input_kind {
    MFB_INPUT_DISTRIBUTION, /* a size/alignment/overlap/mismatch table */
    MFB_INPUT_PLUGIN,       /* a shared object given by --variant LIB.so:SYMBOL */
    MFB_INPUT_SOURCE,       /* a source variant's file: --variant FILE.c:SYMBOL (or .o, .a) */
    MFB_INPUT_HEADER,       /* a header a source variant's FILE.c includes (its build's manifest lists them) */
    MFB_INPUT_TRAINING,     /* a table --pgo's training replays (--pgo-train's) */
    MFB_INPUT_TRACE,        /* --trace */
    MFB_INPUT_PROBE_FILE,   /* --cache-from */
    MFB_INPUT_PROGRAM,      /* the program record runs */
    MFB_INPUT_RECORDING,    /* a recorded folder merge adds */
    MFB_INPUT_BPFTRACE,     /* a bpftrace histogram merge adds */
    MFB_INPUT_RECORDING_FILE, /* a file of the recording ab --predict-from replays */
};

struct mfb_input {
    enum mfb_input_kind kind;
    char *path;
};

/* Grows as inputs are added; zero-initialised is empty. */
struct mfb_inputs {
    struct mfb_input *v;
    int n, cap;
};

const char *mfb_input_kind_name(enum mfb_input_kind kind);
/* Adds the first len bytes of path (a plugin spec's library part is a prefix): 0, or -1 with err. */
int mfb_inputs_add(struct mfb_inputs *in, enum mfb_input_kind kind, const char *path, size_t len, struct mfb_err *err);
/* 0 when the output at path (named by option in the message) is none of the inputs, -1 with err
 * otherwise. Same means same device and inode, so links and other spellings are caught. A path
 * that does not exist yet, or an input that cannot be read (its reader names the problem), is
 * no match. */
int mfb_inputs_check_output(const struct mfb_inputs *in, const char *path, const char *option, struct mfb_err *err);
/* 0 when no input is the same file or folder as an earlier one, -1 with err naming both: for
 * the inputs that add up (merge), where one given twice would be counted twice. */
int mfb_inputs_check_distinct(const struct mfb_inputs *in, struct mfb_err *err);
void mfb_inputs_free(struct mfb_inputs *in);
/* 0 when the folder an output at path would be written into exists ("-": stdout, always), -1 with
 * "CMD: OPTION PATH: the folder DIR does not exist" (or is not a folder) in err: a usage error,
 * found before anything runs. */
int mfb_output_folder_check(const char *cmd, const char *option, const char *path, struct mfb_err *err);

#endif
