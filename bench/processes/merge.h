/* The merged file of a --processes study, built from the study and the children's typed results
 * (processes/child.h): never by editing a child's document. */
#ifndef MFB_MERGE_H
#define MFB_MERGE_H

#include <cJSON.h>
#include <stdbool.h>
#include <stdint.h>

#include "measure/run.h"
#include "measure/samples.h"
#include "study/study.h"
#include "processes/child.h"

/* How the study ended, as the orchestrator knows it. */
struct mfb_merge_end {
    int planned;                         /* processes planned (the most, with --target-ci), re-runs included */
    int reruns;                          /* of them, starved slots run again: the study asked for planned - reruns */
    int done;                            /* processes that finished, results[0..done) */
    bool targeted;                       /* --target-ci over processes */
    enum mfb_stop_reason stop_reason;    /* targeted: why it stopped (NONE: interrupted) */
    bool reached;                        /* targeted: every compared interval reached the target */
    const bool *compared;                /* targeted: per variant, compared with the baseline */
    const double *widths;                /* targeted: per variant, the half-width reached */
    const struct mfb_run *assembled;     /* the parent's run as assembled before the first process (its
                                          * source variants built there: the children found them built) */
};

/* Whether the study is complete: every planned process ran (or the stop rule ended it) and each
 * of them completed its rounds. */
/* The study's warnings: every process's, one per kind, in the order they first came, with the first
 * process's message that had it and how many of the study's processes had it (a placement check
 * that failed in 9 of 10 processes is a warning of the study even when the first one passed); then,
 * with --target-ci, one when the study ended short of the target. out is the caller's to free
 * (mfb_warnings_free). */
void mfb_merge_warnings(const struct mfb_study *cfg, const struct mfb_child_result *results,
                        const struct mfb_merge_end *end, struct mfb_warnings *out);
bool mfb_merge_complete(const struct mfb_child_result *results, const struct mfb_merge_end *end);

/* The merged document: process 0's study-level sections, in their order, with the study's command
 * line, process count, budget and master seed, the merged status, every process's entry, and each
 * source variant's build as the parent made or found it. */
cJSON *mfb_merge_document(const struct mfb_study *cfg, const struct mfb_child_result *results,
                          const struct mfb_merge_end *end, uint64_t master_seed);

/* The end-of-run table of the merged samples, from the typed results. */
void mfb_merge_print_summary(const struct mfb_child_result *results, int done, const struct mfb_samples *all,
                             const char *output);

#endif
