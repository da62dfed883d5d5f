/* The program `memfbench record` runs: started with the recorder preloaded and its settings in the
 * environment, waited for, and stopped within a second when record is asked to stop (SIGINT,
 * SIGTERM, SIGHUP): the request is passed on, and the program and every process it left behind
 * are killed 0.75 s later if it has not ended (orchestrate/supervise.h). It is started with PR_SET_PDEATHSIG = SIGTERM, so
 * it never runs on as an orphan of a killed record. */
#ifndef MFB_PROGRAM_H
#define MFB_PROGRAM_H

#include <stddef.h>

struct mfb_program_env {
    const char *preload;  /* the recorder library, put first in LD_PRELOAD */
    const char *raw_dir;  /* where its processes write their counts */
    const char *rate;     /* --rate's N, as given */
    const char *flush;    /* --flush S, or NULL */
    const char *trace;    /* --trace N, or NULL */
};

/* Where a library memfbench preloads or loads into a program lives (the recorder, the ab shim, the
 * built-ins): $env when set, else this build's copy when it exists, else the installed one. */
const char *mfb_program_library(const char *env, const char *build_path, const char *install_path);

/* The executable a command name runs, as a shell would find it: the name itself when it has a
 * '/', else the first regular, executable file of that name on PATH (an empty entry is the
 * current folder; no PATH searches /usr/local/bin:/usr/bin:/bin). 0, or -1 when none is found or
 * the path does not fit in out's n bytes. */
int mfb_program_find(const char *name, char *out, size_t n);

/* Runs argv; returns its exit status (128 + signal when killed), 127 when it could not be started.
 * Installs record's handlers for SIGINT, SIGTERM and SIGHUP. */
int mfb_program_run(char **argv, const struct mfb_program_env *env);

#endif
