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
/* Loads the library, finds the symbol and fills out (origin "plugin"). The correctness check
 * that every variant goes through catches a function that returns wrong results. */
int mfb_plugin_load(const char *spec, enum mfb_func f, struct mfb_variant *out, void **handle, struct mfb_err *err);
/* Frees what mfb_plugin_load allocated (name, description) and closes the library; a NULL handle
 * (not a plugin) does nothing. */
void mfb_plugin_unload(struct mfb_variant *v, void *handle);

#endif
