/* User variants from shared libraries: --variant path/to/libfoo.so:symbol[=name].
 * The symbol must have the C prototype of the function under test (docs/user-guide.md). */
#ifndef MFB_PLUGIN_H
#define MFB_PLUGIN_H

#include <stdbool.h>

#include "base/error.h"
#include "base/functions.h"
#include "impl/variants.h"

/* Whether a --variant value names a plugin (a path with ':symbol') rather than a built-in. */
bool mfb_plugin_spec(const char *spec);
/* Checks a plugin spec without loading anything, so that a command can refuse it before it starts
 * a program: the form PATH:SYMBOL[=NAME] (a symbol, a name when '=' is given), PATH a regular file
 * that is a shared object of this machine (read, never loaded: its constructors do not run) and
 * exports SYMBOL as a function (defined there: one a library it depends on defines is refused).
 * 0, or -1 with one line naming the spec. */
int mfb_plugin_check(const char *spec, struct mfb_err *err);
/* 0 when the name a plugin spec gives its variant (NAME, else SYMBOL) is no built-in's of f: a
 * built-in's name means the built-in in every file and analysis, even in a study that does not
 * time it. -1 with one line saying to rename it with =NAME. */
int mfb_plugin_name_check(const char *spec, enum mfb_func f, struct mfb_err *err);
/* Loads the library (after mfb_plugin_check's checks), finds the symbol and fills out (origin
 * "plugin"). The correctness check that every variant goes through catches a function that
 * returns wrong results. */
int mfb_plugin_load(const char *spec, enum mfb_func f, struct mfb_variant *out, void **handle, struct mfb_err *err);
/* Frees what mfb_plugin_load allocated (name, description) and closes the library; a NULL handle
 * (not a plugin) does nothing. */
void mfb_plugin_unload(struct mfb_variant *v, void *handle);

#endif
