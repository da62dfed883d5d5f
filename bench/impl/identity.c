#include "impl/identity.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/sha256.h"

const char *mfb_identity_basis_name(enum mfb_identity_basis b)
{
    switch (b) {
    case MFB_IDENTITY_PLUGIN_FILE:
        return "plugin file";
    case MFB_IDENTITY_LIBRARY_FILE:
        return "library file";
    case MFB_IDENTITY_BUILD:
        return "build";
    case MFB_IDENTITY_SOURCE:
        return "source build";
    case MFB_IDENTITY_UNKNOWN:
        break;
    }
    return "unknown";
}

/* The short id: SHA-256 over the facts, one per line, so that no two different sets of facts can
 * run together into the same text. */
static void set_id(struct mfb_code_identity *out, const char *const *facts, int n)
{
    struct mfb_sha256 s;
    mfb_sha256_init(&s);
    for (int i = 0; i < n; i++) {
        mfb_sha256_update(&s, facts[i], strlen(facts[i]));
        mfb_sha256_update(&s, "\n", 1);
    }
    uint8_t d[32];
    mfb_sha256_final(&s, d);
    for (int i = 0; i < MFB_IDENTITY_ID_LEN / 2; i++)
        snprintf(out->id + 2 * i, 3, "%02x", d[i]);
}

void mfb_code_identity(const struct mfb_variant *v, const struct mfb_codeinfo *ci, const char *build,
                       const char *source_key, struct mfb_code_identity *out)
{
    memset(out, 0, sizeof *out);
    const char *basis;
    if (source_key) {
        /* its build's key names everything the machine code came from; placements and copies of one
         * build are one code, as a built-in's are */
        out->basis = MFB_IDENTITY_SOURCE;
        const char *facts[] = {mfb_identity_basis_name(out->basis), source_key, ci->symbol ? ci->symbol : ""};
        set_id(out, facts, 3);
        return;
    }
    /* Code outside memfbench's own executable (libc, a second libc for libc-copy, a plugin) is
     * known by the file it was loaded from; memfbench's own by the build that compiled it. */
    Dl_info self, code;
    bool outside = dladdr((void *)mfb_code_identity, &self) && dladdr((void *)ci->address, &code) &&
                   code.dli_fbase != self.dli_fbase;
    if (v->origin == MFB_ORIGIN_PLUGIN || outside) {
        out->basis = v->origin == MFB_ORIGIN_PLUGIN ? MFB_IDENTITY_PLUGIN_FILE : MFB_IDENTITY_LIBRARY_FILE;
        if (!ci->object || mfb_sha256_file(ci->object, out->file_sha256) != 0) {
            /* the object cannot be read again (deleted since it was loaded): its name is all there is */
            out->basis = MFB_IDENTITY_UNKNOWN;
            out->file_sha256[0] = '\0';
        }
        if (out->basis == MFB_IDENTITY_LIBRARY_FILE)
            out->offset = ci->address - (uintptr_t)code.dli_fbase;
    } else {
        out->basis = MFB_IDENTITY_BUILD;
    }
    basis = mfb_identity_basis_name(out->basis);
    char offset[32];
    snprintf(offset, sizeof offset, "0x%llx", (unsigned long long)out->offset);
    switch (out->basis) {
    case MFB_IDENTITY_PLUGIN_FILE: {
        const char *facts[] = {basis, out->file_sha256, ci->symbol ? ci->symbol : ""};
        set_id(out, facts, 3);
        break;
    }
    case MFB_IDENTITY_LIBRARY_FILE: {
        /* the offset tells which of the library's implementations the loader picked on this CPU */
        const char *facts[] = {basis, out->file_sha256, offset};
        set_id(out, facts, 3);
        break;
    }
    case MFB_IDENTITY_BUILD: {
        /* placements of one build are one variant: the method rotates them on purpose */
        const char *facts[] = {basis, v->name, build};
        set_id(out, facts, 3);
        break;
    }
    case MFB_IDENTITY_SOURCE:
        break; /* named above */
    case MFB_IDENTITY_UNKNOWN: {
        const char *facts[] = {basis, ci->object ? ci->object : "", ci->symbol ? ci->symbol : ""};
        set_id(out, facts, 3);
        break;
    }
    }
}
