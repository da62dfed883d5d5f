/* The CPUs of a run's timing threads (--threads, --cpus) and of its --background stressors,
 * resolved and checked against this machine: every CPU must exist, be online and be one this
 * process may run on; none may be listed twice or serve both. */
#ifndef MFB_CPUS_H
#define MFB_CPUS_H

#include "base/error.h"
#include "measure/background.h"
#include "measure/study.h"
#include "measure/team.h"

struct mfb_cpu_plan {
    int threads;
    int cpus[MFB_MAX_THREADS];        /* thread k's CPU */
    int nbackground;
    int background[MFB_MAX_BACKGROUND];
};

/* The plan for the study; thread 0's CPU is --cpus's first, else --cpu, else default_cpu. */
int mfb_cpus_plan(const struct mfb_study *c, int default_cpu, struct mfb_cpu_plan *p, struct mfb_err *err);
/* The last CPU this process may run on (CPU 0 usually takes more interrupts); -1 when unknown. */
int mfb_cpus_last_allowed(void);
/* Where CPU cpu sits, from sysfs topology. */
void mfb_cpus_place(int cpu, struct mfb_thread_place *out);

#endif
