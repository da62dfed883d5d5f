#include "source/varbuild.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/code_placement.h"
#include "base/filetext.h"
#include "base/msgpath.h"
#include "base/sha256.h"
#include "machine/timer.h"
#include "programs/find.h"
#include "programs/stop.h"
#include "source/toolrun.h"
#include "files/temporaries.h"


/* The manifest is read up to this many bytes. */
#define MAX_MANIFEST (1u << 20)
/* The name the build folders and replaced entries take beside the entries (report/temporaries.h),
 * so that those of killed runs are found and removed. */
#define TEMP_BASE "variant"
/* Bumped when the build's recipe changes, so older entries are never taken for new ones. */
#define RECIPE "memfbench source variant 1: pad section .text.unlikely, -fPIC, -shared, -z defs"

int mfb_make_dirs(const char *path)
{
    char p[PATH_MAX];
    if (snprintf(p, sizeof p, "%s", path) >= (int)sizeof p)
        return -1;
    for (char *s = p + 1; *s; s++)
        if (*s == '/') {
            *s = '\0';
            if (mkdir(p, 0755) != 0 && errno != EEXIST)
                return -1;
            *s = '/';
        }
    return mkdir(p, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

struct build {
    struct mfb_source *s;
    const struct mfb_deadlines *dl;
    struct mfb_words cc, flags, extra;
    char cc_path[PATH_MAX];
    char root[PATH_MAX];   /* the cache's variants folder */
    char entry[PATH_MAX];  /* root/<key> */
    char tmp[PATH_MAX];    /* the build folder, renamed to entry when complete (its files' names
                            * are short: TMP_ROOM bytes are kept free for them) */
    char version[512];
    /* the file the compiler is given: as spelled, but resolved for --pgo's builds (make_key) */
    char compiled[PATH_MAX];
    /* the source's path and the cache's folder as messages print them (base/msgpath.h) */
    char path_shown[MFB_MSG_PATH_MAX], root_shown[MFB_MSG_PATH_MAX];
};

static void facts(struct mfb_sha256 *h, const char *line)
{
    mfb_sha256_update(h, line, strlen(line));
    mfb_sha256_update(h, "\n", 1);
}

/* The build's key: every input the shared objects depend on but the headers a FILE.c includes,
 * which the entry's manifest lists with their digests (checked on every lookup). */
static int make_key(struct build *b, struct mfb_err *err)
{
    struct mfb_source *s = b->s;
    char file_sha[65], line[PATH_MAX + 64];
    if (mfb_sha256_file(s->path, file_sha) != 0)
        return mfb_fail(err, "%s: cannot read %s: %s", s->spec, b->path_shown, strerror(errno));
    struct stat st;
    if (stat(b->cc_path, &st) != 0)
        return mfb_fail(err, "%s: cannot stat the compiler %s: %s", s->spec, b->cc_path, strerror(errno));
    struct mfb_sha256 h;
    mfb_sha256_init(&h);
    facts(&h, RECIPE);
    snprintf(line, sizeof line, "placements %d step %d", MFB_CODE_PLACEMENTS, MFB_PLACEMENT_STEP);
    facts(&h, line);
    facts(&h, mfb_source_kind_name(s->kind));
    facts(&h, file_sha);
    /* an archive's build takes the members this symbol needs; an object's or a source's, all of it */
    facts(&h, s->kind == MFB_SOURCE_ARCHIVE ? s->symbol : "");
    facts(&h, s->compiler);
    snprintf(line, sizeof line, "%s %lld %lld.%09ld", b->cc_path, (long long)st.st_size, (long long)st.st_mtim.tv_sec,
             st.st_mtim.tv_nsec);
    facts(&h, line);
    facts(&h, s->flags);
    /* --pgo: what the build is for, and the profile's bytes (its path alone could hold another) */
    facts(&h, s->pgo_stage == MFB_PGO_INSTRUMENTED ? "instrumented" : s->pgo_stage == MFB_PGO_TRAINED ? "trained" : "");
    snprintf(b->compiled, sizeof b->compiled, "%s", s->path);
    if (s->pgo_stage != MFB_PGO_NONE) {
        /* GCC's profile checks each function's source file name and lines: the same bytes under
         * another path are another profile's code. The key takes the resolved path, and so does
         * the compiler: an instrumented build found under the key was compiled from that path,
         * whatever spelling found it, and its profile fits only a build from the same path. */
        char where[PATH_MAX];
        if (realpath(s->path, where))
            snprintf(b->compiled, sizeof b->compiled, "%s", where);
        facts(&h, b->compiled);
    }
    if (s->pgo_stage == MFB_PGO_TRAINED) {
        char profile_sha[65];
        if (mfb_sha256_file(s->profile, profile_sha) != 0)
            return mfb_fail(err, "%s: cannot read its profile in %s: %s", s->spec, b->root_shown, strerror(errno));
        facts(&h, profile_sha);
    }
    uint8_t d[32];
    mfb_sha256_final(&h, d);
    for (int i = 0; i < 32; i++)
        snprintf(s->key + 2 * i, 3, "%02x", d[i]);
    /* 32 hex digits name the entry: a collision needs about 2^64 builds */
    if (snprintf(b->entry, sizeof b->entry, "%s/%.32s", b->root, s->key) >= (int)sizeof b->entry)
        return mfb_fail(err, "%s: the cache folder's path %s is too long", s->spec, b->root_shown);
    return 0;
}

/* A header's path in the manifest, a line of its own: a backslash and a newline (a name may hold
 * one) escaped as two backslashes and as backslash-n. */
static void manifest_path_write(FILE *f, const char *name)
{
    for (const char *p = name; *p; p++)
        if (*p == '\\' || *p == '\n')
            fprintf(f, "\\%c", *p == '\n' ? 'n' : '\\');
        else
            fputc(*p, f);
}

/* The path a manifest line holds (manifest_path_write) into out: 0, or -1 when it does not fit. */
static int manifest_path(const char *text, char *out, size_t cap)
{
    size_t n = 0;
    for (const char *p = text; *p; p++) {
        char c = *p;
        if (c == '\\' && (p[1] == 'n' || p[1] == '\\'))
            c = *++p == 'n' ? '\n' : '\\';
        if (n + 1 >= cap)
            return -1;
        out[n++] = c;
    }
    out[n] = '\0';
    return 0;
}

/* Whether the entry is complete and every header it was compiled with is unchanged; fills the
 * compiler's version from its manifest. */
static bool entry_current(struct build *b)
{
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/manifest", b->entry);
    struct mfb_err ignored;
    size_t len;
    char *text = mfb_file_text(path, MAX_MANIFEST, &len, &ignored);
    if (!text)
        return false;
    bool ok = strncmp(text, RECIPE "\n", strlen(RECIPE) + 1) == 0;
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); ok && line; line = strtok_r(NULL, "\n", &save)) {
        if (!strncmp(line, "version ", 8)) {
            snprintf(b->version, sizeof b->version, "%s", line + 8);
        } else if (!strncmp(line, "dep ", 4) && strlen(line) > 4 + 64 + 1) {
            char now[65], name[PATH_MAX];
            ok = manifest_path(line + 4 + 65, name, sizeof name) == 0 && mfb_sha256_file(name, now) == 0 &&
                 strncmp(now, line + 4, 64) == 0;
        }
    }
    free(text);
    return ok;
}

/* Runs one step of the build; on failure, one line naming the variant, the step and why: the tool's
 * first error, or how it ended (not started, killed, past its deadline, stopped). */
static int step(struct build *b, const struct mfb_argv *v, const char *what, struct mfb_err *err)
{
    struct mfb_prog_outcome o;
    if (mfb_tool_run(MFB_PROG_BUILD, b->dl, v, NULL, &o, err) < 0)
        return -1;
    int rc = 0;
    if (o.end == MFB_PROG_NOT_STARTED) {
        rc = mfb_fail(err, "%s: cannot run the compiler '%s': %s (set CC to a C compiler)", b->s->spec, v->a[0], o.why);
    } else if (o.end == MFB_PROG_STOPPED) {
        rc = mfb_fail(err, "%s: interrupted by %s while %s; nothing of the build is kept", b->s->spec,
                      mfb_stop_signal_name(o.signal), what);
    } else if (!mfb_prog_ok(&o)) {
        char why[700], who[64];
        snprintf(who, sizeof who, "'%.40s'", v->a[0]);
        mfb_tool_why(who, MFB_PROG_BUILD, &o, why, sizeof why);
        bool undefined = strstr(why, "undefined reference") != NULL;
        rc = mfb_fail(err, "%s: %s failed: %s%s", b->s->spec, what, why,
                      undefined ? " (the code must link on its own against the C library; give what it needs in one "
                                  "archive, FILE.a:SYMBOL)" : "");
    }
    mfb_prog_outcome_free(&o);
    return rc;
}

/* Bytes of b->tmp kept free for "/<file>" (pad7.s, manifest, code.o, ...). */
#define TMP_ROOM 32

static void tmp_file(const struct build *b, char *out, size_t cap, const char *name)
{
    if (snprintf(out, cap, "%s/%s", b->tmp, name) >= (int)cap)
        out[0] = '\0'; /* cannot happen: build() keeps TMP_ROOM bytes for the name */
}

/* The relocatable object every placement is linked from, as tmp/code.o. */
static int build_object(struct build *b, struct mfb_err *err)
{
    char object[PATH_MAX + 16], deps[PATH_MAX + 16], member[PATH_MAX + 32];
    tmp_file(b, object, sizeof object, MFB_SOURCE_OBJECT_NAME);
    tmp_file(b, deps, sizeof deps, "deps");
    struct mfb_argv v = {.n = 0};
    mfb_argv_add_words(&v, &b->cc);
    switch (b->s->kind) {
    case MFB_SOURCE_C:
        mfb_argv_add_words(&v, &b->flags);
        mfb_argv_add(&v, "-fPIC");
        mfb_argv_add(&v, "-c");
        mfb_argv_add(&v, b->compiled);
        mfb_argv_add(&v, "-o");
        mfb_argv_add(&v, object);
        mfb_argv_add(&v, "-MD");
        mfb_argv_add(&v, "-MF");
        mfb_argv_add(&v, deps);
        if (step(b, &v, "compiling it", err) < 0)
            return -1;
        break;
    case MFB_SOURCE_OBJECT:
        mfb_argv_add(&v, "-r");
        mfb_argv_add(&v, "-nostdlib");
        mfb_argv_add(&v, "-o");
        mfb_argv_add(&v, object);
        mfb_argv_add(&v, b->s->path);
        if (step(b, &v, "reading the object", err) < 0)
            return -1;
        break;
    case MFB_SOURCE_ARCHIVE:
        snprintf(member, sizeof member, "-Wl,-u,%s", b->s->symbol);
        mfb_argv_add(&v, "-r");
        mfb_argv_add(&v, "-nostdlib");
        mfb_argv_add(&v, member);
        mfb_argv_add(&v, "-o");
        mfb_argv_add(&v, object);
        mfb_argv_add(&v, b->s->path);
        if (step(b, &v, "taking its members from the archive", err) < 0)
            return -1;
        break;
    }
    /* a "compiler" that succeeds without writing the object (CC=/bin/true) is no compiler */
    if (access(object, R_OK) != 0)
        return mfb_fail(err, "%s: the compiler '%s' exited 0 but wrote no object (set CC to a C compiler)",
                        b->s->spec, b->cc.w[0]);
    return 0;
}

/* Placement k's pad: an object whose only content opens the text at a page boundary plus k steps
 * of never-executed bytes. Its section, .text.unlikely, is the first the linker's default script
 * puts into the output's .text, so everything of the variant's after it (its hot and cold code)
 * moves by the same k steps. */
static int build_pad(struct build *b, unsigned k, struct mfb_err *err)
{
    char src[PATH_MAX + 16], obj[PATH_MAX + 16], name[32];
    snprintf(name, sizeof name, "pad%u.s", k);
    tmp_file(b, src, sizeof src, name);
    snprintf(name, sizeof name, "pad%u.o", k);
    tmp_file(b, obj, sizeof obj, name);
    FILE *f = fopen(src, "w");
    if (!f)
        return mfb_fail(err, "%s: cannot write a placement's pad in %s: %s", b->s->spec, b->root_shown, strerror(errno));
    fprintf(f, "\t.section .text.unlikely,\"ax\"\n\t.p2align 12\n");
    if (k > 0) /* gas warns of a .skip of 0 bytes */
        fprintf(f, "\t.skip %u, 0\n", k * MFB_PLACEMENT_STEP);
    if (fclose(f) != 0)
        return mfb_fail(err, "%s: cannot write a placement's pad in %s", b->s->spec, b->root_shown);
    struct mfb_argv v = {.n = 0};
    mfb_argv_add_words(&v, &b->cc);
    mfb_argv_add(&v, "-c");
    mfb_argv_add(&v, src);
    mfb_argv_add(&v, "-o");
    mfb_argv_add(&v, obj);
    return step(b, &v, "assembling a placement's pad", err);
}

static int link_placement(struct build *b, unsigned k, struct mfb_err *err)
{
    char pad[PATH_MAX + 16], object[PATH_MAX + 16], out[PATH_MAX + 16], name[32];
    snprintf(name, sizeof name, "pad%u.o", k);
    tmp_file(b, pad, sizeof pad, name);
    tmp_file(b, object, sizeof object, MFB_SOURCE_OBJECT_NAME);
    snprintf(name, sizeof name, MFB_SOURCE_PLACED_FMT, k);
    tmp_file(b, out, sizeof out, name);
    struct mfb_argv v = {.n = 0};
    mfb_argv_add_words(&v, &b->cc);
    mfb_argv_add_words(&v, &b->flags);
    mfb_argv_add(&v, "-shared");
    mfb_argv_add(&v, "-o");
    mfb_argv_add(&v, out);
    mfb_argv_add(&v, pad);   /* first: its section leads the text (build_pad) */
    mfb_argv_add(&v, object);
    mfb_argv_add(&v, "-Wl,-z,defs"); /* a reference the C library does not resolve fails here, named */
    return step(b, &v, "linking it into a shared object", err);
}

/* What cc --version says into out (its first line only with first), "unknown" when nothing; -1
 * when it fails. */
static int version_text(const struct mfb_words *cc, const struct mfb_deadlines *dl, bool first, char *out, size_t cap)
{
    struct mfb_argv v = {.n = 0};
    mfb_argv_add_words(&v, cc);
    mfb_argv_add(&v, "--version");
    struct mfb_err ignored;
    struct mfb_prog_outcome o;
    if (mfb_tool_run(MFB_PROG_TOOL, dl, &v, NULL, &o, &ignored) < 0)
        return -1;
    int rc = mfb_prog_ok(&o) ? 0 : -1;
    snprintf(out, cap, "%s", rc == 0 && o.out && *o.out ? o.out : "unknown");
    if (first)
        out[strcspn(out, "\n")] = '\0';
    mfb_prog_outcome_free(&o);
    return rc;
}

static void compiler_version(struct build *b)
{
    version_text(&b->cc, b->dl, true, b->version, sizeof b->version);
}

int mfb_varbuild_cc_version(const char *spec, const struct mfb_deadlines *dl, char *out, size_t cap,
                            struct mfb_err *err)
{
    const char *cc = getenv("CC");
    cc = cc && *cc ? cc : "cc";
    struct mfb_words *w = malloc(sizeof *w);
    int rc = -1;
    if (!w)
        return mfb_fail(err, "%s: out of memory", spec);
    if (mfb_words_split("CC", cc, w, err) < 0)
        goto out;
    if (w->n == 0) {
        mfb_fail(err, "%s: CC is empty", spec);
        goto out;
    }
    rc = version_text(w, dl, false, out, cap);
    if (rc < 0)
        mfb_fail(err, "%s: cannot run '%s --version' (set CC to a C compiler)", spec, cc);
out:
    free(w);
    return rc;
}

/* The next file name of a compiler's dependency file (-MD), from *at, unescaped into name (cap
 * bytes; a longer one is cut): its length, 0 when none is left before end. GCC and clang write
 * make's quoting: a space or tab as "\ " (a backslash before one doubled), '#' as "\#", '$' as
 * "$$", and break long lines with " \" and a newline. A newline in a name is written as it is:
 * the rule's only raw newline that is no name's is its last, so every one before end belongs to
 * a name (the caller leaves the trailing one out of [*at, end)). */
static size_t dep_name(const char **at, const char *end, char *name, size_t cap)
{
    const char *p = *at;
    size_t n = 0;
    /* the blanks and line continuations between names */
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || (*p == '\\' && p + 1 < end && p[1] == '\n')))
        p += *p == '\\' ? 2 : 1;
    while (p < end && *p != ' ' && *p != '\t') {
        char c = *p++;
        size_t slashes = 0;
        if (c == '\\') {
            for (slashes = 1; p < end && *p == '\\'; p++)
                slashes++;
            char next = p < end ? *p : '\0';
            /* 2N+1 backslashes and a blank: N and the blank; 2N: N, and the name ends */
            bool quotes = (next == ' ' || next == '\t') ? slashes % 2 == 1 : next == '#' || next == '\n';
            size_t keep = (next == ' ' || next == '\t') ? slashes / 2 : quotes ? slashes - 1 : slashes;
            for (size_t k = 0; k < keep && n + 1 < cap; k++)
                name[n++] = '\\';
            if (next == '\n' && quotes) { /* a continuation: the name ends */
                p++;
                break;
            }
            if (!quotes)
                continue;
            c = *p++;
        } else if (c == '$' && p < end && *p == '$') {
            p++;
        }
        if (n + 1 < cap)
            name[n++] = c;
    }
    name[n] = '\0';
    *at = p;
    return n;
}

/* The manifest, written last: the headers a FILE.c included (from the compiler's dependency
 * file: "code.o: a.c b.h \" lines, dep_name's quoting), each with its digest. */
static int write_manifest(struct build *b, struct mfb_err *err)
{
    char path[PATH_MAX + 16], deps[PATH_MAX + 16], shown[MFB_MSG_PATH_MAX];
    tmp_file(b, path, sizeof path, "manifest");
    tmp_file(b, deps, sizeof deps, "deps");
    FILE *f = fopen(path, "w");
    if (!f)
        return mfb_fail(err, "%s: cannot write %s: %s", b->s->spec, mfb_msg_path(path, shown, sizeof shown),
                        strerror(errno));
    fprintf(f, "%s\nversion %s\ncompiler %s\nflags %s\n", RECIPE, b->version, b->cc_path, b->s->flags);
    size_t len = 0;
    struct mfb_err ignored;
    char *text = b->s->kind == MFB_SOURCE_C ? mfb_file_text(deps, MAX_MANIFEST, &len, &ignored) : NULL;
    /* the target is the object in the build folder, which is memfbench's: its name ends at the
     * first ':' followed by a blank */
    char *colon = text;
    while (colon && (colon = strchr(colon, ':')) && colon[1] && !strchr(" \t\n\\", colon[1]))
        colon++;
    int rc = 0;
    if (colon && *colon == ':') {
        const char *at = colon + 1, *end = text + len;
        while (end > at && end[-1] == '\n')
            end--;
        char name[PATH_MAX];
        while (rc == 0 && dep_name(&at, end, name, sizeof name) > 0) {
            char sha[65];
            if (mfb_sha256_file(name, sha) == 0) {
                fprintf(f, "dep %s ", sha);
                manifest_path_write(f, name);
                fputc('\n', f);
            } else {
                rc = mfb_fail(err, "%s: cannot read %s, which it includes", b->s->spec,
                              mfb_msg_path(name, shown, sizeof shown));
            }
        }
    }
    free(text);
    if (fclose(f) != 0 && rc == 0)
        rc = mfb_fail(err, "%s: cannot write %s", b->s->spec, mfb_msg_path(path, shown, sizeof shown));
    return rc;
}

int mfb_varbuild_add_inputs(const struct mfb_source *s, struct mfb_inputs *in, struct mfb_err *err)
{
    char path[PATH_MAX + 16];
    if (mfb_inputs_add(in, MFB_INPUT_SOURCE, s->path, strlen(s->path), err) < 0)
        return -1;
    if (!s->dir || snprintf(path, sizeof path, "%s/manifest", s->dir) >= (int)sizeof path)
        return 0;
    size_t len;
    struct mfb_err ignored;
    char *text = mfb_file_text(path, MAX_MANIFEST, &len, &ignored);
    int rc = 0;
    for (char *save = NULL, *line = text ? strtok_r(text, "\n", &save) : NULL; line && rc == 0;
         line = strtok_r(NULL, "\n", &save)) {
        char name[PATH_MAX];
        if (!strncmp(line, "dep ", 4) && strlen(line) > 4 + 64 + 1 && manifest_path(line + 4 + 65, name, sizeof name) == 0)
            rc = mfb_inputs_add(in, MFB_INPUT_HEADER, name, strlen(name), err);
    }
    free(text);
    return rc;
}

/* A profile is a few kilobytes per function; this bounds what is read of one. */
#define MAX_PROFILE (16u << 20)

static int copy_profile(struct build *b, const char *to, struct mfb_err *err)
{
    size_t len;
    char *data = mfb_file_text(b->s->profile, MAX_PROFILE, &len, err);
    if (!data)
        return -1;
    FILE *f = fopen(to, "wb");
    bool ok = f && fwrite(data, 1, len, f) == len;
    ok = f && fclose(f) == 0 && ok;
    free(data);
    return ok ? 0 : mfb_fail(err, "%s: cannot write its profile into %s: %s", b->s->spec, b->root_shown, strerror(errno));
}

/* Only what a lookup needs stays in the entry: the object, the placements, the manifest. */
static void tidy(struct build *b)
{
    DIR *d = opendir(b->tmp);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *n = e->d_name;
        size_t len = strlen(n);
        bool keep = !strcmp(n, MFB_SOURCE_OBJECT_NAME) || !strcmp(n, "manifest") ||
                    (n[0] == 'p' && len > 3 && !strcmp(n + len - 3, ".so"));
        if (!keep && strcmp(n, ".") && strcmp(n, "..")) {
            char p[PATH_MAX + NAME_MAX + 2];
            snprintf(p, sizeof p, "%s/%s", b->tmp, n);
            unlink(p);
        }
    }
    closedir(d);
}

/* The built folder into place: over a stale entry (a header changed), or beside one another run
 * just made (theirs is as good: the key is the same). */
static int install(struct build *b, struct mfb_err *err)
{
    if (mfb_temp_settle(b->tmp, b->entry) == 0)
        return 0;
    if (errno != ENOTEMPTY && errno != EEXIST)
        return mfb_fail(err, "%s: cannot move its build into the cache %s: %s", b->s->spec, b->root_shown, strerror(errno));
    if (entry_current(b)) {
        mfb_temp_discard(b->tmp);
        return 0;
    }
    char *old = mfb_temp_make(b->root, TEMP_BASE, "-old", true);
    if (!old || rename(b->entry, old) != 0 || mfb_temp_settle(b->tmp, b->entry) != 0) {
        int e = errno;
        if (old)
            mfb_temp_discard(old);
        free(old);
        return mfb_fail(err, "%s: cannot replace its stale build in %s: %s", b->s->spec, b->root_shown, strerror(e));
    }
    mfb_temp_discard(old);
    free(old);
    return 0;
}

static int build(struct build *b, struct mfb_err *err)
{
    char *tmpl = mfb_temp_make(b->root, TEMP_BASE, "-build", true);
    if (!tmpl || strlen(tmpl) >= sizeof b->tmp - TMP_ROOM) {
        int e = tmpl ? ENAMETOOLONG : errno;
        if (tmpl)
            mfb_temp_discard(tmpl);
        free(tmpl);
        return mfb_fail(err, "%s: cannot make a build folder in %s: %s", b->s->spec, b->root_shown, strerror(e));
    }
    snprintf(b->tmp, sizeof b->tmp, "%s", tmpl);
    free(tmpl);
    char object[PATH_MAX + 16];
    tmp_file(b, object, sizeof object, MFB_SOURCE_OBJECT_NAME);
    struct mfb_elf_symbol sym;
    /* GCC reads the profile of code.o from code.gcda beside it: the name the instrumented build's
     * object had when the training wrote it (orchestrate/pgo.c) */
    int rc = 0;
    if (b->s->pgo_stage == MFB_PGO_TRAINED && b->s->pgo_family == MFB_PGO_GCC) {
        char gcda[PATH_MAX + 16];
        tmp_file(b, gcda, sizeof gcda, "code.gcda");
        rc = copy_profile(b, gcda, err);
    }
    /* the symbol is checked before eight links: a wrong one fails in a second, named */
    if (rc == 0)
        rc = build_object(b, err);
    if (rc == 0 && (rc = mfb_source_check_symbol(object, b->s->path, b->s->symbol, &sym, err)) == 0)
        mfb_elf_symbol_free(&sym);
    for (unsigned k = 0; rc == 0 && k < MFB_CODE_PLACEMENTS; k++)
        rc = build_pad(b, k, err);
    for (unsigned k = 0; rc == 0 && k < MFB_CODE_PLACEMENTS; k++)
        rc = link_placement(b, k, err);
    if (rc == 0) {
        compiler_version(b);
        rc = write_manifest(b, err);
    }
    if (rc == 0) {
        tidy(b);
        rc = install(b, err);
    }
    if (rc < 0)
        mfb_temp_discard(b->tmp);
    return rc;
}

static char *dup_or_fail(const char *s, bool *failed)
{
    char *d = strdup(s);
    *failed = *failed || !d;
    return d;
}

int mfb_varbuild(struct mfb_source *s, const char *flags_option, const struct mfb_deadlines *dl, struct mfb_err *err)
{
    uint64_t t0 = mfb_mono_ns();
    struct build *b = calloc(1, sizeof *b);
    if (!b)
        return mfb_fail(err, "%s: out of memory", s->spec);
    b->s = s;
    b->dl = dl;
    const char *cc = getenv("CC"), *cflags = getenv("CFLAGS");
    cc = cc && *cc ? cc : "cc";
    s->flags_source = flags_option ? MFB_FLAGS_OPTION : cflags ? MFB_FLAGS_ENV : MFB_FLAGS_DEFAULT;
    const char *flags = flags_option ? flags_option : cflags ? cflags : MFB_VARBUILD_DEFAULT_FLAGS;
    int rc = -1;
    bool oom = false;
    char root[PATH_MAX];
    mfb_source_cache_root(root, sizeof root);
    mfb_msg_path(s->path, b->path_shown, sizeof b->path_shown);
    if (mfb_words_split("CC", cc, &b->cc, err) < 0 || mfb_words_split(mfb_flags_source_name(s->flags_source), flags, &b->flags, err) < 0)
        goto out;
    if (b->cc.n == 0) {
        mfb_fail(err, "%s: CC is empty", s->spec);
        goto out;
    }
    char found[PATH_MAX];
    if (mfb_program_find(b->cc.w[0], found, sizeof found) != 0 || !realpath(found, b->cc_path)) {
        mfb_fail(err, "%s: no C compiler: '%s' is not on PATH (set CC to one)", s->spec, b->cc.w[0]);
        goto out;
    }
    if (!root[0]) {
        mfb_fail(err, "%s: no folder for built variants: set MEMFBENCH_CACHE (or HOME)", s->spec);
        goto out;
    }
    int too_long = snprintf(b->root, sizeof b->root, "%s/variants", root) >= (int)sizeof b->root;
    mfb_msg_path(b->root, b->root_shown, sizeof b->root_shown);
    if (too_long || mfb_make_dirs(b->root) != 0) {
        mfb_fail(err, "%s: cannot make the folder for built variants %s: %s (set MEMFBENCH_CACHE)", s->spec,
                 b->root_shown, too_long ? "the path is too long" : strerror(errno));
        goto out;
    }
    /* the flags as one normalized line, as the key and the file record them; --pgo's or --param's after them
     * (the words of both fit: each is split from at most MFB_TOOL_MAX_COMMAND bytes) */
    struct mfb_words *extra = &b->extra;
    const char *whose = s->param_flags ? "--param's flags" : "--pgo's flags";
    if (mfb_words_split(whose, s->extra_flags ? s->extra_flags : "", extra, err) < 0)
        goto out;
    for (int i = 0; i < extra->n && b->flags.n < MFB_TOOL_MAX_WORDS - 1; i++)
        b->flags.w[b->flags.n++] = extra->w[i];
    char joined[2 * MFB_TOOL_MAX_COMMAND + 2] = "";
    for (int i = 0, at = 0; i < b->flags.n; i++)
        at += snprintf(joined + at, sizeof joined - (size_t)at, "%s%s", i ? " " : "", b->flags.w[i]);
    s->compiler = dup_or_fail(cc, &oom);
    s->flags = dup_or_fail(joined, &oom);
    if (oom) {
        mfb_fail(err, "%s: out of memory", s->spec);
        goto out;
    }
    /* removes what killed builds left (their process gone) before this one adds its own */
    mfb_temp_remove_stale(b->root, false);
    if (make_key(b, err) < 0)
        goto out;
    s->cached = entry_current(b);
    if (!s->cached && build(b, err) < 0)
        goto out;
    /* the key of a FILE.c or FILE.o is not its symbol's: a build found for one symbol is checked
     * for this one, as a build checks it, so a wrong one is named here, by the user's file */
    char object[PATH_MAX + 16];
    struct mfb_elf_symbol sym;
    snprintf(object, sizeof object, "%s/" MFB_SOURCE_OBJECT_NAME, b->entry);
    if (s->cached && mfb_source_check_symbol(object, s->path, s->symbol, &sym, err) < 0)
        goto out;
    if (s->cached)
        mfb_elf_symbol_free(&sym);
    s->compiler_path = dup_or_fail(b->cc_path, &oom);
    s->compiler_version = dup_or_fail(b->version, &oom);
    s->dir = dup_or_fail(b->entry, &oom);
    rc = oom ? mfb_fail(err, "%s: out of memory", s->spec) : 0;
out:
    s->build_s = (double)(mfb_mono_ns() - t0) / 1e9;
    free(b);
    return rc;
}
