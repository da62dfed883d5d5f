/* Finding what memfbench runs or preloads: a command name on PATH as a shell finds it, and the
 * libraries it puts into programs (the recorder, the ab shim, the built-ins). */
#ifndef MFB_FIND_H
#define MFB_FIND_H

#include <stddef.h>

/* Where a library memfbench preloads or loads into a program lives (the recorder, the ab shim, the
 * built-ins): $env when set, else this build's copy when it exists, else the installed one. */
const char *mfb_program_library(const char *env, const char *build_path, const char *install_path);

/* The executable a command name runs, as a shell would find it: the name itself when it has a
 * '/', else the first regular, executable file of that name on PATH (an empty entry is the
 * current folder; no PATH searches /usr/local/bin:/usr/bin:/bin). 0, or -1 when none is found or
 * the path does not fit in out's n bytes. */
int mfb_program_find(const char *name, char *out, size_t n);

#endif
