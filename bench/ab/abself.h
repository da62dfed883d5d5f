/* memfbench run as a child of memfbench ab: the variants' check before the runs (abverify.c) and
 * the replays of --predict-from (abpredict.c). Supervised like the program's runs: a stop request
 * to ab reaches it and its processes, which end within a second. */
#ifndef MFB_ABSELF_H
#define MFB_ABSELF_H

#include "ab/ab.h"
#include "base/error.h"
#include "programs/run.h"

/* Room for a child's argv: the common head below, a -v per variant, and a few options more. */
#define MFB_AB_SELF_ARGV (24 + 2 * MFB_AB_MAX_VARIANTS)

/* The head of a memfbench run child's argv, as the check and the replays share it: "memfbench run
 * -q -f F", then SOURCE_OPTION SOURCE when given (-d TABLE, --trace FILE), -v libc when with_libc,
 * a -v per variant, and --cpu as the program's runs were pinned (cpu: room for its text). Returns
 * the entries written; the caller adds its own and the NULL. */
int mfb_ab_self_argv(const struct mfb_ab *ab, const char **argv, const char *source_option, const char *source,
                     bool with_libc, const char *const *variants, int n, char *cpu, size_t cpu_n);

/* Runs this binary with argv (what: what it does, for the messages) as memfbench's own child
 * (programs/run.h), its stdout to /dev/null and its stderr kept: 0 when it replied that it did
 * what it was asked; -1 with err otherwise: its reply's one line (why it refused or failed), or how
 * it ended without one (could not start, killed, no reply). *exit_status is then 128 + the signal
 * when a stop request ended it, MFB_EXIT_FAIL else. */
int mfb_ab_run_self(const struct mfb_ab *ab, const char *const *argv, const char *what, int *exit_status,
                    struct mfb_err *err);

#endif
