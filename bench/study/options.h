/* The options of a study (memfbench run and sweep), one row each (base/flags.h): the command line
 * is parsed, a study's request echoed into its result file and a --processes child's command
 * line written from the same rows. Checking is pure and apart from resolving the defaults. */
#ifndef MFB_STUDY_OPTIONS_H
#define MFB_STUDY_OPTIONS_H

#include <cJSON.h>

#include "base/error.h"
#include "base/flags.h"
#include "study/study.h"

/* memfbench run's table: its rows in the order --help lists them. */
const struct mfb_flag_table *mfb_study_flags(void);

/* Every member at its row's initial value (memcpy, MFB_DEFAULT_TIME_S over MFB_DEFAULT_PROCESSES
 * processes, detected warm-up, auto placement, exact alignment, ...), no CPU decided yet, the
 * shipped distributions in dist_dir. */
void mfb_study_defaults(struct mfb_study *s, const char *dist_dir);
/* The defaults that follow from what was given (a fresh seed, a --target-ci study's time cap, --rounds alone
 * without one, a trace's single pass, processes fitted to a short --time). */
void mfb_study_resolve(struct mfb_study *s);
/* The checks between options, on a resolved study (a value that needs another's, two that
 * exclude each other, budgets that leave a process too little); threads: timing threads the CPU
 * plan gives (each keeps a batch per round, and with several an alone batch too), 0 when the
 * study does not place them. Changes nothing: 0, or -1 with err. */
int mfb_study_check(const struct mfb_study *s, long threads, struct mfb_err *err);

/* The request as the result file's config echoes it: every row with an echo key, in row order. */
void mfb_study_echo(cJSON *cfg, const struct mfb_study *s);
/* --pgo's training seed: --pgo-seed's, else MFB_PGO_DEFAULT_SEED. */
uint64_t mfb_study_pgo_seed(const struct mfb_study *s);

/* A --processes child's command line: "memfbench run", each option of the parent's command line
 * that is passed on (as the parent was given it), then each the parent sets, from child (its
 * seed, index, share, file). *argv (NULL-terminated) and the strings it points into are one
 * allocation, free()d by the caller. 0, or -1 with err. */
int mfb_study_child_argv(const struct mfb_study *parent, const struct mfb_study *child, char ***argv,
                         struct mfb_err *err);

#endif
