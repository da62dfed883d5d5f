/* memfbench run's command line into a study (study/study.h): the rows are the study's
 * (study/options.c); this file reads argv and the environment with them. */
#ifndef MFB_OPTIONS_H
#define MFB_OPTIONS_H

#include <stdio.h>

#include "base/error.h"
#include "orchestrate/cpus.h"
#include "study/study.h"

void mfb_options_usage(FILE *out);
/* memfbench sweep --help: its form, then the run options it takes. */
void mfb_sweep_usage(FILE *out);
/* Parses argv into s, resolves the defaults that follow from it, makes the CPU plan (plan) and
 * checks the study against it. Returns 0 to run, 1 when --help was printed, -1 on a bad command
 * line (message in err). */
int mfb_options_parse(int argc, char **argv, struct mfb_study *s, struct mfb_cpu_plan *plan, struct mfb_err *err);

#endif
