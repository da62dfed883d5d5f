/* Warnings and notes of a run, kept for the output file. A warning is something the user can act
 * on (a governor, boost, load): printed once on stderr as it happens. A note is context the user
 * cannot change here (a table's overlap that the function forbids, a virtual machine's CPUs): kept
 * in the file and shown by the analysis, never printed during the run. */
#ifndef MFB_WARN_H
#define MFB_WARN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MFB_MAX_WARNINGS 64

enum mfb_severity { MFB_SEV_WARNING, MFB_SEV_NOTE };

const char *mfb_severity_name(enum mfb_severity s);

/* Every code a warning or note may carry, in one table (warn.c): --quiet-warnings names them, so
 * an unknown one is refused rather than silently matching nothing. */
size_t mfb_warning_codes(const char *const **out);
/* Parses "CODE[,CODE...]" or "all" into a mask over that table; -1 with the offending code in bad. */
int mfb_warning_mask(const char *list, uint64_t *mask, char *bad, size_t bad_cap);
/* True when code is in mask (an unknown code never is). */
bool mfb_warning_silenced(uint64_t mask, const char *code);

struct mfb_warnings {
    char *msg[MFB_MAX_WARNINGS];
    enum mfb_severity severity[MFB_MAX_WARNINGS];
    char *code[MFB_MAX_WARNINGS]; /* short stable key, e.g. "governor" */
    int n;
    bool quiet;       /* -q: nothing printed */
    uint64_t silenced; /* --quiet-warnings: these codes are recorded but not printed */
};

void mfb_warn(struct mfb_warnings *w, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void mfb_note(struct mfb_warnings *w, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void mfb_warnings_free(struct mfb_warnings *w);

#endif
