/* A CPU list as an option gives it ("1,0", "0-3,8"), parsed once while the options are read: the
 * CPUs in the order given, none twice. Whether each exists, is online and may be run on is the
 * machine's question, asked where the list is used (orchestrate/cpus.c). */
#ifndef MFB_CPULIST_H
#define MFB_CPULIST_H

#include <stdbool.h>

#include "base/error.h"

/* The longest list any option takes: the probe's bandwidth threads (256); a run's timing
 * threads and stressors take 64 each. */
#define MFB_MAX_LISTED_CPUS 256

struct mfb_cpu_list {
    int n;   /* 0: the option was not given */
    int cpu[MFB_MAX_LISTED_CPUS];
};

/* Parses s for option opt of command cmd ("memfbench run", "--cpus"), at most max CPUs (<=
 * MFB_MAX_LISTED_CPUS). 0, or -1 with one line naming the command, the option and the fault. */
int mfb_cpu_list_parse(const char *cmd, const char *opt, const char *s, int max, struct mfb_cpu_list *out,
                       struct mfb_err *err);

/* --cpu N of command cmd (every command that pins spells it alike): a CPU number from 0 to
 * CPU_SETSIZE - 1, or "none" (-1: not pinned) where allow_none. Whether the CPU is there is the
 * machine's question, as for a list. 0, or -1 with one line naming the command and the fault. */
int mfb_cpu_arg_parse(const char *cmd, const char *s, bool allow_none, int *cpu, struct mfb_err *err);

#endif
