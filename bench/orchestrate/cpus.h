/* The CPUs of a run's timing threads (--threads, --cpus) and of its --background stressors,
 * resolved and checked against this machine: every CPU must exist, be online and be one this
 * process may run on; none may be listed twice or serve both. */
#ifndef MFB_CPUS_H
#define MFB_CPUS_H

#include <stdbool.h>

#include "base/error.h"
#include "machine/background.h"
#include "study/study.h"
#include "measure/team.h"

struct mfb_cpu_plan {
    int threads;
    int cpus[MFB_MAX_THREADS];        /* thread k's CPU */
    int nbackground;
    int background[MFB_MAX_BACKGROUND];
};

/* What a command asks of its threads' CPUs (memfbench run's timing threads, the probe's
 * bandwidth threads). */
struct mfb_cpu_request {
    const char *cmd;    /* "memfbench run": the messages' prefix */
    const struct mfb_cpu_list *list; /* --cpus LIST, parsed (NULL or n 0: not given) */
    long threads;       /* --threads N; 0: not given */
    int cpu;            /* --cpu N, -1: none */
    bool cpu_given;
    int max;            /* threads the command takes */
};

/* The threads' CPUs into cpus[0..*n): --cpus in its order, each checked; else --cpu (or
 * default_cpu) first, then the other allowed CPUs from the highest. Refused in one line: a CPU
 * that does not exist, is offline or is outside the affinity, a list that disagrees with --threads
 * or --cpu, more threads than CPUs. */
int mfb_cpus_threads(const struct mfb_cpu_request *q, int default_cpu, int *cpus, int *n, struct mfb_err *err);
/* The plan for the study; thread 0's CPU is --cpus's first, else --cpu, else default_cpu. */
int mfb_cpus_plan(const struct mfb_study *c, int default_cpu, struct mfb_cpu_plan *p, struct mfb_err *err);
/* The study's plan, made once (default CPU: the last allowed), the study checked with its threads
 * (the checks that need no CPU come first, so a missing -o is named before a CPU that is not
 * there), and its CPU resolved: thread 0's from --cpus, else --cpu, else the last allowed. 0, or
 * -1 with err. */
int mfb_cpus_plan_study(struct mfb_study *c, struct mfb_cpu_plan *p, struct mfb_err *err);
/* The last CPU this process may run on (CPU 0 usually takes more interrupts); -1 when unknown. */
int mfb_cpus_last_allowed(void);
/* Where CPU cpu sits, from sysfs topology. */
void mfb_cpus_place(int cpu, struct mfb_thread_place *out);

#endif
