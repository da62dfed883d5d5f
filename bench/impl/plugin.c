#include "impl/plugin.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/elfobj.h"
#include "base/filetext.h"
#include "base/msgpath.h"
#include "impl/source.h"

/* A shared object memfbench reads to check a plugin before loading it: far above any library of
 * memory functions (the C library is about 2 MiB), a bound on what is read of a user's file. */
#define MAX_PLUGIN_BYTES (256u << 20)

/* The ELF machine this binary runs, which a plugin must be built for. */
#if defined(__x86_64__)
#define OWN_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define OWN_MACHINE EM_AARCH64
#else
#define OWN_MACHINE EM_NONE /* no check */
#endif

bool mfb_plugin_spec(const char *spec)
{
    const char *colon = strrchr(spec, ':');
    enum mfb_source_kind kind;
    /* FILE.c, FILE.o and FILE.a are built by memfbench at every placement (impl/source.h) */
    return colon && colon != spec && (strchr(spec, '/') || strstr(spec, ".so")) && !mfb_source_spec(spec, &kind);
}

/* PATH:SYMBOL[=NAME] split in a copy of the spec (free copy); the spec as messages print it in shown. */
struct parts {
    char *copy;
    const char *path, *sym, *name; /* name: NULL without =NAME */
    char shown[MFB_MSG_PATH_MAX];
};

static int split(const char *spec, struct parts *p, struct mfb_err *err)
{
    mfb_msg_path(spec, p->shown, sizeof p->shown);
    if (!(p->copy = strdup(spec)))
        return mfb_fail(err, "--variant %s: out of memory", p->shown);
    char *colon = strrchr(p->copy, ':'), *name;
    if (!colon)
        return mfb_fail(err, "--variant %s: plugin: not PATH:SYMBOL[=NAME]", p->shown);
    *colon = '\0';
    name = strchr(colon + 1, '=');
    if (name)
        *name++ = '\0';
    p->path = p->copy;
    p->sym = colon + 1;
    p->name = name;
    if (!*p->sym)
        return mfb_fail(err, "--variant %s: plugin: no symbol after ':' (expected PATH:SYMBOL[=NAME])", p->shown);
    if (name && !*name)
        return mfb_fail(err, "--variant %s: plugin: empty name after '='", p->shown);
    return 0;
}

/* What the start of a file that is no shared object of this machine says it is. */
static const char *not_a_library(const unsigned char *d, size_t len)
{
    Elf64_Ehdr eh;
    if (len < SELFMAG || memcmp(d, ELFMAG, SELFMAG) != 0)
        return "it is not an ELF file";
    if (len < sizeof eh)
        return "it is a truncated ELF file";
    memcpy(&eh, d, sizeof eh);
    if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB)
        return "it is an ELF file of another class or byte order (not 64-bit little-endian)";
    if (eh.e_type == ET_REL)
        return "it is an object file (FILE.o), not a shared object: give it as FILE.o:SYMBOL to have it built";
    if (eh.e_type != ET_DYN)
        return "it is an ELF file but not a shared object (link it with -shared)";
    if (OWN_MACHINE != EM_NONE && eh.e_machine != OWN_MACHINE)
        return "it is a shared object built for another machine";
    return NULL;
}

/* Whether name is a whole word of the space-separated list. */
static bool listed(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *at = list; (at = strstr(at, name)); at += n)
        if ((at == list || at[-1] == ' ') && (at[n] == ' ' || at[n] == '\0'))
            return true;
    return false;
}

/* The library at path (a regular file) read and checked to export sym as a function: a library
 * that merely depends on one defining sym (dlsym would find it there) does not. */
static int check_library(const struct parts *p, struct mfb_err *err)
{
    char shown_path[MFB_MSG_PATH_MAX];
    mfb_msg_path(p->path, shown_path, sizeof shown_path);
    size_t len;
    struct mfb_err why;
    unsigned char *data = (unsigned char *)mfb_file_text(p->path, MAX_PLUGIN_BYTES, &len, &why);
    if (!data)
        return mfb_fail(err, "--variant %s: plugin: cannot read %s: %s", p->shown, shown_path,
                        errno == EINVAL ? "over 256 MiB, or it changed while read" : strerror(errno));
    const char *what = not_a_library(data, len);
    int rc = 0;
    if (what) {
        rc = mfb_fail(err, "--variant %s: plugin: cannot load %s: %s", p->shown, shown_path, what);
    } else {
        /* every exported function's name, to find sym among them and to show the user the others:
         * a name is in the file's string table, so twice the file holds the list of all of them */
        size_t cap = 2 * len + 64;
        char *all = malloc(cap);
        int k = all ? mfb_elf_functions(data, len, all, cap) : -1;
        size_t used = all && k >= 0 ? strlen(all) : 0;
        bool cut = used >= 3 && !strcmp(all + used - 3, "...");
        if (!all)
            rc = mfb_fail(err, "--variant %s: plugin: out of memory", p->shown);
        else if (k < 0)
            rc = mfb_fail(err, "--variant %s: plugin: cannot load %s: its symbol tables lie outside the file",
                          p->shown, shown_path);
        else if (!cut && !listed(all, p->sym)) /* a list cut short (it cannot be) leaves it to dlsym */
            rc = mfb_fail(err, "--variant %s: plugin: %s exports no symbol '%s' that is a function (it offers: %.300s%s)",
                          p->shown, shown_path, p->sym, k > 0 ? all : "nothing", strlen(all) > 300 ? " ..." : "");
        free(all);
    }
    free(data);
    return rc;
}

/* The spec's form and its library's file, read but not loaded: path exists, is a regular file, is
 * a shared object of this machine and exports the symbol as a function. */
static int check_parts(const char *spec, struct parts *p, struct mfb_err *err)
{
    if (split(spec, p, err) < 0)
        return -1;
    struct stat st;
    char shown_path[MFB_MSG_PATH_MAX];
    mfb_msg_path(p->path, shown_path, sizeof shown_path);
    if (strlen(p->path) + 2 >= PATH_MAX) /* the "./" a bare name gets (mfb_plugin_load) */
        return mfb_fail(err, "--variant %.200s...: plugin: the path is too long (over %d bytes)", p->shown, PATH_MAX - 3);
    if (stat(p->path, &st) != 0)
        return mfb_fail(err, "--variant %.200s%s: plugin: %.200s: %s", p->shown, strlen(p->shown) > 200 ? "..." : "",
                        shown_path, errno == ENOENT ? "no such file" : strerror(errno));
    if (!S_ISREG(st.st_mode))
        return mfb_fail(err, "--variant %s: plugin: %s is not a regular file", p->shown, shown_path);
    return check_library(p, err);
}

int mfb_plugin_check(const char *spec, struct mfb_err *err)
{
    struct parts p = {0};
    int rc = check_parts(spec, &p, err);
    free(p.copy);
    return rc;
}

int mfb_plugin_name_check(const char *spec, enum mfb_func f, struct mfb_err *err)
{
    struct parts p = {0};
    int rc = split(spec, &p, err);
    const char *name = p.name ? p.name : p.sym;
    if (rc == 0 && mfb_variant_find(f, name))
        rc = mfb_fail(err, "--variant %s: plugin: '%s' is the name of a built-in variant of %s, which that name "
                      "means in every file and analysis: name the plugin otherwise (%s=NAME)", p.shown, name,
                      mfb_func_name(f), p.name ? "PATH:SYMBOL" : p.shown);
    free(p.copy);
    return rc;
}

int mfb_plugin_load(const char *spec, enum mfb_func f, struct mfb_variant *out, void **handle, struct mfb_err *err)
{
    *handle = NULL;
    struct parts p = {0};
    int rc = check_parts(spec, &p, err);
    if (rc < 0) {
        free(p.copy);
        return -1;
    }
    /* RTLD_LOCAL keeps the plugin's own symbols (it may define memcpy itself) out of the harness's
     * way; RTLD_NOW reports a missing dependency here rather than mid-run. A path without '/' would
     * be searched in the library path, so make it explicit. */
    char full[PATH_MAX], shown_path[MFB_MSG_PATH_MAX];
    snprintf(full, sizeof full, "%s%s", strchr(p.path, '/') ? "" : "./", p.path);
    mfb_msg_path(p.path, shown_path, sizeof shown_path);
    rc = -1;
    void *h = dlopen(full, RTLD_NOW | RTLD_LOCAL), *fn = h ? dlsym(h, p.sym) : NULL;
    if (!h) {
        char why[MFB_MSG_PATH_MAX];
        mfb_fail(err, "--variant %s: plugin: cannot load %s: %s", p.shown, shown_path, mfb_msg_path(dlerror(), why, sizeof why));
    } else if (!fn) {
        mfb_fail(err, "--variant %s: plugin: %s exports no symbol '%s'", p.shown, shown_path, p.sym);
        dlclose(h);
    } else {
        memset(out, 0, sizeof *out);
        out->name = strdup(p.name ? p.name : p.sym);
        out->func = f;
        out->origin = MFB_ORIGIN_PLUGIN;
        char desc[4200];
        snprintf(desc, sizeof desc, "plugin %s:%s", p.path, p.sym);
        out->description = strdup(desc);
        memcpy(&out->fn, &fn, sizeof fn);
        rc = out->name && out->description ? 0 : mfb_fail(err, "--variant %s: out of memory", p.shown);
        if (rc < 0)
            mfb_plugin_unload(out, h);
        else
            *handle = h;
    }
    free(p.copy);
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
