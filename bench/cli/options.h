/* Command-line parsing of `memfbench run` into a study description (measure/study.h), with
 * defaults left unresolved (0/NULL/-1) so the run can record what it resolved them to. */
#ifndef MFB_OPTIONS_H
#define MFB_OPTIONS_H

#include <stdio.h>

#include "base/error.h"
#include "measure/study.h"

void mfb_options_usage(FILE *out);
/* Returns 0 to run, 1 when --help was printed, -1 on a bad command line (message in err). */
int mfb_options_parse(int argc, char **argv, struct mfb_study *s, struct mfb_err *err);
/* The checks between options, after each was applied (a value that needs another's, two that
 * exclude each other, budgets that leave a process too little), and the defaults that follow
 * from what was given: 0, or -1 with err. mfb_options_parse ends with it; the fuzz target and the
 * tests reach it through mfb_options_parse. */
int mfb_options_check(struct mfb_study *c, struct mfb_err *err);

#endif
