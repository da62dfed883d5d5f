/* memfbench run's study, from its checked request to its file (the command line is cli/). */
#ifndef MFB_STUDY_RUN_H
#define MFB_STUDY_RUN_H

#include "orchestrate/cpus.h"
#include "study/study.h"

/* Runs the study (its seed resolved) on its CPU plan below a random stack offset: the exit status. */
int mfb_study_execute(const struct mfb_study *cfg, const struct mfb_cpu_plan *plan);
/* A command line memfbench run refuses: the line on stderr, and on the reply channel where a
 * memfbench started this run (programs/reply.h); MFB_EXIT_USAGE. */
int mfb_study_refuse(const char *line);

#endif
