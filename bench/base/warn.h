/* Warnings of a run: printed once on stderr as they happen and kept for the output file. */
#ifndef MFB_WARN_H
#define MFB_WARN_H

#include <stdbool.h>

#define MFB_MAX_WARNINGS 64

struct mfb_warnings {
    char *msg[MFB_MAX_WARNINGS];
    char *code[MFB_MAX_WARNINGS]; /* short stable key, e.g. "governor" */
    int n;
    bool quiet;
};

void mfb_warn(struct mfb_warnings *w, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void mfb_warnings_free(struct mfb_warnings *w);

#endif
