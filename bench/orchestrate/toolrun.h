/* Running the compiler and its tools for the builds of source variants (orchestrate/varbuild.c,
 * orchestrate/pgo.c): a command from words (CC and the flags are split at blanks), run with its
 * output in a log file, and the one line of that log that says what went wrong. */
#ifndef MFB_TOOLRUN_H
#define MFB_TOOLRUN_H

#include <stddef.h>

#include "base/error.h"

/* Words of the compiler command and of the flags: split at blanks (no quoting; a flag with a
 * space in it is not supported), at most this many in all. */
#define MFB_TOOL_MAX_WORDS 256
/* Longest CC, CFLAGS or --variant-cflags taken. */
#define MFB_TOOL_MAX_COMMAND 4096
/* A tool's log is read up to this many bytes. */
#define MFB_TOOL_MAX_LOG (64u << 10)

struct mfb_words {
    char buf[MFB_TOOL_MAX_COMMAND + 1];
    char *w[MFB_TOOL_MAX_WORDS];
    int n;
};

/* text split at blanks into out; -1 with one line naming what (the option or variable) when it is
 * too long or has too many words. */
int mfb_words_split(const char *what, const char *text, struct mfb_words *out, struct mfb_err *err);

/* A command line of at most 2 * MFB_TOOL_MAX_WORDS + 16 arguments (what does not fit is dropped:
 * no command here comes near it), NULL-terminated. */
struct mfb_argv {
    const char *a[2 * MFB_TOOL_MAX_WORDS + 16];
    int n;
};

void mfb_argv_add(struct mfb_argv *v, const char *s);
void mfb_argv_add_words(struct mfb_argv *v, const struct mfb_words *w);

/* Runs v (found on PATH) with stdout and stderr into log (truncated first), stdin from /dev/null
 * and env (NULL: this process's); its exit status, 128 + the signal that killed it, 127 when it
 * could not be started. */
int mfb_tool_run(const struct mfb_argv *v, const char *log, char *const *env);

/* The line of a tool's log that says what went wrong: the first undefined reference, else the
 * first error that is not the compiler driver's summary ("collect2: error: ld returned"), else the
 * first line; "no message" for an empty or unreadable log. */
void mfb_tool_first_error(const char *log, char *out, size_t cap);

#endif
