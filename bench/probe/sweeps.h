/* The probe's curves as memfbench probe runs them: every latency chain and every bandwidth kernel
 * over the size grid of its configuration, with progress on stderr. On a terminal, one line
 * rewritten at every point; otherwise (a log, a CI job, a pipe) one line per stage as it starts,
 * with the time since the probe began, so a log shows where a long probe is and where its time
 * went; -q: none. */
#ifndef MFB_SWEEPS_H
#define MFB_SWEEPS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "probe/probe.h"
#include "probe/result.h"

struct mfb_probe_progress {
    bool point_lines, stage_lines; /* a line per point (a terminal), a line per stage (anything else) */
    const char *what;              /* the current sweep: "latency" or "bandwidth" */
    size_t total, done;            /* points of the current sweep */
    int stage, nstages;
    double t0;                     /* mfb_probe_now_s() when the probe began */
};

/* Seconds on CLOCK_MONOTONIC. */
double mfb_probe_now_s(void);
/* Starts stage p->stage + 1 of p->nstages: one line when p->stage_lines. */
void mfb_probe_stage(struct mfb_probe_progress *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Every latency curve (random chains on 4 KiB pages and, when had, on huge pages; the strided
 * chains) over the configuration's sizes, into r->lat. */
int mfb_probe_latency_curves(const struct mfb_probe_run *run, struct mfb_probe_result *r, struct mfb_probe_progress *pg,
                             struct mfb_err *err);
/* Every bandwidth kernel this CPU has over the configuration's sizes (from 16 KiB), into r->bw. */
int mfb_probe_bandwidth_curves(const struct mfb_probe_run *run, struct mfb_probe_result *r,
                               struct mfb_probe_progress *pg, struct mfb_err *err);

#endif
