#include "impl/plugin.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "impl/source.h"

bool mfb_plugin_spec(const char *spec)
{
    const char *colon = strrchr(spec, ':');
    enum mfb_source_kind kind;
    /* FILE.c, FILE.o and FILE.a are built by memfbench at every placement (impl/source.h) */
    return colon && colon != spec && (strchr(spec, '/') || strstr(spec, ".so")) && !mfb_source_spec(spec, &kind);
}

int mfb_plugin_load(const char *spec, enum mfb_func f, struct mfb_variant *out, void **handle, struct mfb_err *err)
{
    *handle = NULL;
    char *copy = strdup(spec);
    if (!copy)
        return mfb_fail(err, "--variant %s: out of memory", spec);
    char *colon = strrchr(copy, ':');
    *colon = '\0';
    char *sym = colon + 1, *name = strchr(sym, '=');
    if (name)
        *name++ = '\0';
    const char *path = copy;
    int rc = -1;
    struct stat st;
    if (!*sym)
        mfb_fail(err, "--variant %s: plugin: no symbol after ':' (expected PATH:SYMBOL[=NAME])", spec);
    else if (name && !*name)
        mfb_fail(err, "--variant %s: plugin: empty name after '='", spec);
    else if (stat(path, &st) != 0)
        mfb_fail(err, "--variant %.200s%s: plugin: %.200s: %s", spec, strlen(spec) > 200 ? "..." : "", path,
                 errno == ENOENT ? "no such file" : strerror(errno));
    else {
        /* RTLD_LOCAL keeps the plugin's own symbols (it may define memcpy itself) out of the
         * harness's way; RTLD_NOW reports a missing dependency here rather than mid-run. A path
         * without '/' would be searched in the library path, so make it explicit. */
        char full[PATH_MAX];
        int len = snprintf(full, sizeof full, "%s%s", strchr(path, '/') ? "" : "./", path);
        void *h = NULL;
        if (len < 0 || (size_t)len >= sizeof full)
            mfb_fail(err, "--variant %s: plugin: path longer than %d bytes", spec, PATH_MAX - 1);
        else if (!S_ISREG(st.st_mode))
            mfb_fail(err, "--variant %s: plugin: %s is not a regular file", spec, path);
        else if (!(h = dlopen(full, RTLD_NOW | RTLD_LOCAL))) {
            mfb_fail(err, "--variant %s: plugin: cannot load %s: %s", spec, path, dlerror());
        } else {
            void *fn = dlsym(h, sym);
            if (!fn) {
                mfb_fail(err, "--variant %s: plugin: %s exports no symbol '%s'", spec, path, sym);
                dlclose(h);
            } else {
                memset(out, 0, sizeof *out);
                out->name = strdup(name ? name : sym);
                out->func = f;
                out->origin = MFB_ORIGIN_PLUGIN;
                char desc[4200];
                snprintf(desc, sizeof desc, "plugin %s:%s", path, sym);
                out->description = strdup(desc);
                memcpy(&out->fn, &fn, sizeof fn);
                rc = out->name && out->description ? 0 : mfb_fail(err, "--variant %s: out of memory", spec);
                if (rc < 0)
                    mfb_plugin_unload(out, h);
                else
                    *handle = h;
            }
        }
    }
    free(copy);
    return rc;
}

void mfb_plugin_unload(struct mfb_variant *v, void *handle)
{
    if (!handle)
        return;
    free((char *)v->name);
    free((char *)v->description);
    dlclose(handle);
    memset(v, 0, sizeof *v);
}
