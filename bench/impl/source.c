#include "impl/source.h"

#include "files/temporaries.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/filetext.h"
#include "base/msgpath.h"
#include "files/temporaries.h"

/* An object memfbench links a variant from: far above any one function's object, a bound on what
 * is read of a user's file. */
#define MAX_OBJECT_BYTES (256u << 20)

const char *mfb_source_kind_name(enum mfb_source_kind k)
{
    static const char *const names[] = {[MFB_SOURCE_C] = "c", [MFB_SOURCE_OBJECT] = "object",
                                        [MFB_SOURCE_ARCHIVE] = "archive"};
    return names[k];
}

const char *mfb_flags_source_name(enum mfb_flags_source s)
{
    static const char *const names[] = {[MFB_FLAGS_DEFAULT] = "default", [MFB_FLAGS_ENV] = "CFLAGS",
                                        [MFB_FLAGS_OPTION] = "--variant-cflags"};
    return names[s];
}

const char *mfb_pgo_family_name(enum mfb_pgo_family f)
{
    static const char *const names[] = {[MFB_PGO_GCC] = "gcc", [MFB_PGO_CLANG] = "clang"};
    return names[f];
}

bool mfb_source_spec(const char *spec, enum mfb_source_kind *kind)
{
    const char *colon = strrchr(spec, ':');
    if (!colon || colon - spec < 3 || colon[-2] != '.')
        return false;
    switch (colon[-1]) {
    case 'c':
        *kind = MFB_SOURCE_C;
        return true;
    case 'o':
        *kind = MFB_SOURCE_OBJECT;
        return true;
    case 'a':
        *kind = MFB_SOURCE_ARCHIVE;
        return true;
    default:
        return false;
    }
}

void mfb_source_cache_root(char *out, size_t cap)
{
    mfb_cache_root(out, cap);
}

/* Bytes of a variant's file looked at to tell what it is. */
#define SNIFF_BYTES 4096

/* Why the regular file at path cannot be a variant's file of kind k, from its first bytes: a
 * compiler given an ELF file named x.c says little that names the cause (or nothing at all),
 * and a linker given a text file named x.o says it in its own words. NULL when it can be. */
static const char *wrong_content(const char *path, enum mfb_source_kind k)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL; /* the build says why it cannot read it */
    unsigned char head[SNIFF_BYTES];
    size_t n = fread(head, 1, sizeof head, f);
    fclose(f);
    bool elf = n >= 4 && !memcmp(head, "\177ELF", 4);
    bool archive = n >= 8 && (!memcmp(head, "!<arch>\n", 8) || !memcmp(head, "!<thin>\n", 8));
    switch (k) {
    case MFB_SOURCE_C:
        if (elf)
            return "not C source: it starts like an ELF file (a program, library or object)";
        if (archive)
            return "not C source: it starts like an archive (FILE.a)";
        if (n > 0 && memchr(head, '\0', n))
            return "not C source: it holds binary data (a NUL byte in its first 4 KiB)";
        return NULL;
    case MFB_SOURCE_OBJECT:
        return elf ? NULL : archive ? "not an object file: it starts like an archive (give it as FILE.a:SYMBOL)"
                                    : "not an object file: it does not start like an ELF file";
    case MFB_SOURCE_ARCHIVE:
        return archive ? NULL : elf ? "not an archive: it starts like an ELF file"
                                    : "not an archive: it does not start with ar's \"!<arch>\"";
    }
    return NULL;
}

struct mfb_source *mfb_source_new(const char *spec, struct mfb_err *err)
{
    /* the spec as messages print it: a file or folder name may hold a newline (base/msgpath.h);
     * s->spec is used for nothing else */
    char shown[MFB_MSG_PATH_MAX];
    mfb_msg_path(spec, shown, sizeof shown);
    enum mfb_source_kind kind;
    if (!mfb_source_spec(spec, &kind)) {
        mfb_fail(err, "--variant %s: not FILE.c, FILE.o or FILE.a followed by :SYMBOL", shown);
        return NULL;
    }
    struct mfb_source *s = calloc(1, sizeof *s);
    char *copy = strdup(spec);
    if (!s || !copy) {
        free(s);
        free(copy);
        mfb_fail(err, "--variant %s: out of memory", shown);
        return NULL;
    }
    s->kind = kind;
    char *colon = strrchr(copy, ':'), *name;
    *colon = '\0';
    name = strchr(colon + 1, '=');
    if (name)
        *name++ = '\0';
    struct stat st;
    const char *why = NULL;
    bool file = true; /* the reason is about the file, which the line then names */
    if (!colon[1] || (name && !*name))
        file = false, why = !colon[1] ? "no symbol after ':' (expected FILE.c:SYMBOL[=NAME])" : "empty name after '='";
    else if (stat(copy, &st) != 0)
        why = errno == ENOENT ? "no such file" : strerror(errno);
    else if (!S_ISREG(st.st_mode))
        why = "not a regular file";
    else if (access(copy, R_OK) != 0)
        why = strerror(errno);
    else
        why = wrong_content(copy, kind);
    s->spec = strdup(shown);
    s->path = strdup(copy);
    s->symbol = strdup(colon + 1);
    s->name = strdup(name ? name : colon + 1);
    free(copy);
    if (!why && !(s->spec && s->path && s->symbol && s->name))
        file = false, why = "out of memory";
    if (why) {
        char path[MFB_MSG_PATH_MAX];
        if (file && s->path)
            mfb_fail(err, "--variant %.300s: %.300s: %s", shown, mfb_msg_path(s->path, path, sizeof path), why);
        else
            mfb_fail(err, "--variant %.300s: %s", shown, why);
        mfb_source_free(s);
        return NULL;
    }
    return s;
}

static bool is_archive(const char *path)
{
    size_t n = strlen(path);
    return n > 2 && !strcmp(path + n - 2, ".a");
}

int mfb_source_check_symbol(const char *object, const char *display, const char *symbol, struct mfb_elf_symbol *sym,
                            struct mfb_err *err)
{
    char shown[MFB_MSG_PATH_MAX];
    mfb_msg_path(display, shown, sizeof shown);
    size_t len;
    char *data = mfb_file_text(object, MAX_OBJECT_BYTES, &len, err);
    if (!data)
        return -1;
    int rc = mfb_elf_symbol_read((const unsigned char *)data, len, shown, symbol, sym, err);
    free(data);
    if (rc < 0)
        return -1;
    const char *why = NULL;
    switch (sym->kind) {
    case MFB_ELF_ABSENT:
        why = sym->lto ? "is not among its symbols: it holds LTO bytecode (compiled with -flto), not machine code; "
                         "build it without -flto"
                       : "is not among its symbols";
        break;
    case MFB_ELF_UNDEFINED:
        /* an archive's build asks the linker for the symbol (-u): none of its members had it */
        why = is_archive(display) ? "is defined by none of its members" : "is only referenced there, not defined";
        break;
    case MFB_ELF_DATA:
        why = "is a variable, not a function";
        break;
    case MFB_ELF_OTHER:
        why = "is not a function (a section, file, common or absolute symbol)";
        break;
    case MFB_ELF_FUNCTION:
        if (sym->local)
            why = "is static: memfbench calls it from outside its file, so it must be global (remove 'static')";
        else if (sym->hidden)
            why = "has hidden visibility: a shared object does not export it";
        else if (sym->size == 0)
            why = "has no size: memfbench cannot tell where its code ends";
        break;
    }
    if (why) {
        mfb_elf_symbol_free(sym);
        return mfb_fail(err, "%s: '%s' %s", shown, symbol, why);
    }
    return 0;
}

/* The code's offset from the start of its 4 KiB page: what a placement moves. */
static unsigned page_offset(uintptr_t a)
{
    return (unsigned)(a & 4095u);
}

static int load_one(struct mfb_source *s, unsigned k, union mfb_fn *fn, struct mfb_err *err)
{
    char path[PATH_MAX];
    int n = snprintf(path, sizeof path, "%s/" MFB_SOURCE_PLACED_FMT, s->dir, k);
    if (n < 0 || (size_t)n >= sizeof path)
        return mfb_fail(err, "%s: its build folder's path is too long", s->spec);
    /* RTLD_LOCAL: each copy's symbols stay its own (the eight define the same names); RTLD_NOW:
     * a missing dependency fails here, not in the middle of a batch */
    if (!(s->handle[k] = dlopen(path, RTLD_NOW | RTLD_LOCAL)))
        return mfb_fail(err, "%s: cannot load its build %s: %s", s->spec, path, dlerror());
    void *p = dlsym(s->handle[k], s->symbol);
    if (!p)
        return mfb_fail(err, "%s: its build %s exports no '%s'", s->spec, path, s->symbol);
    memcpy(fn, &p, sizeof p);
    s->address[k] = (uintptr_t)p;
    return 0;
}

int mfb_source_load(struct mfb_source *s, union mfb_fn at[MFB_CODE_PLACEMENTS], struct mfb_err *err)
{
    char object[PATH_MAX];
    int n = snprintf(object, sizeof object, "%s/" MFB_SOURCE_OBJECT_NAME, s->dir);
    if (n < 0 || (size_t)n >= sizeof object)
        return mfb_fail(err, "%s: its build folder's path is too long", s->spec);
    struct mfb_elf_symbol *sym = &s->sym;
    if (mfb_source_check_symbol(object, s->path, s->symbol, sym, err) < 0)
        return -1;
    int rc = 0;
    for (unsigned k = 0; k < MFB_CODE_PLACEMENTS && rc == 0; k++)
        rc = load_one(s, k, &at[k], err);
    /* The copies are one object linked eight times: the same bytes but where the linker wrote an
     * address or a displacement, which depends on where each copy sits (a call through the PLT,
     * a load from the GOT or from .rodata). Anything else differing means the copies are not the
     * same code, and the variant's placements would compare different programs. */
    unsigned line[MFB_CODE_PLACEMENTS], lines = 0;
    for (unsigned k = 0; k < MFB_CODE_PLACEMENTS && rc == 0; k++) {
        if (k > 0 && !mfb_source_same_code(s, s->address[0], s->address[k]))
            rc = mfb_fail(err, "%s: the copy at code placement %u differs from the one at placement 0 beyond the %zu "
                          "fields the linker fills in: not the same code", s->spec, k, sym->nfields);
        unsigned off = page_offset(s->address[k]) & 63u;
        bool seen = false;
        for (unsigned j = 0; j < lines; j++)
            seen = seen || line[j] == off;
        if (!seen)
            line[lines++] = off;
        if (k > 0 && page_offset(s->address[k]) == page_offset(s->address[0]))
            rc = mfb_fail(err, "%s: its copies at placements 0 and %u open at the same offset into a page (0x%x): "
                          "the linker did not place them apart", s->spec, k, page_offset(s->address[k]));
    }
    /* code aligned to 32 or 64 bytes (-falign-functions=64, an aligned attribute) takes the same
     * position in a cache line in every copy: the placements then differ only by page offset */
    s->line_offsets_all = lines == 4;
    return rc;
}

bool mfb_source_same_code(const struct mfb_source *s, uintptr_t a, uintptr_t b)
{
    return mfb_elf_same_but_fields((const unsigned char *)a, (const unsigned char *)b, (size_t)s->sym.size, &s->sym);
}

void mfb_pgo_free(struct mfb_pgo *p)
{
    if (!p)
        return;
    free(p->of);
    free(p->instrument_flags);
    free(p->use_flags);
    free(p->train_spec);
    free(p->train_table);
    free(p->merge_tool);
    free(p->profile_file);
    free(p);
}

void mfb_source_free(struct mfb_source *s)
{
    if (!s)
        return;
    for (unsigned k = 0; k < MFB_CODE_PLACEMENTS; k++)
        if (s->handle[k])
            dlclose(s->handle[k]);
    mfb_pgo_free(s->pgo);
    free(s->spec);
    free(s->path);
    free(s->symbol);
    free(s->name);
    free(s->compiler);
    free(s->compiler_path);
    free(s->compiler_version);
    free(s->flags);
    free(s->dir);
    free(s->description);
    free(s->param_flags);
    mfb_elf_symbol_free(&s->sym);
    free(s);
}
