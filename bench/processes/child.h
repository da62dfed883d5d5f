/* The process boundary of --processes: a child's result file read once into a typed result. The
 * parent never looks a field up in a child's JSON after this, and never edits a child's tree: the
 * merged file is built from the study and these results (processes/merge.c). */
#ifndef MFB_CHILD_H
#define MFB_CHILD_H

#include <cJSON.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/error.h"
#include "base/warn.h"
#include "report/host.h"
#include "machine/layout.h"
#include "measure/run.h"
#include "measure/samples.h"
#include "study/study.h"

/* --background: one process's stressor, as its document recorded it. */
struct mfb_child_background {
    char *stressor;
    int cpus;
    double seconds;
    bool rated;          /* the stressor measured its copy rate */
    double bytes_per_ns;
};

struct mfb_child_result {
    int index;                           /* the process's index in the study */
    bool complete;                       /* its status.complete */
    enum mfb_stop_reason stop_reason;    /* why its rounds ended */
    long batch_passes;                   /* the batch shape it timed (process 0 calibrates it) */
    double timer_hz;                     /* its clock's rate (process 0 calibrates it; the others check it) */
    double rounds_s;                     /* seconds of rounds */
    long measured_rounds;                /* its rounds less warm-up: too few, and the parent runs its slot again */
    int rerun_of;                        /* the index of the process whose design slot it ran again; -1: none */
    double lifetime_s;                   /* the parent's: from its spawn to its end (exec, set-up, rounds,
                                          * writing its file and exiting) */
    double merge_s;                      /* the parent's: reading its file and merging its samples */
    char dropped[160];                   /* why the parent ran its slot again ("" when it did not): the
                                          * analysis leaves it out (its processes[].dropped) */
    int nvars;                           /* variants, baseline first */
    char *names[MFB_MAX_VARIANTS];
    bool harness[MFB_MAX_VARIANTS];      /* origin "harness": never compared (the noop) */
    double linearity[MFB_MAX_VARIANTS];  /* its batch-shape linearity per variant (NaN: not recorded) */
    double linearity_tolerance;          /* batch.linearity_tolerance (0: not recorded) */
    int sentinel;                        /* the layout sentinel's index (variants[].layout_sentinel), -1: none */
    struct mfb_process_placements placements; /* its code placements (-1: none), for the stop rule's model */
    char *function, *distribution, *clock;
    struct mfb_host *host;               /* its host block, typed (host->cpu.model names the CPU) */
    enum mfb_code_rotation rotation;
    bool sweep;                          /* a --sweep: classes are its points */
    int nclasses;                        /* --by-class or --sweep: the classes' size ranges */
    uint64_t *class_lo, *class_hi;
    bool has_background;
    struct mfb_child_background background;
    struct mfb_warnings warnings;        /* its status.warnings, by kind (a code this build does not know is dropped) */
    cJSON *entry;     /* its processes[] entry: what differs between processes */
    cJSON *sections;  /* with keep_sections: its document without the samples, in order */
};

/* Reads child i's (of k) file at path: its samples are appended to all with process index i, the
 * rest becomes out. keep_sections keeps the document's study-level sections (process 0's make the
 * merged file). Returns 0, or -1 with a one-line reason in err naming the process and the field. */
int mfb_child_read(const char *path, int i, int k, bool keep_sections, struct mfb_samples *all,
                   struct mfb_child_result *out, struct mfb_err *err);

/* The same from a parsed document (its samples are not read): the round-trip test's entry. */
int mfb_child_from_json(const cJSON *doc, int i, int k, bool keep_sections, struct mfb_child_result *out,
                        struct mfb_err *err);

/* Whether b is a process of the same study as a (function, distribution, variants): -1 with the
 * difference in err when not. */
int mfb_child_same_study(const struct mfb_child_result *a, const struct mfb_child_result *b, int k,
                         struct mfb_err *err);

void mfb_child_free(struct mfb_child_result *r);

#endif
