/* memfbench run's command line into a study (study/study.h): the rows are the study's
 * (study/options.c); this file reads argv and the environment with them. And what every
 * command checks of its command line alike. */
#ifndef MFB_OPTIONS_H
#define MFB_OPTIONS_H

#include <stdbool.h>
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

/* A command's -o checked as every command's is, before anything runs: given (else "COMMAND: -o
 * FORM is required", FORM "DIR" or "FILE", and "('-' for stdout)" where stdout is one), into a
 * folder that is there (files/inputs.h). 0, or -1 with err. */
int mfb_options_output(const char *command, const char *form, bool dash, const char *out, struct mfb_err *err);
/* What a command that does not go on after its parse (rc: 1 at --help, -1 at a usage error) exits
 * with: 0 after --help, 2 after err's line on stderr. */
int mfb_options_end(int rc, const struct mfb_err *err);

/* Whether a word of the run options a command passes to each of its studies (suite's and tune's,
 * after --) sets one of the options own names (run's long names, "output", "variant"), the command
 * setting those itself: the name it sets, or NULL. The word is read as run's parser reads it
 * (base/flags.h mfb_flags_word_sets). */
const char *mfb_options_run_sets(const char *word, const char *const *own, size_t n);

#endif
