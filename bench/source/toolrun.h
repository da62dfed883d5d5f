/* Running the compiler and its tools for the builds of source variants (source/varbuild.c,
 * source/pgo.c): a command from words (CC and the flags are split at blanks), run as a program of
 * its kind (programs/run.h: its own group, stopped on a request or at its deadline) with its output
 * captured, and the one line of that output that says what went wrong. */
#ifndef MFB_TOOLRUN_H
#define MFB_TOOLRUN_H

#include <stddef.h>

#include "base/error.h"
#include "programs/run.h"

/* Words of the compiler command and of the flags: split at blanks (no quoting; a flag with a
 * space in it is not supported), at most this many in all. */
#define MFB_TOOL_MAX_WORDS 256
/* Longest CC, CFLAGS or --variant-cflags taken. */
#define MFB_TOOL_MAX_COMMAND 4096
/* A tool's output is kept up to this many bytes (its first error is near the start). */
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

/* Runs v (v->a[0] found on PATH) as a program of kind under the command's deadlines (NULL: the
 * defaults), stdin from /dev/null, stdout and stderr captured as one text, env NULL for this
 * process's: 0 with *o filled (how it ended: mfb_prog_ok), -1 with err when it could not be run at
 * all. The caller frees o (mfb_prog_outcome_free). */
int mfb_tool_run(enum mfb_prog_kind kind, const struct mfb_deadlines *dl, const struct mfb_argv *v, char *const *env,
                 struct mfb_prog_outcome *o, struct mfb_err *err);

/* The line of a tool's output that says what went wrong: the first undefined reference, else the
 * first error that is not the compiler driver's summary ("collect2: error: ld returned"), else the
 * first line; "" for no output. */
void mfb_tool_first_error(const char *text, char *out, size_t cap);

/* Why a tool that did not succeed failed, in one phrase for "...: PHRASE": its first error line
 * when it printed one, else how it ended ("exit status 1 and no message", "killed by signal 9",
 * "still running after its 300-s deadline ..."). what names it ("the compiler 'cc'"). */
void mfb_tool_why(const char *what, enum mfb_prog_kind kind, const struct mfb_prog_outcome *o, char *out, size_t cap);

#endif
