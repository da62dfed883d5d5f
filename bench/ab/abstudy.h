/* memfbench ab from its resolved options to its exit status: the checks before anything runs, the
 * runs, the replay (--predict-from), the file, then the verdict (the analysis package). */
#ifndef MFB_ABSTUDY_H
#define MFB_ABSTUDY_H

#include <stdbool.h>

#include "ab/ab.h"

struct mfb_ab_request {
    const char *const *variants; /* the -v values, as given */
    int nvariants;
    const char *output;
    const char *predict_from;    /* NULL: no prediction */
    bool quiet;
    char **program;              /* PROGRAM ARGS..., NULL-terminated */
    int nprogram;
    char **command;              /* memfbench's own argv up to the program, for the file */
    int ncommand;
};

/* The whole study; returns the exit status (the analysis's when it prints the verdict). */
int mfb_ab_study(struct mfb_ab *ab, const struct mfb_ab_request *rq);

#endif
