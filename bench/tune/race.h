/* memfbench tune's run (issue 55): a family of source builds raced in paired studies against a
 * baseline, candidates dropped as the analysis finds them worse than the leader, then a fresh study
 * of the leader, the runner-up and the baseline, the leader's gain on the function's other
 * distributions, and the leader as a C file; all in one folder written whole. The command line is
 * cli/cmd_tune.c; the racing rule is the analysis's (analysis/verdicts/race.py). */
#ifndef MFB_TUNE_RACE_H
#define MFB_TUNE_RACE_H

#include <stdbool.h>

#include "base/functions.h"
#include "programs/kinds.h"
#include "study/params.h"

/* --check-on: distributions besides the shipped ones of the function. */
#define MFB_TUNE_CHECKS_MAX 16

struct mfb_tune_request {
    const char *out;                          /* -o DIR */
    enum mfb_func func;
    const char *distribution;                 /* -d: the race's (NULL: the function's fleet table) */
    const char *family;                       /* --family NAME, or NULL for the user's source */
    const char *source;                       /* the family's -v FILE.c:SYMBOL[=NAME] */
    const char *param_args[MFB_PARAMS_MAX];   /* its --param rows as given */
    struct mfb_params params;                 /* the same, parsed */
    const char *baseline;                     /* a variant as -v takes it, or a setting A=1,B=2 of the family */
    double budget_s;                          /* the race's wall time */
    double margin_pct, alpha;                 /* the racing rule's (analysis/verdicts/race.py) */
    int step_processes, group;                /* a step: studies of at most group candidates, each this many processes */
    double step_time_s;
    int final_processes;                      /* the fresh study's (0: the run's default) */
    double final_time_s;                      /* its seconds of rounds (0: the run's default) */
    int check_processes;                      /* each cross-distribution study */
    double check_time_s;
    const char *checks[MFB_TUNE_CHECKS_MAX];  /* --check-on */
    int nchecks;
    bool no_checks;                           /* --no-checks: the race and the fresh study only */
    char **run_args;                          /* after --: every study's */
    int nrun_args;
    bool quiet;
    const struct mfb_deadlines *deadlines;
};

/* The defaults, as --help prints them. */
#define MFB_TUNE_BUDGET_S 600.0
#define MFB_TUNE_MARGIN_PCT 0.5
#define MFB_TUNE_ALPHA 0.05
#define MFB_TUNE_STEP_PROCESSES 4
#define MFB_TUNE_STEP_TIME_S 2.0
#define MFB_TUNE_GROUP 24
#define MFB_TUNE_CHECK_PROCESSES 8
#define MFB_TUNE_CHECK_TIME_S 2.0

/* Runs the race, the fresh study, the checks, writes the folder and prints the analysis's summary
 * (memfbench analyze tune DIR): the exit status. */
int mfb_tune_execute(const struct mfb_tune_request *r);

#endif
