/* The kinds of program memfbench starts, and the bounds each gets: how long it may run (its
 * deadline), how long it has to end once asked (its grace) and how much memory it may map. A
 * kind's row says why its numbers are what they are; `--deadline KIND=SECONDS` changes a deadline
 * for one command (docs/reliability.md, "Programs memfbench starts"). */
#ifndef MFB_KINDS_H
#define MFB_KINDS_H

#include <stdbool.h>
#include <stdint.h>

#include "base/error.h"

enum mfb_prog_kind {
    MFB_PROG_TOOL,     /* a quick question to a tool: cc --version, git describe, valgrind --version */
    MFB_PROG_BUILD,    /* one step of a source variant's build: the compiler, the assembler, the linker */
    MFB_PROG_TRAINING, /* --pgo's training replay of the instrumented build, and the profile merge */
    MFB_PROG_VALGRIND, /* one variant's replay under callgrind (memfbench counts) */
    MFB_PROG_PROCESS,  /* a process of memfbench's own: a study's process, ab's check and replays, a suite's study */
    MFB_PROG_PROGRAM,  /* the user's program (ab's runs, record's program) */
};
#define MFB_PROG_KINDS 6

struct mfb_prog_kind_info {
    const char *name;      /* as --deadline names it */
    const char *what;      /* for messages: "a build step" */
    double deadline_s;     /* default deadline; 0: none */
    double grace_s;        /* from a stop request (or the deadline) to SIGKILL of its group */
    uint64_t memory;       /* RLIMIT_AS of the program; 0: the system's */
};

const struct mfb_prog_kind_info *mfb_prog_kind(enum mfb_prog_kind kind);

/* The deadlines a command was given: 0 where its kind's default holds, a negative value for none. */
struct mfb_deadlines {
    double s[MFB_PROG_KINDS];
};

/* "KIND=SECONDS[,KIND=SECONDS...]" (SECONDS a positive number, or "none") into d, on top of what
 * it holds: 0, or -1 with "--deadline: ..." in err naming the part that is wrong. */
int mfb_deadlines_parse(const char *arg, struct mfb_deadlines *d, struct mfb_err *err);
/* The deadline of kind in seconds under d (NULL: the defaults); 0: none. */
double mfb_deadline_of(const struct mfb_deadlines *d, enum mfb_prog_kind kind);
/* d as --deadline would give it, only the kinds set ("" when none): for a child's command line. */
void mfb_deadlines_format(const struct mfb_deadlines *d, char *out, unsigned cap);

/* The option's help, for every command's rows (base/flags.h MFB_ROW_DEADLINE). */
#define MFB_DEADLINE_HELP \
    "bound a kind of program memfbench starts: build, training, valgrind,\n" \
    "process, program or tool, in seconds or none (defaults:\n" \
    "docs/reliability.md); repeatable, e.g. --deadline build=60,valgrind=none"

#endif
