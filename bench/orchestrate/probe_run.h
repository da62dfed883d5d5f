/* memfbench probe's run, from its configuration to its file (the command line is cli/cmd_probe.c). */
#ifndef MFB_PROBE_RUN_H
#define MFB_PROBE_RUN_H

#include <stdbool.h>

#include "base/cpulist.h"
#include "probe/probe.h"

/* What the probe's command line gave besides the configuration: which defaults it overrode. */
struct mfb_probe_given_args {
    bool max_given, cpu_given, threads_given, seed_given, steps_given, repeats_given;
    struct mfb_cpu_list cpus; /* --cpus, parsed (n 0: not given) */
};

/* Runs the probe: the exit status. */
int mfb_probe_execute(struct mfb_probe_config *cfg, const struct mfb_probe_given_args *a);

#endif
