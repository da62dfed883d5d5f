/* --processes K: the same study in K fresh processes (new address-space layout, buffers, seeds),
 * run one after another on the same CPU, their samples merged into one file with a process index
 * so within- and between-process variance can be separated. */
#ifndef MFB_PROCESSES_H
#define MFB_PROCESSES_H

#include "base/error.h"
#include "measure/run.h"
#include "study/study.h"
#include "report/output.h"

/* Runs the children and writes the merged document through out; assembled is the parent's run as
 * assembled before them (its source variants' builds go into the file). Returns the exit status. */
int mfb_run_processes(const struct mfb_study *cfg, const struct mfb_run *assembled, struct mfb_output *out,
                      uint64_t master_seed, struct mfb_err *err);

#endif
