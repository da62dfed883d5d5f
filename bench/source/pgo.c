#include "source/pgo.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/environ.h"
#include "base/filetext.h"
#include "base/msgpath.h"
#include "base/sha256.h"
#include "machine/timer.h"
#include "programs/find.h"
#include "programs/reply.h"
#include "programs/run.h"
#include "programs/stop.h"
#include "source/toolrun.h"
#include "source/varbuild.h"
#include "files/temporaries.h"
#include "workload/distribution.h"

/* The profile flags of each family. GCC names the profile of code.o code.gcda beside it, and
 * refuses one written for other code (coverage-mismatch is an error by default; said here so a
 * CFLAGS of -Wno-error cannot turn it off) or a missing one. clang's out-of-date and missing are
 * warnings by default: errors here, so a profile of other code is refused, not half used. */
#define GCC_INSTRUMENT "-fprofile-generate -fprofile-update=single"
#define GCC_USE "-fprofile-use -fprofile-update=single -Werror=coverage-mismatch -Werror=missing-profile"
#define CLANG_INSTRUMENT "-fprofile-instr-generate"
#define CLANG_USE_FMT "-fprofile-instr-use=%s -Werror=profile-instr-out-of-date -Werror=profile-instr-missing"

/* What names a profile's cache entry: bumped when the training changes (its replay, its flags). */
#define TRAINING_RECIPE "memfbench pgo training 1: counts --replay of p0.so, GCOV_PREFIX / LLVM_PROFILE_FILE"
#define TEMP_BASE "profile"
/* GCC writes the profile at the absolute path its object had when compiled (a build folder since
 * renamed); stripping more leading folders than any path has leaves the file's own name, in
 * GCOV_PREFIX. */
#define GCOV_STRIP_ALL "4096"
/* The replay's log and the training's facts are read up to this many bytes. */
#define MAX_TEXT (64u << 10)
/* clang's raw profile: the replay is one process, so one file. */
#define RAW_PROFILE "train.profraw"

/* The variant compiler's family, from what its --version says (CC as varbuild runs it): GCC
 * names itself cc or gcc on its first line, and its copyright holder on the next. */
static int family(const char *spec, const struct mfb_deadlines *dl, enum mfb_pgo_family *out, struct mfb_err *err)
{
    char version[1024];
    if (mfb_varbuild_cc_version(spec, dl, version, sizeof version, err) < 0)
        return -1;
    bool clang = strstr(version, "clang") != NULL;
    bool gcc = !clang && (strstr(version, "Free Software Foundation") || strstr(version, "gcc") ||
                          strstr(version, "GCC"));
    version[strcspn(version, "\n")] = '\0';
    if (!clang && !gcc)
        return mfb_fail(err, "%s: --pgo: the compiler (%s) is neither GCC nor clang, whose profile flags memfbench "
                        "knows", spec, version);
    *out = clang ? MFB_PGO_CLANG : MFB_PGO_GCC;
    return 0;
}

/* The training's size table: a record folder's FUNCTION_size.csv, else the spec as -d takes it. */
static int training_table(const struct mfb_pgo_request *req, char *out, size_t cap, struct mfb_err *err)
{
    const char *spec = req->train ? req->train : req->study_dist;
    struct stat st;
    char shown[MFB_MSG_PATH_MAX];
    mfb_msg_path(spec, shown, sizeof shown);
    if (stat(spec, &st) == 0 && S_ISDIR(st.st_mode)) {
        if (snprintf(out, cap, "%s/%s_size.csv", spec, mfb_func_name(req->func)) >= (int)cap)
            return mfb_fail(err, "--pgo-train %s: the path is too long", shown);
        if (access(out, R_OK) != 0)
            return mfb_fail(err, "--pgo-train %s: a folder without %s_size.csv (give a `memfbench record` folder "
                            "of %s calls, or a distribution)", shown, mfb_func_name(req->func), mfb_func_name(req->func));
        return 0;
    }
    snprintf(out, cap, "%s", spec);
    return 0;
}

/* The training's size table (training_table) read into d: 0, or -1 with one line. */
static int training_dist(const struct mfb_pgo_request *req, char *table, size_t cap, struct mfb_dist *d,
                         struct mfb_err *err)
{
    if (training_table(req, table, cap, err) < 0)
        return -1;
    if (mfb_dist_resolve(d, table, req->func, req->dist_dir, err) < 0) {
        char line[sizeof err->msg];
        snprintf(line, sizeof line, "%s", err->msg);
        return mfb_fail(err, "--pgo-train: %s", line);
    }
    return 0;
}

/* A profile changes only what the compiler compiles: an object or an archive is linked as it is. */
static int check_kind(const struct mfb_source *s, struct mfb_err *err)
{
    if (s->kind == MFB_SOURCE_C)
        return 0;
    return mfb_fail(err, "%s: --pgo needs the source (FILE.c): a %s is built as it is, so no profile can change it",
                    s->spec, s->kind == MFB_SOURCE_OBJECT ? "FILE.o" : "FILE.a");
}

int mfb_pgo_check(const struct mfb_pgo_request *req, const struct mfb_source *s, struct mfb_err *err)
{
    if (check_kind(s, err) < 0)
        return -1;
    char table[PATH_MAX];
    struct mfb_dist d = {0};
    int rc = training_dist(req, table, sizeof table, &d, err);
    mfb_dist_free(&d);
    return rc;
}

int mfb_pgo_train_inputs(const struct mfb_pgo_request *req, struct mfb_inputs *in, struct mfb_err *err)
{
    char table[PATH_MAX];
    struct mfb_dist d = {0};
    int rc = training_dist(req, table, sizeof table, &d, err);
    for (int i = 0; rc == 0 && i < d.nfiles; i++)
        rc = mfb_inputs_add(in, MFB_INPUT_TRAINING, d.files[i].path, strlen(d.files[i].path), err);
    mfb_dist_free(&d);
    return rc;
}

/* The profile's cache key: the instrumented build (code, flags, compiler), every file the training
 * distribution reads, its seed and its number of calls. */
static int training_key(const struct mfb_source *ins, const struct mfb_pgo_request *req, char *table, size_t cap,
                        char key[65], struct mfb_err *err)
{
    struct mfb_dist d = {0};
    if (training_dist(req, table, cap, &d, err) < 0) {
        mfb_dist_free(&d);
        return -1;
    }
    struct mfb_sha256 h;
    mfb_sha256_init(&h);
    char line[PATH_MAX + 96];
    /* the caches too: they place the replay's buffers, so its addresses and alignments */
    int n = snprintf(line, sizeof line, "%s\n%s\n%s\n%llu %u\n%s\n", TRAINING_RECIPE, ins->key,
                     mfb_func_name(req->func), (unsigned long long)req->seed, req->calls, req->cache ? req->cache : "");
    mfb_sha256_update(&h, line, (size_t)n);
    int rc = 0;
    if (d.nfiles == 0) { /* a synthetic spec: the spec is the table */
        mfb_sha256_update(&h, table, strlen(table));
    }
    for (int i = 0; i < d.nfiles && rc == 0; i++) {
        char sha[65];
        if (mfb_sha256_file(d.files[i].path, sha) != 0)
            rc = mfb_fail(err, "--pgo-train: cannot read %s: %s", d.files[i].path, strerror(errno));
        n = snprintf(line, sizeof line, "%s %s\n", d.files[i].role, sha);
        mfb_sha256_update(&h, line, (size_t)n);
    }
    mfb_dist_free(&d);
    uint8_t dig[32];
    mfb_sha256_final(&h, dig);
    for (int i = 0; i < 32; i++)
        snprintf(key + 2 * i, 3, "%02x", dig[i]);
    return rc;
}

/* This process's environment and the profile variables after it: GCOV_PREFIX and its strip for
 * GCC, LLVM_PROFILE_FILE for clang, all into folder. */
static char **training_env(const char *folder, char *store, size_t cap)
{
    char *gcov = store, *strip = store + cap / 3, *llvm = store + 2 * (cap / 3);
    size_t each = cap / 3;
    if (snprintf(gcov, each, "GCOV_PREFIX=%s", folder) >= (int)each ||
        snprintf(strip, each, "GCOV_PREFIX_STRIP=%s", GCOV_STRIP_ALL) >= (int)each ||
        snprintf(llvm, each, "LLVM_PROFILE_FILE=%s/" RAW_PROFILE, folder) >= (int)each)
        return NULL;
    char *change[] = {gcov, strip, llvm};
    return mfb_environ_with(change, 3);
}

/* The llvm-profdata of the clang that built it (a raw profile is read by its own LLVM version
 * only): the one in the compiler's folder, else llvm-profdata-14 for a clang-14, else the first on
 * PATH. */
static int profdata_tool(const char *compiler_path, char *out, size_t cap)
{
    const char *base = strrchr(compiler_path, '/');
    base = base ? base + 1 : compiler_path;
    /* beside the compiler's executable (Debian: /usr/lib/llvm-14/bin) */
    if (snprintf(out, cap, "%.*sllvm-profdata", (int)(base - compiler_path), compiler_path) < (int)cap &&
        access(out, X_OK) == 0)
        return 0;
    const char *dash = strrchr(base, '-');
    char name[64];
    if (dash && dash[1] >= '0' && dash[1] <= '9') {
        snprintf(name, sizeof name, "llvm-profdata%.16s", dash);
        if (mfb_program_find(name, out, cap) == 0)
            return 0;
    }
    return mfb_program_find("llvm-profdata", out, cap);
}

/* clang's raw profile in folder merged into profile; the tool's path in tool. */
static int merge_raw(const char *spec, const struct mfb_deadlines *dl, const char *folder, const char *compiler_path,
                     const char *profile, char *tool, size_t tool_cap, struct mfb_err *err)
{
    if (profdata_tool(compiler_path, tool, tool_cap) != 0)
        return mfb_fail(err, "%s: --pgo with clang needs llvm-profdata to merge the training's profile (Debian "
                        "package llvm)", spec);
    char raw[PATH_MAX + 32];
    snprintf(raw, sizeof raw, "%s/" RAW_PROFILE, folder);
    if (access(raw, R_OK) != 0)
        return mfb_fail(err, "%s: --pgo: the training wrote no raw profile (LLVM_PROFILE_FILE)", spec);
    struct mfb_argv v = {.n = 0};
    const char *args[] = {tool, "merge", "-o", profile, raw, NULL};
    for (int i = 0; args[i]; i++)
        mfb_argv_add(&v, args[i]);
    struct mfb_prog_outcome o;
    if (mfb_tool_run(MFB_PROG_TRAINING, dl, &v, NULL, &o, err) < 0)
        return -1;
    int rc = 0;
    if (o.end == MFB_PROG_STOPPED) {
        rc = mfb_fail(err, "%s: --pgo: interrupted by %s while merging the training's profile", spec,
                      mfb_stop_signal_name(o.signal));
    } else if (!mfb_prog_ok(&o)) {
        char why[700];
        mfb_tool_why(tool, MFB_PROG_TRAINING, &o, why, sizeof why);
        rc = mfb_fail(err, "%s: --pgo: %s merge failed: %s", spec, tool, why);
    }
    mfb_prog_outcome_free(&o);
    if (rc == 0)
        unlink(raw);
    return rc;
}

/* The training replay: memfbench counts --replay of the instrumented build's first placement, as
 * memfbench's own child (programs/run.h: its own group, the training's deadline, a reply), whose
 * exit writes the profile into folder. Its verification's count into *verified. */
static int train(const struct mfb_source *ins, const struct mfb_pgo_request *req, const char *table,
                 const char *folder, uint64_t *verified, struct mfb_err *err)
{
    char plugin[PATH_MAX + 256], calls[16], seed[24], store[3 * PATH_MAX + 96];
    if (snprintf(plugin, sizeof plugin, "%s/" MFB_SOURCE_PLACED_FMT ":%s", ins->dir, 0u, ins->symbol) >=
        (int)sizeof plugin)
        return mfb_fail(err, "%s: --pgo: the cache path is too long", ins->spec);
    snprintf(calls, sizeof calls, "%u", req->calls);
    snprintf(seed, sizeof seed, "0x%llx", (unsigned long long)req->seed);
    char **env = training_env(folder, store, sizeof store);
    if (!env)
        return mfb_fail(err, "%s: --pgo: the training folder's path is too long, or out of memory", ins->spec);
    const char *args[] = {"memfbench", "counts", "--replay", "-f", mfb_func_name(req->func), "-d", table, "-v", plugin,
                          "--calls", calls, "--seed", seed, req->cache ? "--cache" : NULL, req->cache, NULL};
    struct mfb_prog p = {.kind = MFB_PROG_TRAINING, .who = "memfbench", .name = "the training replay",
                         .argv = (char *const *)args, .env = env, .self = true, .in = MFB_IO_NULL, .out = MFB_IO_NULL,
                         .err = MFB_IO_CAPTURE, .reply = true, .death_signal = SIGKILL, .deadlines = req->deadlines,
                         .cpu = -1};
    struct mfb_prog_outcome o;
    int rc = mfb_prog_run(&p, &o, err);
    free(env);
    if (rc < 0)
        return -1;
    struct mfb_reply r;
    struct mfb_err why = {{0}};
    const char *v = NULL;
    char shown[MFB_MSG_PATH_MAX];
    mfb_msg_path(table, shown, sizeof shown);
    if (o.end == MFB_PROG_STOPPED) {
        rc = mfb_fail(err, "%s: --pgo: interrupted by %s during the training replay; nothing of it is kept", ins->spec,
                      mfb_stop_signal_name(o.signal));
    } else if (o.end != MFB_PROG_EXITED || mfb_reply_parse(o.reply, o.reply_len, &r, &why) < 0) {
        char how[400], last[400];
        mfb_prog_describe(&p, &o, how, sizeof how);
        mfb_prog_last_line(o.err, last, sizeof last);
        rc = mfb_fail(err, "%s: --pgo: the training replay on %s ended with %s%s%s", ins->spec, shown, how,
                      last[0] ? ": " : "", last);
    } else if (r.status != MFB_REPLY_OK) {
        rc = mfb_fail(err, "%s: --pgo: the training replay on %s failed: %s", ins->spec, shown,
                      r.message[0] ? r.message : "no message");
    } else if (!(v = mfb_reply_get(&r, "verified"))) {
        rc = mfb_fail(err, "%s: --pgo: the training replay's reply has no verified count", ins->spec);
    } else {
        *verified = strtoull(v, NULL, 10);
    }
    mfb_prog_outcome_free(&o);
    return rc;
}

/* The profile for ins trained as req asks: found in the cache entry, or trained into a folder
 * beside it that is renamed into place when complete. Fills pgo's training facts and its file. */
static int profile(const struct mfb_source *ins, const struct mfb_pgo_request *req, struct mfb_pgo *pgo,
                   struct mfb_err *err)
{
    char table[PATH_MAX], key[65], root[PATH_MAX], profiles[PATH_MAX + 16], entry[PATH_MAX + 64],
         file[PATH_MAX + 96], facts[PATH_MAX + 96];
    if (training_key(ins, req, table, sizeof table, key, err) < 0)
        return -1;
    pgo->train_table = strdup(table);
    mfb_source_cache_root(root, sizeof root);
    snprintf(profiles, sizeof profiles, "%s/profiles", root);
    if (mfb_make_dirs(profiles) != 0)
        return mfb_fail(err, "%s: --pgo: cannot make the profiles folder %s: %s", ins->spec, profiles, strerror(errno));
    snprintf(entry, sizeof entry, "%s/%.32s", profiles, key);
    const char *name = pgo->family == MFB_PGO_GCC ? "code.gcda" : "code.profdata";
    snprintf(file, sizeof file, "%s/%s", entry, name);
    snprintf(facts, sizeof facts, "%s/training", entry);
    size_t len;
    struct mfb_err ignored;
    char *text = access(file, R_OK) == 0 ? mfb_file_text(facts, MAX_TEXT, &len, &ignored) : NULL;
    if (text) {
        pgo->cached = true;
        unsigned long long verified = 0;
        double seconds = 0;
        if (sscanf(text, "verified %llu seconds %lf", &verified, &seconds) == 2) {
            pgo->verified_calls = verified;
            pgo->train_s = seconds;
        }
        const char *tool = strstr(text, "\nmerge ");
        if (tool) {
            char t[PATH_MAX];
            snprintf(t, sizeof t, "%s", tool + 7);
            t[strcspn(t, "\n")] = '\0';
            pgo->merge_tool = strdup(t);
        }
        free(text);
    } else {
        mfb_temp_remove_stale(profiles, false);
        char *tmp = mfb_temp_make(profiles, TEMP_BASE, "-train", true);
        if (!tmp) {
            free(tmp);
            return mfb_fail(err, "%s: --pgo: cannot make a training folder in %s: %s", ins->spec, profiles,
                            strerror(errno));
        }
        char made[PATH_MAX + 96], tool[PATH_MAX] = "";
        snprintf(made, sizeof made, "%s/%s", tmp, name);
        uint64_t t0 = mfb_mono_ns();
        int rc = train(ins, req, table, tmp, &pgo->verified_calls, err);
        if (rc == 0 && pgo->family == MFB_PGO_CLANG)
            rc = merge_raw(ins->spec, req->deadlines, tmp, ins->compiler_path, made, tool, sizeof tool, err);
        struct stat st;
        if (rc == 0 && (stat(made, &st) != 0 || st.st_size == 0))
            rc = mfb_fail(err, "%s: --pgo: the training wrote no profile %s (was the code instrumented?)", ins->spec,
                          name);
        pgo->train_s = (double)(mfb_mono_ns() - t0) / 1e9;
        if (rc == 0) {
            char path[PATH_MAX + 96];
            snprintf(path, sizeof path, "%s/training", tmp);
            FILE *f = fopen(path, "w");
            bool ok = f && fprintf(f, "verified %llu\nseconds %.3f\n%s%s\n", (unsigned long long)pgo->verified_calls,
                                   pgo->train_s, tool[0] ? "merge " : "", tool[0] ? tool : "") > 0;
            if (!(f && fclose(f) == 0 && ok))
                rc = mfb_fail(err, "%s: --pgo: cannot write %s", ins->spec, path);
        }
        /* another process may have put the same profile there first: theirs is as good */
        if (rc == 0 && mfb_temp_settle(tmp, entry) != 0 && errno != ENOTEMPTY && errno != EEXIST)
            rc = mfb_fail(err, "%s: --pgo: cannot move the profile into %s: %s", ins->spec, entry, strerror(errno));
        mfb_temp_discard(tmp);
        free(tmp);
        if (rc < 0)
            return -1;
        if (tool[0])
            pgo->merge_tool = strdup(tool);
    }
    pgo->profile_file = strdup(file);
    if (!pgo->profile_file || !pgo->train_table)
        return mfb_fail(err, "%s: --pgo: out of memory", ins->spec);
    if (mfb_sha256_file(file, pgo->profile_sha) != 0)
        return mfb_fail(err, "%s: --pgo: cannot read the profile %s: %s", ins->spec, file, strerror(errno));
    return 0;
}

int mfb_pgo_build(const char *spec, const struct mfb_pgo_request *req, struct mfb_source **out, struct mfb_err *err)
{
    *out = NULL;
    struct mfb_source *ins = mfb_source_new(spec, err), *trained = NULL;
    if (!ins)
        return -1;
    int rc = -1;
    char root[PATH_MAX], use[PATH_MAX + 160];
    const char *shown = ins->spec; /* as messages print it (impl/source.c) */
    struct mfb_pgo *pgo = calloc(1, sizeof *pgo);
    if (!pgo) {
        mfb_fail(err, "%s: out of memory", shown);
        goto out;
    }
    if (check_kind(ins, err) < 0)
        goto out;
    mfb_source_cache_root(root, sizeof root);
    if (!root[0]) {
        mfb_fail(err, "%s: no folder for built variants: set MEMFBENCH_CACHE (or HOME)", shown);
        goto out;
    }
    if (family(shown, req->deadlines, &pgo->family, err) < 0)
        goto out;
    /* the instrumented build: the same file and flags with the family's instrumentation */
    pgo->instrument_flags = strdup(pgo->family == MFB_PGO_GCC ? GCC_INSTRUMENT : CLANG_INSTRUMENT);
    ins->pgo_stage = MFB_PGO_INSTRUMENTED;
    ins->pgo_family = pgo->family;
    ins->extra_flags = pgo->instrument_flags;
    if (!pgo->instrument_flags || mfb_varbuild(ins, req->flags_option, req->deadlines, err) < 0 || profile(ins, req, pgo, err) < 0)
        goto out;
    snprintf(pgo->instrumented_key, sizeof pgo->instrumented_key, "%s", ins->key);
    if (pgo->family == MFB_PGO_GCC)
        snprintf(use, sizeof use, "%s", GCC_USE);
    else
        snprintf(use, sizeof use, CLANG_USE_FMT, pgo->profile_file);
    pgo->use_flags = strdup(use);
    pgo->of = strdup(ins->name);
    pgo->train_spec = strdup(req->train ? req->train : req->study_dist);
    pgo->train_own = !req->train;
    pgo->train_seed = req->seed;
    pgo->seed_given = req->seed_given;
    pgo->train_calls = req->calls;
    size_t nlen = strlen(ins->name) + 5;
    char *name = malloc(nlen);
    if (!(trained = mfb_source_new(spec, err)))
        goto out;
    if (!pgo->use_flags || !pgo->of || !pgo->train_spec || !name) {
        free(name);
        mfb_fail(err, "%s: out of memory", shown);
        goto out;
    }
    snprintf(name, nlen, "%s-pgo", ins->name);
    free(trained->name);
    trained->name = name;
    trained->pgo_stage = MFB_PGO_TRAINED;
    trained->pgo_family = pgo->family;
    trained->extra_flags = pgo->use_flags;
    trained->profile = pgo->profile_file;
    trained->pgo = pgo;
    pgo = NULL;
    if (mfb_varbuild(trained, req->flags_option, req->deadlines, err) < 0) {
        char line[sizeof err->msg];
        snprintf(line, sizeof line, "%s", err->msg);
        mfb_fail(err, "%s (built with its %s profile)", line, mfb_pgo_family_name(trained->pgo_family));
        goto out;
    }
    *out = trained;
    trained = NULL;
    rc = 0;
out:
    mfb_pgo_free(pgo);
    mfb_source_free(trained);
    mfb_source_free(ins);
    return rc;
}
