/* The CPU plan (orchestrate/cpus.h) applied to one process's run: where it is pinned, where its
 * timing threads and stressors sit, and whether their working sets fit the memory available. */
#ifndef MFB_PLAN_H
#define MFB_PLAN_H

#include "base/error.h"
#include "machine/background.h"
#include "machine/cache.h"
#include "measure/run.h"
#include "study/study.h"
#include "measure/workset.h"
#include "orchestrate/cpus.h"

/* Pins the process to the study's CPU (resolved with the plan: --cpus's first, --cpu, else the last
 * allowed, as CPU 0 usually takes more interrupts); -1: not pinned. 0, or -1 with err. */
int mfb_plan_pin(const struct mfb_study *c, struct mfb_err *err);

/* --threads: the team's CPUs and where they sit (recorded for one thread too); a note when two
 * timing threads share a core. */
int mfb_plan_team(struct mfb_run *r, const struct mfb_study *c, const struct mfb_cpu_plan *plan,
                  struct mfb_err *err);

/* --background: the stressor's CPUs and buffers. */
void mfb_plan_background(struct mfb_background *b, const struct mfb_study *c, const struct mfb_cpu_plan *plan,
                         const struct mfb_caches *caches);

/* Every timing thread faults in a working set of its own, and every bandwidth stressor two
 * buffers: refused before any is allocated when together they exceed what the kernel says is
 * available, rather than meeting the OOM killer halfway. */
int mfb_plan_check_memory(const struct mfb_study *c, const struct mfb_cpu_plan *plan, const struct mfb_workset *ws,
                          const struct mfb_caches *caches, struct mfb_err *err);

#endif
