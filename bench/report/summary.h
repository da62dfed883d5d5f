/* The short human summary printed on stderr at the end of a run. The Python analysis computes
 * the full statistics; this is the at-a-glance view. */
#ifndef MFB_SUMMARY_H
#define MFB_SUMMARY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "measure/run.h"

/* The command that analyses a result file, as one line. */
void mfb_summary_analysis_command(FILE *out, const char *result_path);
void mfb_summary_print(FILE *out, const struct mfb_run *r, const char *output_path);

/* A sweep's table: per point (at most SWEEP_ROWS of them, evenly spaced) each variant's median
 * ns/call and its ratio to the first variant (median over rounds of the paired ratio). lo/hi
 * give each point's sizes (class k + 1 of the samples). */
void mfb_summary_print_sweep(FILE *out, const struct mfb_samples *all, const char *const *names, int nvars,
                             const uint64_t *lo, const uint64_t *hi, int npoints, bool rotating,
                             const char *output_path);

/* What a summary's table names: from the run itself, or read from the merged document of a
 * --processes run. */
struct mfb_summary_view {
    const char *function, *distribution, *cpu_model, *clock;
    const char *shape;        /* the line under the title: rounds and batch shape, or processes and batches */
    const char *const *names; /* variant names, baseline first */
    int nvars, processes;     /* processes > 1: ratios per process, their median and range */
    double rounds_s;          /* seconds of rounds, summed over the processes (those left out too) */
    const char *background;   /* --background, merged: a line on the stressors (NULL: none) */
    bool rotating;            /* --code-rotation round: ratios averaged over placement turns */
    bool one_process_note;    /* --processes 1: say what one process's figures cover */
    const char *sentinel;     /* the layout sentinel added to a study of plugins (NULL: none) */
    const bool *left_out;     /* merged: per process, whether the table leaves it out (a starved
                               * process whose slot ran again); NULL: none */
};
/* The same table for the merged samples of several processes (its shape line made here from v):
 * ns/call over every measured batch, and the paired ratio as the median over processes of each
 * process's median ratio, with the range of the per-process ratios. */
void mfb_summary_print_merged(FILE *out, const struct mfb_samples *all, const struct mfb_summary_view *v,
                              const char *output_path);

/* Each source variant's build, a line each: built (and how long it took) or found in the cache, so
 * that a second run can be seen to compile nothing. */
void mfb_summary_print_builds(FILE *out, const struct mfb_run *run);

#endif
