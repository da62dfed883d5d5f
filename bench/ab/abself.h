/* memfbench run as a child of memfbench ab: the variants' check before the runs (abverify.c) and
 * the replays of --predict-from (abpredict.c). Supervised like the program's runs: a stop request
 * to ab reaches it and its processes, which end within a second. */
#ifndef MFB_ABSELF_H
#define MFB_ABSELF_H

#include "base/error.h"

/* Runs this binary with argv (what: what it does, for the messages), its stdout to /dev/null and its
 * stderr to stderr_path (NULL: ab's). 0 with its exit status in *status; -1 with err when it could
 * not start or was stopped (then *exit_status is MFB_EXIT_INTERRUPTED). */
int mfb_ab_run_self(const char *const *argv, const char *what, const char *stderr_path, int *status,
                    int *exit_status, struct mfb_err *err);

#endif
