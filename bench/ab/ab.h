/* memfbench ab (docs/program-ab.md): a program run many times end to end, alternating between the
 * C library's functions and variants routed to by the ab shim (ab/shim.c), each run's wall and CPU
 * time measured. Here: the checks before anything runs, the arms, and the runs. The document is
 * ab/abfile.c's, the verdict the analysis package's (analysis/verdicts/ab.py). */
#ifndef MFB_AB_H
#define MFB_AB_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/error.h"
#include "programs/kinds.h"
#include "base/functions.h"

/* Arms beyond plain and libc: enough for a study, bounded so no array follows user input. */
#define MFB_AB_MAX_VARIANTS 8
#define MFB_AB_MAX_ARMS (MFB_AB_MAX_VARIANTS + 2)
/* Blocks of runs: each runs every arm once. */
#define MFB_AB_MAX_RUNS 10000

enum mfb_ab_arm_kind {
    MFB_AB_PLAIN,   /* the program as it is: no shim (the shim's own cost is libc against this) */
    MFB_AB_LIBC,    /* the shim, every call to the C library: the baseline of every variant */
    MFB_AB_VARIANT  /* the shim routing the function to a built-in or a plugin */
};

const char *mfb_ab_arm_kind_name(enum mfb_ab_arm_kind k);

struct mfb_ab_arm {
    enum mfb_ab_arm_kind kind;
    char name[128];
    char spec[PATH_MAX + 256];  /* MFB_AB_VARIANT: PATH:SYMBOL as the shim takes it */
    char file_sha256[65];       /* MFB_AB_VARIANT: the shared object holding the code */
    char symbol[128];
    const char *origin;         /* "builtin" or "plugin"; NULL for plain and libc */
};

struct mfb_ab_run {
    int block;          /* 0-based; blocks below the warm-up count are warm-up */
    int order;          /* position in its block */
    int arm;            /* index into the arms */
    bool warmup;
    double wall_s, user_s, sys_s;
    int64_t calls;      /* the function's calls the shim counted in the run's processes; -1: plain */
    int processes;      /* the processes that reported a count (each at its exit); 0 for plain */
    int exits_inside;   /* of those, the ones that exited inside the variant's code (it called exit) */
    bool uncounted;     /* the count file was no longer a regular file: the program replaced it */
    int leftovers;      /* processes the program left running after it ended, stopped */
    uint64_t output_bytes; /* what the program wrote to stdout and stderr */
};

struct mfb_ab {
    enum mfb_func func;
    char program[PATH_MAX];     /* as found (PATH searched), absolute */
    char program_sha256[65];
    bool script;                /* starts with #!: its interpreter is what the shim is loaded into */
    char shim[PATH_MAX], shim_sha256[65];
    char builtins[PATH_MAX];
    struct mfb_ab_arm arms[MFB_AB_MAX_ARMS];
    int narms;
    int runs, warmup;           /* measured blocks, warm-up blocks */
    int cpu;                    /* pinned CPU; -1 none */
    uint64_t seed;
    const char *program_output; /* where the program's stdout and stderr go */
    struct mfb_ab_run *done;    /* (warmup + runs) * narms entries, in the order they ran */
    int ndone;
    /* --predict-from DIR: the recording of the program, and the replay of its table timed for the
     * prediction (analysis/verdicts/ab.py) */
    char recording[PATH_MAX];   /* "" without the option */
    char replay[PATH_MAX];
    /* the recording's trace (memfbench record --trace), replayed in order beside the table; ""
     * when it has none */
    char trace[PATH_MAX + 64];
    char trace_replay[PATH_MAX];
    /* Where the replays are written: temporaries beside the result (files/temporaries.h), renamed
     * to replay and trace_replay only once the result is in place, so that an ab killed at any
     * moment leaves no replay without its result, only temporaries the next run sweeps. "": none. */
    char replay_tmp[PATH_MAX], trace_replay_tmp[PATH_MAX];
    double replay_time_s;       /* --replay-time: the replay's -t; 0: memfbench run's default */
    bool by_class;              /* --by-class: the replays time each size class too */
    uint64_t recorded_calls;    /* --predict-from: the function's calls in the recorded run */
    double watchdog_s;          /* --watchdog: a run's time limit; 0: the default rule (ab.h) */
    struct mfb_deadlines deadlines; /* --deadline: its own processes' (the check, the replays) */
    /* Where the runs' own files live (the shim's call counts): a private folder beside the result,
     * named as a memfbench temporary so that one left by a killed ab is swept by the next. */
    char work[PATH_MAX];
    uint64_t output_kept;       /* bytes copied to program_output so far */
    int leftovers;              /* processes left by all runs, stopped */
    double longest_wall_s;      /* the longest run so far: the default time limit's measure */
};

/* The default time limit of a run (no --watchdog): generous for the first run, whose length is
 * unknown; then ten times the longest run so far, at least a minute: a program that hangs (or a
 * variant that stops returning inside it) ends the study in minutes, not never, while one whose
 * runs vary with the machine's load is not cut. */
#define MFB_AB_FIRST_LIMIT_S 600.0
#define MFB_AB_LIMIT_FACTOR 10.0
#define MFB_AB_LIMIT_FLOOR_S 60.0
/* With --predict-from, libc's runs must count within this factor of the recording's calls: a
 * recording of another input, or a run without the shim (a process that drops LD_PRELOAD), does
 * other work, where a program's calls vary from one run to the next by far less. (A variant's run
 * is not held to libc's count: a program that works for a given time makes calls in proportion to
 * its share of the CPU. A variant that ends the program early is seen by the shim instead: the
 * exit was called inside the variant's code.) */
#define MFB_AB_CALLS_FACTOR 2.0
/* --program-output: of each run's output the first and the last half of this many bytes are kept
 * (a line says what was cut; the run's output is read from a pipe, only these bytes are held), and
 * the file stops growing at MFB_AB_OUTPUT_TOTAL bytes: a program that writes a lot cannot fill the
 * disk in one run or over many. */
#define MFB_AB_OUTPUT_RUN (1u << 20)
#define MFB_AB_OUTPUT_TOTAL (64ull << 20)

/* Where the shim and the built-ins library are: $MEMFBENCH_AB_SHIM / $MEMFBENCH_AB_BUILTINS, this
 * build's, or the installed ones. */
void mfb_ab_libraries(struct mfb_ab *ab);
/* Finds the program (PATH searched when it has no '/') and refuses, in one line naming it, one that
 * is missing, not a regular executable file, setuid or setgid (the loader ignores LD_PRELOAD
 * there), or statically linked (nothing to interpose). */
int mfb_ab_check_program(struct mfb_ab *ab, const char *name, struct mfb_err *err);
/* Each -v value that names a built-in names one a program can run on here (no library is loaded):
 * 0, or -1 with the value named. */
int mfb_ab_check_builtins(const struct mfb_ab *ab, const char *const *variants, int n, struct mfb_err *err);
/* The arms: plain, libc, then each -v value (a built-in's name, or PATH:SYMBOL[=NAME]), each
 * checked to load; -1 with the value named. */
int mfb_ab_arms(struct mfb_ab *ab, const char *const *variants, int n, struct mfb_err *err);
/* Makes ab->work (beside output, or in $TMPDIR for "-"); mfb_ab_free removes it. */
int mfb_ab_workspace(struct mfb_ab *ab, const char *output, struct mfb_err *err);
/* Every variant checked as memfbench run checks it (every call shape of the recorded table, or of
 * the function's default distribution), in a child process, before the program runs: a variant
 * that is wrong, crashes, exits or hangs is refused in one line. Also before any variant is
 * loaded into this process (mfb_ab_arms), whose constructor could end it. */
int mfb_ab_verify(const struct mfb_ab *ab, const char *const *variants, int n, struct mfb_err *err);
/* Runs every block (warm-up first), arms in a random order per block drawn from the seed; a run
 * that fails, outlives its limit, cannot be counted, does no work or is ended by its variant (an
 * exit inside the variant's code) ends it with the run, the arm and the reason named. A stop request ends it with MFB_EXIT_INTERRUPTED in
 * *exit_status; other failures MFB_EXIT_FAIL. */
int mfb_ab_run_all(struct mfb_ab *ab, char **argv, bool quiet, int *exit_status, struct mfb_err *err);
/* The one input/output rule of every subcommand (base/inputs.c), for ab: neither -o (output) nor
 * --program-output names an input (the program, the shim and built-ins, a variant's shared object,
 * a file of the recording) nor each other. Called once the program and the recording are known,
 * with the variants as given (n of them), before anything runs. 0, or -1 with err naming the
 * output and the input. */
int mfb_ab_check_outputs(const struct mfb_ab *ab, const char *const *variants, int n, const char *output,
                         struct mfb_err *err);
/* --predict-from DIR, read in full before the first run: the function's table and trace (regular
 * files, replayable), provenance.json (the function's call count a whole number from 1 to 2^53,
 * the recorded program the one given). */
int mfb_ab_check_recording(struct mfb_ab *ab, const char *dir, const char *output, struct mfb_err *err);
/* A study (memfbench run, this binary; default but for --replay-time and --by-class) of libc and the
 * -v values on the recorded table, pinned as the runs were, for ab->replay; and, when the
 * recording has a trace, one of the trace in order for ab->trace_replay; each into its temporary
 * (mfb_ab_settle_replays puts them in place). */
int mfb_ab_replay(struct mfb_ab *ab, const char *const *variants, int n, bool quiet, int *exit_status,
                  struct mfb_err *err);
/* Renames the replays into place (OUTPUT.replay.json, OUTPUT.trace-replay.json): once the result
 * is. 0, or -1 with err naming the replay that could not be. */
int mfb_ab_settle_replays(struct mfb_ab *ab, struct mfb_err *err);
/* Removes the replays this study wrote (its result could not be written: they have no result). */
void mfb_ab_unlink_replays(struct mfb_ab *ab);
void mfb_ab_free(struct mfb_ab *ab);

#endif
