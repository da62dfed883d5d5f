/* Command-line parsing of `memfbench run` into a configuration, with defaults left unresolved
 * (0/NULL) so the run can record what it resolved them to. */
#ifndef MFB_CLI_H
#define MFB_CLI_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "functions.h"
#include "params.h"
#include "workset.h"

#define MFB_MAX_VARIANTS 32

struct mfb_config {
    enum mfb_func func;
    const char *distribution;          /* NULL: the function's fleet table */
    const char *variants[MFB_MAX_VARIANTS];
    int nvariants;                     /* 0: libc, every available built-in, noop */
    double time_s;                     /* budget for the rounds; 0 with rounds: unlimited */
    bool time_given;
    long rounds;                       /* measured rounds; 0: until the time budget */
    long warmup_rounds;                /* -1: detected from the data */
    double target_ci;                  /* percent; 0: off */
    long processes;                    /* fresh processes whose samples are merged */
    long process_index;                /* set by the parent for each child; -1 in the parent */
    enum mfb_placement placement;
    int cpu;                           /* -1: do not pin */
    bool cpu_given;
    uint64_t seed;
    bool seed_given;
    const char *output;
    enum mfb_align_mode align_mode;
    const char *clock;
    size_t l1d, l2, llc;               /* cache overrides; 0: detect */
    const char *dist_dir;
    bool quiet;
    int argc;
    char **argv;
};

void mfb_run_usage(FILE *out);
/* Returns 0 to run, 1 when --help was printed, -1 on a bad command line (message in err). */
int mfb_cli_parse_run(int argc, char **argv, struct mfb_config *c, struct mfb_err *err);

#endif
