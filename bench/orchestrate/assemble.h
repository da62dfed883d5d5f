/* Assembling a run from a study: its variants, caches, instruments, calls and the warnings its
 * working set earns. Built-ins and their A/A copies are placed at the
 * code placements the process's layout gives them (a copy never at its original's), plugins are
 * loaded with the guard told which one is loading, and every name is checked to be new. */
#ifndef MFB_ASSEMBLE_H
#define MFB_ASSEMBLE_H

#include "base/error.h"
#include "measure/run.h"
#include "machine/cache.h"
#include "study/study.h"
#include "machine/timer.h"
#include "measure/workset.h"
#include "workload/distribution.h"
#include "workload/sweep.h"
#include "workload/trace.h"

/* Fills r->vars from c->variants (or the function's default variants when none are given);
 * r->layout and r->activity must be set. -1 with the message in err on an unknown, unavailable
 * or repeated variant, or a plugin that does not load. */
int mfb_assemble_variants(struct mfb_run *r, const struct mfb_study *c, struct mfb_err *err);
/* The cache geometry the run plans with: the probe file's (--cache-from, read before as probed),
 * --cache's, or the machine's; a warning when none could be read. */
void mfb_assemble_caches(struct mfb_caches *caches, const struct mfb_study *c, const struct mfb_caches *probed,
                         struct mfb_warnings *warn);
/* The clock (into timer), the --icache-pressure block and the counters of r, on the pinned thread
 * that times the batches (perf_event counts the thread that opens it), each with its note. */
int mfb_assemble_instruments(struct mfb_run *r, struct mfb_timer *timer, const struct mfb_study *c, struct mfb_err *err);
/* The calls' source into dist: a --trace (loaded into trace), a --sweep (allocated into *sweep, the
 * caller's to free), or the distribution (-d, else the function's fleet table). */
int mfb_assemble_workload(struct mfb_run *r, struct mfb_dist *dist, struct mfb_trace *trace, struct mfb_sweep **sweep,
                          const struct mfb_study *c, struct mfb_err *err);
/* The configuration resolved before anything is measured or any process starts: the variants
 * (plugins loaded, names checked; into r), the calls' source (distribution, trace or sweep), the
 * probe file of --cache-from (into probed), and an output path (NULL: stdout) that is none of the
 * run's inputs. Everything that fails here is the user's to fix on the command line: the caller
 * makes it a usage error (exit 2), said once, by the parent of a study. -1 with err. */
int mfb_assemble_config(struct mfb_run *r, const char *output, struct mfb_dist *dist, struct mfb_trace *trace,
                        struct mfb_sweep **sweep, struct mfb_caches *probed, struct mfb_err *err);
/* The planned working set's warnings: a small limit reduced below the default, a large window
 * less than twice the LLC. */
void mfb_assemble_workset_warnings(const struct mfb_workset *ws, const struct mfb_caches *caches,
                                   struct mfb_warnings *warn);

#endif
