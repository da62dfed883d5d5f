/* One study (`memfbench run ... -o FILE -q`) run as memfbench's own child, for the commands that
 * are made of studies (suite, tune): started, bounded, stopped and judged by the one runner
 * (programs/run.h), its failure said in one line that names the study. */
#ifndef MFB_STUDY_CHILD_H
#define MFB_STUDY_CHILD_H

#include "programs/kinds.h"

/* Runs memfbench with argv (argv[0] is replaced; argv[1] is "run"). who prefixes the line a failure
 * prints, what names the study in it ("the study of memcpy on fleetbench/Memcpy_3") and nothing
 * ends it ("no suite written"). What a quiet study still said on stderr is passed on. Returns 0,
 * 128 + the signal when a stop request ended it, its exit status (else 1) when it failed. */
int mfb_study_child_run(const char *who, const char *what, const char *nothing, char **argv,
                        const struct mfb_deadlines *deadlines);

#endif
