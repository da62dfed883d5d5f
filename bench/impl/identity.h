/* What identifies a variant's machine code, so that results of different code under one name are
 * never pooled (analysis/io/identity.py): a plugin by its shared object's bytes and symbol, the C
 * library by its file's bytes and the entry point the loader chose in it (an IFUNC's pick), and
 * memfbench's own variants by the build that compiled them. */
#ifndef MFB_IDENTITY_H
#define MFB_IDENTITY_H

#include <stdint.h>

#include "impl/variants.h"

enum mfb_identity_basis {
    MFB_IDENTITY_PLUGIN_FILE,  /* SHA-256 of the plugin's shared object, and its symbol */
    MFB_IDENTITY_LIBRARY_FILE, /* SHA-256 of the library file, and the entry's offset in it */
    MFB_IDENTITY_BUILD,        /* memfbench's build: compiler, flags, source revision */
    MFB_IDENTITY_SOURCE,       /* a source variant's build key (impl/source.h: its input's bytes, the
                                * headers it includes, compiler, flags) and its symbol */
    MFB_IDENTITY_UNKNOWN       /* the file holding the code could not be read */
};

/* The basis's name in the result file. */
const char *mfb_identity_basis_name(enum mfb_identity_basis b);

/* Twelve hex digits name a code among the few a comparison sees (a collision needs about 16
 * million codes under one name); the file keeps the whole digest for anyone who wants more. */
#define MFB_IDENTITY_ID_LEN 12

struct mfb_code_identity {
    enum mfb_identity_basis basis;
    char file_sha256[65];               /* plugin or library file; "" for a build */
    uintptr_t offset;                   /* library: the entry's offset from the object's load address */
    char id[MFB_IDENTITY_ID_LEN + 1];   /* the first digits of SHA-256 over the basis's facts */
};

/* Fills out for the variant whose code ci describes; build names memfbench's own build (compiler,
 * flags, revision), used for every variant that is not a plugin, library or source variant;
 * source_key is a source variant's (or its copy's) build key, NULL for any other. */
void mfb_code_identity(const struct mfb_variant *v, const struct mfb_codeinfo *ci, const char *build,
                       const char *source_key, struct mfb_code_identity *out);

#endif
