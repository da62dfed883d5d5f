#include "files/temporaries.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Temporaries are named ".<name>.memfbench-<pid>[what].XXXXXX" beside the target: hidden, never
 * ending in .json (so no reader globbing results picks one up), and carrying the pid of the
 * process that made them, so a later run can tell a leftover (its process gone, e.g. after
 * kill -9) from one in use and remove it. */
#define TMP_TAG ".memfbench-"

/* A file name has at most NAME_MAX (255) bytes. Around the target's name a temporary adds the dot,
 * the tag (11), the pid (at most 19 digits), what (under 16: "-proc<N>") and mkstemp's ".XXXXXX"
 * (7): 70 bytes at most. A longer target name keeps its first bytes and a hash of the whole, so
 * a legal 250-byte name still gets a temporary, and two long names that share a beginning do not
 * share one. */
#define STEM_MAX 185
#define STEM_HASH_CHARS 9 /* "~" and 8 hex digits */

/* The part of a temporary's name that stands for the target's name base: base itself, or its
 * first bytes, '~' and the FNV-1a hash of all of it. */
static void temp_stem(const char *base, char stem[STEM_MAX + 1])
{
    size_t len = strlen(base);
    if (len <= STEM_MAX) {
        memcpy(stem, base, len + 1);
        return;
    }
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)base[i]) * 16777619u;
    snprintf(stem, STEM_MAX + 1, "%.*s~%08x", STEM_MAX - STEM_HASH_CHARS, base, (unsigned)h);
}

void mfb_temp_split(const char *path, char *dir, size_t dir_cap, const char **base)
{
    const char *slash = strrchr(path, '/');
    if (!slash) {
        snprintf(dir, dir_cap, ".");
        *base = path;
    } else if (slash == path) {
        snprintf(dir, dir_cap, "/");
        *base = slash + 1;
    } else {
        snprintf(dir, dir_cap, "%.*s", (int)(slash - path), path);
        *base = slash + 1;
    }
}

char *mfb_temp_template(const char *dir, const char *base, const char *what)
{
    char stem[STEM_MAX + 1];
    temp_stem(base, stem);
    size_t n = strlen(dir) + strlen(stem) + strlen(what) + 64;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/.%s%s%ld%s.XXXXXX", dir, stem, TMP_TAG, (long)getpid(), what);
    return p;
}

int mfb_temp_remove_stale(const char *dir, bool say)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    /* every memfbench temporary of a dead process, whatever its target: a killed run's for
     * another file of this folder would otherwise stay until a run to that very file */
    int removed = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *n = e->d_name, *tag = n[0] == '.' ? strstr(n + 1, TMP_TAG) : NULL;
        if (!tag)
            continue;
        char *end;
        long pid = strtol(tag + strlen(TMP_TAG), &end, 10);
        if (pid <= 0 || end == tag + strlen(TMP_TAG) || (*end != '.' && *end != '-') || pid == (long)getpid())
            continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue; /* its process is alive (or not ours to probe): in use */
        char full[PATH_MAX];
        if ((size_t)snprintf(full, sizeof full, "%s/%s", dir, n) >= sizeof full)
            continue;
        if (unlink(full) != 0 && (errno == EISDIR || errno == EPERM))
            mfb_temp_remove_tree(full);
        removed++;
    }
    closedir(d);
    if (say && removed > 0)
        fprintf(stderr, "memfbench: %s: removed %d temporar%s left by runs that were killed\n", dir, removed,
                removed == 1 ? "y" : "ies");
    return removed;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    (flag == FTW_DP ? rmdir : unlink)(path);
    return 0;
}

void mfb_temp_remove_tree(const char *path)
{
    nftw(path, remove_one, 8, FTW_DEPTH | FTW_PHYS);
}

/* The register: a growable list of paths (a study registers one file per process, up to
 * MFB_MAX_PROCESSES, besides its output; no command comes near thousands). */
static struct {
    char **path;
    int n, cap;
    bool at_exit;
    pid_t owner; /* the process that registered them: a forked child that exits removes nothing */
} reg;

static void remove_registered(void)
{
    if (reg.owner != getpid())
        return;
    for (int i = 0; i < reg.n; i++) {
        mfb_temp_remove_tree(reg.path[i]);
        free(reg.path[i]);
    }
    reg.n = 0;
}

bool mfb_temp_register(const char *path)
{
    if (!reg.at_exit) {
        atexit(remove_registered);
        reg.at_exit = true;
        reg.owner = getpid();
    }
    if (reg.n == reg.cap) {
        int cap = reg.cap ? 2 * reg.cap : 16;
        char **p = realloc(reg.path, (size_t)cap * sizeof *p);
        if (!p)
            return false;
        reg.path = p;
        reg.cap = cap;
    }
    char *copy = strdup(path);
    if (!copy)
        return false;
    reg.path[reg.n++] = copy;
    return true;
}

void mfb_temp_forget(const char *path)
{
    for (int i = reg.n - 1; i >= 0; i--)
        if (!strcmp(reg.path[i], path)) {
            free(reg.path[i]);
            reg.path[i] = reg.path[--reg.n];
            return;
        }
}

char *mfb_temp_make(const char *dir, const char *base, const char *what, bool folder)
{
    char *p = mfb_temp_template(dir, base, what);
    if (!p) {
        errno = ENOMEM;
        return NULL;
    }
    int fd = -1;
    if (folder ? mkdtemp(p) == NULL : (fd = mkstemp(p)) < 0) {
        int e = errno;
        free(p);
        errno = e;
        return NULL;
    }
    if (fd >= 0)
        close(fd);
    mfb_temp_register(p);
    return p;
}

int mfb_temp_settle(const char *tmp, const char *target)
{
    if (rename(tmp, target) != 0)
        return -1;
    mfb_temp_forget(tmp);
    return 0;
}

void mfb_temp_discard(const char *path)
{
    mfb_temp_remove_tree(path);
    mfb_temp_forget(path);
}

int mfb_temp_registered(void)
{
    return reg.n;
}

void mfb_cache_root(char *out, size_t cap)
{
    const char *own = getenv("MEMFBENCH_CACHE"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (own && *own)
        snprintf(out, cap, "%s", own);
    else if (xdg && *xdg)
        snprintf(out, cap, "%s/memfbench", xdg);
    else if (home && *home)
        snprintf(out, cap, "%s/.cache/memfbench", home);
    else
        snprintf(out, cap, "%s", "");
}

void mfb_temp_sweep(void)
{
    const char *t = getenv("TMPDIR");
    mfb_temp_remove_stale(t && *t ? t : "/tmp", false);
    char cache_root[PATH_MAX];
    mfb_cache_root(cache_root, sizeof cache_root);
    if (!cache_root[0])
        return;
    const char *sub[] = {"variants", "profiles"};
    for (size_t i = 0; i < sizeof sub / sizeof sub[0]; i++) {
        char dir[PATH_MAX];
        if (snprintf(dir, sizeof dir, "%s/%s", cache_root, sub[i]) < (int)sizeof dir)
            mfb_temp_remove_stale(dir, false);
    }
}
