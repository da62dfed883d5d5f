/* Warnings and notes of a run, kept for the output file. A warning is something the user can act
 * on (a governor, boost, load): printed once on stderr as it happens. A note is context the user
 * cannot change here (a table's overlap that the function forbids, a virtual machine's CPUs): kept
 * in the file and shown by the analysis, never printed during the run.
 *
 * Every kind is one row of one table (warn.c): its code, severity, what it costs the measurement
 * and what to do. A call site says only what it found, with the values; the row adds the rest, so
 * no warning reaches the user without its consequence and its fix, and `memfbench list --warnings`
 * prints the table the docs are made from. */
#ifndef MFB_WARN_H
#define MFB_WARN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MFB_MAX_WARNINGS 64

enum mfb_severity { MFB_SEV_WARNING, MFB_SEV_NOTE };

/* The kinds, in the table's order (their bit in a --quiet-warnings mask). */
enum mfb_warning {
    MFB_W_BATCH, MFB_W_BOOST, MFB_W_BUILD, MFB_W_CACHES, MFB_W_CLOCK, MFB_W_COUNTERS, MFB_W_COUNTERS_ABSENT,
    MFB_W_GOVERNOR, MFB_W_HUGE_PAGES, MFB_W_ISOLATION, MFB_W_LARGE_WINDOW, MFB_W_LINEARITY, MFB_W_LOAD,
    MFB_W_LONG_CALLS, MFB_W_MAX_BATCHES, MFB_W_MEMORY, MFB_W_OVERLAP, MFB_W_PLACEMENT_CHECK, MFB_W_SMALL_MAX,
    MFB_W_SMT, MFB_W_SMT_BUSY, MFB_W_SOURCE_ALIGNMENT, MFB_W_TARGET_CI, MFB_W_THP, MFB_W_THREADS, MFB_W_VERIFICATION, MFB_W_VIRTUAL_CPU,
    MFB_W_WARMUP,
    MFB_W_COUNT
};

/* One row of the table. */
struct mfb_warning_kind {
    const char *code;        /* short stable key, e.g. "governor": --quiet-warnings, the file */
    enum mfb_severity severity;
    const char *consequence; /* what the finding does to the numbers */
    const char *fix;         /* what the user can do (a note: why nothing needs doing) */
};

const char *mfb_severity_name(enum mfb_severity s);
const struct mfb_warning_kind *mfb_warning_kind(enum mfb_warning w);

/* Parses "CODE[,CODE...]" or "all" into a mask over that table; -1 with the offending code in bad. */
int mfb_warning_mask(const char *list, uint64_t *mask, char *bad, size_t bad_cap);
/* True when code is in mask (an unknown code never is). */
bool mfb_warning_silenced(uint64_t mask, const char *code);
/* The kind whose code is code, or -1 (a file from another build). */
int mfb_warning_of_code(const char *code);

struct mfb_warnings {
    char *msg[MFB_MAX_WARNINGS]; /* the whole line: finding, consequence, fix */
    enum mfb_warning kind[MFB_MAX_WARNINGS];
    int processes[MFB_MAX_WARNINGS]; /* a study's list: how many of its processes had it (0: one run's) */
    bool others[MFB_MAX_WARNINGS];   /* a study's list: the kind was said of other variants too (the
                                      * message is the first's; each process's are in its entry) */
    int n;
    bool quiet;       /* -q: nothing printed */
    uint64_t silenced; /* --quiet-warnings: these codes are recorded but not printed */
};

/* Records (and, for a warning, prints) what was found, followed by the kind's consequence and fix:
 * "FINDING: CONSEQUENCE. Fix: FIX". */
void mfb_warn(struct mfb_warnings *w, enum mfb_warning kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Records a message as it was written (read back from a file, or composed whole by the merge),
 * without printing it: 0, or -1 when the list is full or memory is out (the message is dropped). */
int mfb_warnings_add(struct mfb_warnings *w, enum mfb_warning kind, const char *msg, int processes);
/* The whole line of a warning of this kind (finding, consequence, fix), as mfb_warn makes it, into
 * buf of n bytes: for a list made without printing (a study's, processes/merge.c). */
void mfb_warning_line(enum mfb_warning kind, const char *found, char *buf, size_t n);
void mfb_warnings_free(struct mfb_warnings *w);

#endif
