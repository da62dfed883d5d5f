#include "ab/ab.h"

#include "base/inputs.h"

#include <dlfcn.h>
#include <elf.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/rng.h"
#include "base/sha256.h"
#include "impl/plugin.h"
#include "impl/variants.h"
#include "orchestrate/program.h"
#include "workload/distribution.h"
#include "workload/trace.h"
#include "config.h"

extern char **environ;

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
        if (mfb_plugin_load(value, ab->func, &v, &h, err) < 0) {
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
        const struct mfb_variant *v = mfb_variant_find(ab->func, value);
        if (!v)
            return mfb_fail(err, "memfbench ab: -v %s: no such variant of %s (memfbench list)", value,
                            mfb_func_name(ab->func));
        if (v->origin == MFB_ORIGIN_LIBC || v->noop || v->resolve || v->origin == MFB_ORIGIN_PROBE)
            return mfb_fail(err, "memfbench ab: -v %s: not a variant a program can run on (%s)", value,
                            v->origin == MFB_ORIGIN_LIBC ? "libc is the baseline of every ab comparison"
                                                          : "it does not do the function's work");
        if (!mfb_variant_available(v))
            return mfb_fail(err, "memfbench ab: -v %s: not available on this CPU (needs %s)", value,
                            v->needs ? v->needs : "what this CPU lacks");
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

/* The environment of one run: ours, with the shim first in LD_PRELOAD and the arm's settings, or
 * without the shim for the plain arm. */
static char **run_environ(const struct mfb_ab *ab, const struct mfb_ab_arm *a, char *preload, size_t pn,
                          char *variant, size_t vn, char *func, size_t fn)
{
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = calloc(n + 4, sizeof *env);
    if (!env)
        return NULL;
    size_t k = 0;
    const char *old_preload = NULL;
    for (size_t i = 0; i < n; i++) {
        if (!strncmp(environ[i], "LD_PRELOAD=", 11))
            old_preload = environ[i] + 11;
        else if (strncmp(environ[i], "MEMFBENCH_AB_VARIANT=", 21) != 0 &&
                 strncmp(environ[i], "MEMFBENCH_AB_FUNCTION=", 22) != 0)
            env[k++] = environ[i]; /* MEMFBENCH_AB_COUNT passes: the tests count the routing */
    }
    if (a->kind == MFB_AB_PLAIN) {
        if (old_preload) {
            snprintf(preload, pn, "LD_PRELOAD=%s", old_preload);
            env[k++] = preload;
        }
        return env;
    }
    snprintf(preload, pn, "LD_PRELOAD=%s%s%s", ab->shim, old_preload && *old_preload ? ":" : "",
             old_preload ? old_preload : "");
    env[k++] = preload;
    snprintf(variant, vn, "MEMFBENCH_AB_VARIANT=%s", a->kind == MFB_AB_LIBC ? "libc" : a->spec);
    env[k++] = variant;
    snprintf(func, fn, "MEMFBENCH_AB_FUNCTION=%s", mfb_func_name(ab->func));
    env[k++] = func;
    return env;
}

static double seconds(struct timeval t)
{
    return (double)t.tv_sec + (double)t.tv_usec / 1e6;
}

/* One run of the program under arm a: wall time from fork to its end, CPU time of it and of every
 * descendant it waited for (wait4's rusage); its exit status in *status (128 + signal). */
static int run_once(const struct mfb_ab *ab, const struct mfb_ab_arm *a, char **argv, struct mfb_ab_run *r,
                    int *status, struct mfb_err *err)
{
    char preload[PATH_MAX * 2 + 32], variant[PATH_MAX + 512], func[64];
    char **env = run_environ(ab, a, preload, sizeof preload, variant, sizeof variant, func, sizeof func);
    if (!env)
        return mfb_fail(err, "memfbench ab: out of memory");
    int out = open(ab->program_output, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (out < 0) {
        free(env);
        return mfb_fail(err, "memfbench ab: --program-output %s: %s", ab->program_output, strerror(errno));
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid == 0) {
        int in = open("/dev/null", O_RDONLY);
        if (in >= 0)
            dup2(in, STDIN_FILENO);
        dup2(out, STDOUT_FILENO);
        dup2(out, STDERR_FILENO);
        if (ab->cpu >= 0) {
            cpu_set_t set;
            CPU_ZERO(&set);
            CPU_SET(ab->cpu, &set);
            sched_setaffinity(0, sizeof set, &set);
        }
        execve(ab->program, argv, env);
        _exit(127);
    }
    close(out);
    free(env);
    if (pid < 0)
        return mfb_fail(err, "memfbench ab: cannot start %s: %s", ab->program, strerror(errno));
    int st;
    struct rusage ru;
    while (wait4(pid, &st, 0, &ru) < 0)
        if (errno != EINTR)
            return mfb_fail(err, "memfbench ab: waiting for %s: %s", ab->program, strerror(errno));
    clock_gettime(CLOCK_MONOTONIC, &t1);
    r->wall_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    r->user_s = seconds(ru.ru_utime);
    r->sys_s = seconds(ru.ru_stime);
    *status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    return 0;
}

int mfb_ab_run_all(struct mfb_ab *ab, char **argv, bool quiet, struct mfb_err *err)
{
    int blocks = ab->warmup + ab->runs;
    if (!(ab->done = calloc((size_t)blocks * (size_t)ab->narms, sizeof *ab->done)))
        return mfb_fail(err, "memfbench ab: out of memory");
    struct mfb_rng rng;
    mfb_rng_seed(&rng, ab->seed);
    int order[MFB_AB_MAX_ARMS];
    for (int b = 0; b < blocks; b++) {
        /* each block every arm once, in an order of its own: no arm always runs first, after the
         * same neighbour, or at the same point of a drift */
        for (int i = 0; i < ab->narms; i++)
            order[i] = i;
        for (int i = ab->narms - 1; i > 0; i--) {
            int j = (int)mfb_rng_below(&rng, (uint64_t)i + 1), t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        for (int k = 0; k < ab->narms; k++) {
            struct mfb_ab_run *r = &ab->done[ab->ndone];
            *r = (struct mfb_ab_run){.block = b, .order = k, .arm = order[k], .warmup = b < ab->warmup};
            int status;
            if (run_once(ab, &ab->arms[order[k]], argv, r, &status, err) < 0)
                return -1;
            if (status != 0)
                return mfb_fail(err, "memfbench ab: run %d (block %d, arm %s): %s exited with status %d%s; a run "
                                "that fails is not a sample (its output: %s)", ab->ndone + 1, b + 1,
                                ab->arms[order[k]].name, ab->program, status,
                                status == 127 ? " (127: it could not start, or the shim refused the variant)" : "",
                                ab->program_output);
            ab->ndone++;
        }
        if (!quiet && isatty(STDERR_FILENO))
            fprintf(stderr, "\rmemfbench ab: block %d of %d%s", b + 1, blocks, b + 1 == blocks ? "\n" : "");
    }
    return 0;
}

/* The table and the trace read as the replays will read them, before the first run: a recording
 * that cannot be replayed is refused in one line, not after minutes of runs. */
static int check_replayable(const struct mfb_ab *ab, const char *table, struct mfb_err *err)
{
    struct mfb_dist d;
    int rc = mfb_dist_resolve(&d, table, ab->func, "", err);
    mfb_dist_free(&d);
    if (rc == 0 && ab->trace[0]) {
        struct mfb_trace t = {0};
        rc = mfb_trace_load(&t, ab->trace, err);
        mfb_trace_free(&t);
    }
    if (rc == 0)
        return 0;
    char why[sizeof err->msg];
    snprintf(why, sizeof why, "%s", err->msg); /* mfb_fail writes into err->msg */
    return mfb_fail(err, "memfbench ab: --predict-from: %s", why);
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

int mfb_ab_check_outputs(const struct mfb_ab *ab, const char *output, struct mfb_err *err)
{
    struct mfb_inputs in = {0};
    int rc = mfb_inputs_add(&in, MFB_INPUT_PROGRAM, ab->program, strlen(ab->program), err);
    const char *ours[] = {ab->shim, ab->builtins};
    for (int i = 0; rc == 0 && i < 2; i++)
        if (ours[i][0])
            rc = mfb_inputs_add(&in, MFB_INPUT_PLUGIN, ours[i], strlen(ours[i]), err);
    for (int a = 0; rc == 0 && a < ab->narms; a++)
        if (ab->arms[a].kind == MFB_AB_VARIANT) /* PATH:SYMBOL: the library is the part before the last ':' */
            rc = mfb_inputs_add(&in, MFB_INPUT_PLUGIN, ab->arms[a].spec,
                                (size_t)(strrchr(ab->arms[a].spec, ':') ? strrchr(ab->arms[a].spec, ':') - ab->arms[a].spec
                                                                        : (long)strlen(ab->arms[a].spec)), err);
    if (rc == 0 && ab->recording[0])
        rc = add_recording(&in, ab->recording, err);
    if (rc == 0 && strcmp(output, "-") != 0)
        rc = mfb_inputs_check_output(&in, output, "-o", err);
    if (rc == 0 && ab->program_output && strcmp(ab->program_output, "/dev/null") != 0)
        rc = mfb_inputs_check_output(&in, ab->program_output, "--program-output", err);
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

int mfb_ab_check_recording(struct mfb_ab *ab, const char *dir, const char *output, struct mfb_err *err)
{
    char table[PATH_MAX + 64], prov[PATH_MAX + 64];
    struct stat st;
    if (!realpath(dir, ab->recording))
        return mfb_fail(err, "memfbench ab: --predict-from %s: %s", dir, strerror(errno));
    snprintf(table, sizeof table, "%s/%s_size.csv", ab->recording, mfb_func_name(ab->func));
    snprintf(prov, sizeof prov, "%s/provenance.json", ab->recording);
    if (stat(table, &st) != 0 || !S_ISREG(st.st_mode))
        return mfb_fail(err, "memfbench ab: --predict-from %s: no %s_size.csv (the program made no %s call while "
                        "recorded, or this is not a memfbench record folder)", dir, mfb_func_name(ab->func),
                        mfb_func_name(ab->func));
    if (stat(prov, &st) != 0 || !S_ISREG(st.st_mode))
        return mfb_fail(err, "memfbench ab: --predict-from %s: no provenance.json, which holds the number of calls a "
                        "run makes (memfbench record writes it)", dir);
    /* beside the result: OUTPUT.replay.json, named absolutely in the file so the analysis finds it
     * from any folder */
    char cwd[PATH_MAX] = "";
    if (output[0] != '/' && !getcwd(cwd, sizeof cwd))
        return mfb_fail(err, "memfbench ab: cannot name the current folder: %s", strerror(errno));
    if (snprintf(ab->replay, sizeof ab->replay, "%s%s%s.replay.json", cwd, cwd[0] ? "/" : "", output) >=
        (int)sizeof ab->replay)
        return mfb_fail(err, "memfbench ab: -o %s: too long a name for its replay file", output);
    snprintf(ab->trace, sizeof ab->trace, "%s/%s_trace.csv", ab->recording, mfb_func_name(ab->func));
    if (stat(ab->trace, &st) != 0 || !S_ISREG(st.st_mode)) {
        ab->trace[0] = '\0';
    } else if (snprintf(ab->trace_replay, sizeof ab->trace_replay, "%s%s%s.trace-replay.json", cwd, cwd[0] ? "/" : "",
                        output) >= (int)sizeof ab->trace_replay) {
        return mfb_fail(err, "memfbench ab: -o %s: too long a name for its replay file", output);
    }
    return check_replayable(ab, table, err);
}

/* One replay: the recorded table (-d) or, with trace, the trace in order (--trace), into out. */
static int replay_one(const struct mfb_ab *ab, const char *const *variants, int n, bool trace, const char *out,
                      bool quiet, struct mfb_err *err)
{
    char table[PATH_MAX + 64], cpu[16], seconds[32];
    snprintf(seconds, sizeof seconds, "%g", ab->replay_time_s);
    snprintf(table, sizeof table, "%s/%s_size.csv", ab->recording, mfb_func_name(ab->func));
    snprintf(cpu, sizeof cpu, "%d", ab->cpu);
    const char *argv[8 + 2 * MFB_AB_MAX_VARIANTS + 10];
    int k = 0;
    argv[k++] = "memfbench";
    argv[k++] = "run";
    argv[k++] = "-q";
    argv[k++] = "-f";
    argv[k++] = mfb_func_name(ab->func);
    argv[k++] = trace ? "--trace" : "-d";
    argv[k++] = trace ? ab->trace : table;
    argv[k++] = "-v";
    argv[k++] = "libc";
    for (int i = 0; i < n; i++) {
        argv[k++] = "-v";
        argv[k++] = variants[i];
    }
    argv[k++] = "--cpu";
    argv[k++] = ab->cpu >= 0 ? cpu : "none";
    if (ab->replay_time_s > 0) {
        argv[k++] = "-t";
        argv[k++] = seconds;
    }
    if (ab->by_class && !trace) /* a trace keeps its own order: memfbench run has no classes for it */
        argv[k++] = "--by-class";
    argv[k++] = "-o";
    argv[k++] = out;
    argv[k] = NULL;
    if (!quiet && isatty(STDERR_FILENO))
        fprintf(stderr, "memfbench ab: replaying the recorded %s (a default study) for the prediction\n",
                trace ? "trace in order" : "table");
    pid_t pid = fork();
    if (pid == 0) {
        execv("/proc/self/exe", (char *const *)argv);
        _exit(127);
    }
    if (pid < 0)
        return mfb_fail(err, "memfbench ab: cannot start the replay: %s", strerror(errno));
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return mfb_fail(err, "memfbench ab: waiting for the replay: %s", strerror(errno));
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        return mfb_fail(err, "memfbench ab: the replay of %s failed (memfbench run exit %d); no file is written",
                        trace ? ab->trace : table, WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
    return 0;
}

int mfb_ab_replay(const struct mfb_ab *ab, const char *const *variants, int n, bool quiet, struct mfb_err *err)
{
    /* memfbench run writes its file only when it succeeds: a failed trace replay leaves the table's,
     * which this study wrote and which has no result beside it */
    if (replay_one(ab, variants, n, false, ab->replay, quiet, err) < 0)
        return -1;
    if (ab->trace[0] && replay_one(ab, variants, n, true, ab->trace_replay, quiet, err) < 0) {
        unlink(ab->replay);
        return -1;
    }
    return 0;
}

void mfb_ab_unlink_replays(const struct mfb_ab *ab)
{
    if (ab->recording[0])
        unlink(ab->replay);
    if (ab->trace[0])
        unlink(ab->trace_replay);
}

void mfb_ab_free(struct mfb_ab *ab)
{
    free(ab->done);
    ab->done = NULL;
}
