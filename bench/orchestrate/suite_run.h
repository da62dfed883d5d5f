/* memfbench suite's run: one study per (function, distribution) of a named set, each a fresh
 * `memfbench run`, into one folder written whole; then the analysis's suite line (the command
 * line is cli/cmd_suite.c). */
#ifndef MFB_SUITE_RUN_H
#define MFB_SUITE_RUN_H

#include <stdbool.h>

#include "programs/kinds.h"

/* The sets a suite can run. */
enum mfb_suite_set {
    MFB_SUITE_FLEET,     /* the five functions, each on its fleet table */
    MFB_SUITE_WORKLOADS, /* each function on each of fleetbench's per-workload tables (0-8) */
    MFB_SUITE_SETS
};

/* The set named word, or -1; and a set's name and description. */
int mfb_suite_set_parse(const char *word);
const char *mfb_suite_set_name(enum mfb_suite_set s);
const char *mfb_suite_set_about(enum mfb_suite_set s);

struct mfb_suite_request {
    const char *out;           /* -o DIR: the new folder of the studies' files */
    enum mfb_suite_set set;
    char **run_args;           /* memfbench run options for every study ("{function}" replaced) */
    int nrun_args;
    bool quiet;
    const struct mfb_deadlines *deadlines; /* --deadline: each study's (NULL: the defaults) */
};

/* Runs the studies and the analysis: the exit status. */
int mfb_suite_execute(const struct mfb_suite_request *r);

#endif
