#include "ab/ab.h"

#include "files/inputs.h"
#include "report/output.h"

#include <dlfcn.h>
#include <elf.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/msgpath.h"
#include "base/sha256.h"
#include "impl/plugin.h"
#include "impl/variants.h"
#include "programs/find.h"
#include "files/temporaries.h"
#include "config.h"

const char *mfb_ab_arm_kind_name(enum mfb_ab_arm_kind k)
{
    switch (k) {
    case MFB_AB_PLAIN:
        return "plain";
    case MFB_AB_LIBC:
        return "libc";
    case MFB_AB_VARIANT:
        break;
    }
    return "variant";
}

void mfb_ab_libraries(struct mfb_ab *ab)
{
    snprintf(ab->shim, sizeof ab->shim, "%s",
             mfb_program_library("MEMFBENCH_AB_SHIM", MFB_AB_SHIM_BUILD_PATH, MFB_AB_SHIM_INSTALL_PATH));
    snprintf(ab->builtins, sizeof ab->builtins, "%s",
             mfb_program_library("MEMFBENCH_AB_BUILTINS", MFB_AB_BUILTINS_BUILD_PATH, MFB_AB_BUILTINS_INSTALL_PATH));
}

/* Whether the ELF file at fd has a program interpreter (dynamically linked): 1 yes, 0 no (static),
 * -1 not an ELF file. */
static int elf_dynamic(int fd)
{
    unsigned char id[EI_NIDENT];
    if (pread(fd, id, sizeof id, 0) != (ssize_t)sizeof id || memcmp(id, ELFMAG, SELFMAG) != 0)
        return -1;
    uint64_t phoff, phnum, phentsize;
    if (id[EI_CLASS] == ELFCLASS64) {
        Elf64_Ehdr h;
        if (pread(fd, &h, sizeof h, 0) != (ssize_t)sizeof h)
            return -1;
        phoff = h.e_phoff, phnum = h.e_phnum, phentsize = h.e_phentsize;
    } else if (id[EI_CLASS] == ELFCLASS32) {
        Elf32_Ehdr h;
        if (pread(fd, &h, sizeof h, 0) != (ssize_t)sizeof h)
            return -1;
        phoff = h.e_phoff, phnum = h.e_phnum, phentsize = h.e_phentsize;
    } else {
        return -1;
    }
    for (uint64_t i = 0; i < phnum && i < 4096; i++) {
        uint32_t type; /* p_type is the first field of both classes' program header */
        if (pread(fd, &type, sizeof type, (off_t)(phoff + i * phentsize)) != (ssize_t)sizeof type)
            return -1;
        if (type == PT_INTERP)
            return 1;
    }
    return 0;
}

int mfb_ab_check_program(struct mfb_ab *ab, const char *name, struct mfb_err *err)
{
    char found[PATH_MAX];
    if (mfb_program_find(name, found, sizeof found) != 0)
        return mfb_fail(err, "memfbench ab: %s: no such program (searched PATH)", name);
    struct stat st;
    if (stat(found, &st) != 0)
        return mfb_fail(err, "memfbench ab: %s: %s", found, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return mfb_fail(err, "memfbench ab: %s: not a regular file", found);
    if (access(found, X_OK) != 0)
        return mfb_fail(err, "memfbench ab: %s: not executable", found);
    if (st.st_mode & (S_ISUID | S_ISGID))
        return mfb_fail(err, "memfbench ab: %s: set-user-ID or set-group-ID: the loader ignores LD_PRELOAD "
                        "there, so the shim could not route its calls", found);
    if (!realpath(found, ab->program))
        return mfb_fail(err, "memfbench ab: %s: %s", found, strerror(errno));
    int fd = open(ab->program, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return mfb_fail(err, "memfbench ab: %s: cannot read: %s", ab->program, strerror(errno));
    char head[2] = {0, 0};
    ab->script = pread(fd, head, 2, 0) == 2 && head[0] == '#' && head[1] == '!';
    int dyn = ab->script ? 1 : elf_dynamic(fd);
    close(fd);
    if (dyn < 0)
        return mfb_fail(err, "memfbench ab: %s: neither an ELF executable nor a #! script", ab->program);
    if (dyn == 0)
        return mfb_fail(err, "memfbench ab: %s: statically linked: its memcpy is inside it, where no preloaded "
                        "library can reach; link it dynamically to compare", ab->program);
    if (mfb_sha256_file(ab->program, ab->program_sha256) != 0)
        return mfb_fail(err, "memfbench ab: %s: cannot read", ab->program);
    return 0;
}

/* Checks that the built-ins library loads and has the symbol, in this process, so that a missing
 * library is one line before any run (the shim would stop each run with the same line). */
static int check_loads(const char *path, const char *symbol, const char *value, struct mfb_err *err)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return mfb_fail(err, "memfbench ab: -v %s: %s", value, dlerror());
    bool has = dlsym(h, symbol) != NULL;
    dlclose(h);
    if (!has)
        return mfb_fail(err, "memfbench ab: -v %s: %s has no symbol '%s'", value, path, symbol);
    return 0;
}

/* A built-in that a program can run on, by its name; NULL with err naming why not. */
static const struct mfb_variant *find_builtin(const struct mfb_ab *ab, const char *value, struct mfb_err *err)
{
    const struct mfb_variant *v = mfb_variant_find(ab->func, value);
    if (!v) {
        mfb_fail(err, "memfbench ab: -v %s: no such variant of %s (memfbench list)", value, mfb_func_name(ab->func));
        return NULL;
    }
    if (v->origin == MFB_ORIGIN_LIBC || v->noop || v->resolve || v->origin == MFB_ORIGIN_PROBE) {
        mfb_fail(err, "memfbench ab: -v %s: not a variant a program can run on (%s)", value,
                 v->origin == MFB_ORIGIN_LIBC ? "libc is the baseline of every ab comparison"
                                              : "it does not do the function's work");
        return NULL;
    }
    if (!mfb_variant_available(v)) {
        mfb_fail(err, "memfbench ab: -v %s: not available on this CPU (needs %s)", value,
                 v->needs ? v->needs : "what this CPU lacks");
        return NULL;
    }
    return v;
}

int mfb_ab_check_builtins(const struct mfb_ab *ab, const char *const *variants, int n, struct mfb_err *err)
{
    if (n < 1)
        return mfb_fail(err, "memfbench ab: name at least one variant with -v");
    for (int i = 0; i < n; i++)
        if (!mfb_plugin_spec(variants[i]) && !find_builtin(ab, variants[i], err))
            return -1;
    return 0;
}

static int add_variant(struct mfb_ab *ab, const char *value, struct mfb_err *err)
{
    struct mfb_ab_arm *a = &ab->arms[ab->narms];
    memset(a, 0, sizeof *a);
    a->kind = MFB_AB_VARIANT;
    char path[PATH_MAX];
    if (mfb_plugin_spec(value)) {
        /* the plugin's own loader parses PATH:SYMBOL[=NAME], loads it and finds the symbol, as run does */
        struct mfb_variant v;
        void *h;
        /* a built-in's name means that built-in in every file and analysis: no plugin takes it */
        if (mfb_plugin_name_check(value, ab->func, err) < 0 || mfb_plugin_load(value, ab->func, &v, &h, err) < 0) {
            char msg[sizeof err->msg];
            snprintf(msg, sizeof msg, "%s", err->msg);
            return mfb_fail(err, "memfbench ab: %s", msg);
        }
        /* the file the loader opened, as an absolute path (the shim runs in the program's folder), and
         * the symbol as given (dladdr could name an alias at the same address) */
        struct mfb_codeinfo ci;
        mfb_variant_codeinfo(&v, &ci);
        const char *sym = strrchr(value, ':') + 1;
        size_t sl = strcspn(sym, "=");
        bool fits = ci.object && realpath(ci.object, path) && sl < sizeof a->symbol && strlen(v.name) < sizeof a->name;
        if (fits) {
            snprintf(a->symbol, sizeof a->symbol, "%.*s", (int)sl, sym);
            snprintf(a->name, sizeof a->name, "%s", v.name);
        }
        mfb_plugin_unload(&v, h);
        if (!fits)
            return mfb_fail(err, "memfbench ab: -v %s: its file cannot be named, or its symbol or name is over %zu "
                            "characters", value, sizeof a->name - 1);
        a->origin = "plugin";
    } else {
        /* a built-in: the registry's code, loaded from the built-ins library by its symbol */
        const struct mfb_variant *v = find_builtin(ab, value, err);
        if (!v)
            return -1;
        struct mfb_codeinfo ci;
        mfb_variant_codeinfo(v, &ci);
        if (!ci.symbol)
            return mfb_fail(err, "memfbench ab: -v %s: its symbol is not known", value);
        snprintf(path, sizeof path, "%s", ab->builtins);
        snprintf(a->symbol, sizeof a->symbol, "%s", ci.symbol);
        snprintf(a->name, sizeof a->name, "%s", value);
        a->origin = "builtin";
        if (check_loads(path, a->symbol, value, err) < 0)
            return -1;
    }
    for (int i = 0; i < ab->narms; i++)
        if (!strcmp(ab->arms[i].name, a->name))
            return mfb_fail(err, "memfbench ab: -v %s: a second arm named '%s'", value, a->name);
    if (mfb_sha256_file(path, a->file_sha256) != 0)
        return mfb_fail(err, "memfbench ab: -v %s: cannot read %s", value, path);
    char spec[sizeof a->spec]; /* built apart: gcc cannot tell a->symbol from a->spec (-Wrestrict) */
    snprintf(spec, sizeof spec, "%s:%s", path, a->symbol);
    memcpy(a->spec, spec, sizeof spec);
    ab->narms++;
    return 0;
}

int mfb_ab_arms(struct mfb_ab *ab, const char *const *variants, int n, struct mfb_err *err)
{
    struct stat st;
    if (stat(ab->shim, &st) != 0 || mfb_sha256_file(ab->shim, ab->shim_sha256) != 0)
        return mfb_fail(err, "memfbench ab: the shim %s cannot be read (MEMFBENCH_AB_SHIM names another)", ab->shim);
    ab->narms = 0;
    ab->arms[ab->narms++] = (struct mfb_ab_arm){.kind = MFB_AB_PLAIN, .name = "plain"};
    ab->arms[ab->narms++] = (struct mfb_ab_arm){.kind = MFB_AB_LIBC, .name = "libc"};
    if (n < 1)
        return mfb_fail(err, "memfbench ab: name at least one variant with -v");
    if (n > MFB_AB_MAX_VARIANTS)
        return mfb_fail(err, "memfbench ab: -v: at most %d variants", MFB_AB_MAX_VARIANTS);
    for (int i = 0; i < n; i++)
        if (add_variant(ab, variants[i], err) < 0)
            return -1;
    return 0;
}

/* Every file of the recording folder, as inputs: its tables, trace and provenance. */
static int add_recording(struct mfb_inputs *in, const char *dir, struct mfb_err *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0; /* its reader says why (mfb_ab_check_recording) */
    int rc = 0;
    struct dirent *e;
    char path[PATH_MAX + 256];
    while (rc == 0 && (e = readdir(d)))
        if (e->d_name[0] != '.' && snprintf(path, sizeof path, "%s/%s", dir, e->d_name) < (int)sizeof path)
            rc = mfb_inputs_add(in, MFB_INPUT_RECORDING_FILE, path, strlen(path), err);
    closedir(d);
    return rc;
}
int mfb_ab_check_outputs(const struct mfb_ab *ab, const char *const *variants, int n, const char *output,
                         struct mfb_err *err)
{
    struct mfb_inputs in = {0};
    int rc = mfb_inputs_add(&in, MFB_INPUT_PROGRAM, ab->program, strlen(ab->program), err);
    const char *ours[] = {ab->shim, ab->builtins};
    for (int i = 0; rc == 0 && i < 2; i++)
        if (ours[i][0])
            rc = mfb_inputs_add(&in, MFB_INPUT_PLUGIN, ours[i], strlen(ours[i]), err);
    /* the variants as given (checked before any is loaded): PATH:SYMBOL's library is before the last ':' */
    for (int a = 0; rc == 0 && a < n; a++)
        if (mfb_plugin_spec(variants[a]))
            rc = mfb_inputs_add(&in, MFB_INPUT_PLUGIN, variants[a], (size_t)(strrchr(variants[a], ':') - variants[a]),
                                err);
    if (rc == 0 && ab->recording[0])
        rc = add_recording(&in, ab->recording, err);
    if (rc == 0 && strcmp(output, "-") != 0 && (rc = mfb_inputs_check_output(&in, output, "-o", err)) == 0)
        rc = mfb_output_check(output, err); /* a folder or a FIFO at -o: refused before anything runs */
    if (rc == 0 && ab->program_output && strcmp(ab->program_output, "/dev/null") != 0)
        rc = mfb_inputs_check_output(&in, ab->program_output, "--program-output", err);
    /* --predict-from's replays are written beside the result (OUTPUT.replay.json): each is an
     * output, checked as -o is, before the first run */
    const char *replays[] = {ab->replay, ab->trace_replay};
    for (int i = 0; rc == 0 && i < 2; i++) {
        struct stat st;
        char shown[MFB_MSG_PATH_MAX];
        if (!replays[i][0])
            continue;
        if (stat(replays[i], &st) == 0 && !S_ISREG(st.st_mode))
            rc = mfb_fail(err, "%s: the replay file of -o exists and is %s: remove it or give another -o",
                          mfb_msg_path(replays[i], shown, sizeof shown),
                          S_ISDIR(st.st_mode) ? "a folder" : S_ISFIFO(st.st_mode) ? "a FIFO" : "not a regular file");
        else
            rc = mfb_inputs_check_output(&in, replays[i], "-o's replay file", err);
    }
    mfb_inputs_free(&in);
    /* the program's output appended into the result file would corrupt it */
    struct stat a, b;
    if (rc == 0 && ab->program_output && strcmp(output, "-") != 0 && stat(output, &a) == 0 &&
        stat(ab->program_output, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
        rc = mfb_fail(err, "%s: --program-output names the result file (-o); give another", ab->program_output);
    if (rc == 0 && ab->program_output && !strcmp(output, ab->program_output))
        rc = mfb_fail(err, "%s: --program-output names the result file (-o); give another", ab->program_output);
    if (rc == 0)
        return 0;
    char why[sizeof err->msg];
    snprintf(why, sizeof why, "%s", err->msg);
    return mfb_fail(err, "memfbench ab: %s", why);
}

void mfb_ab_free(struct mfb_ab *ab)
{
    free(ab->done);
    ab->done = NULL;
    if (ab->work[0])
        mfb_temp_discard(ab->work);
    ab->work[0] = '\0';
}
