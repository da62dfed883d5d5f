#include "report/temporaries.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
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
    size_t n = strlen(dir) + strlen(base) + strlen(what) + 64;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/.%s%s%ld%s.XXXXXX", dir, base, TMP_TAG, (long)getpid(), what);
    return p;
}

void mfb_temp_remove_stale(const char *dir, const char *base)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    size_t blen = strlen(base);
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *n = e->d_name;
        if (n[0] != '.' || strncmp(n + 1, base, blen) != 0 || strncmp(n + 1 + blen, TMP_TAG, strlen(TMP_TAG)) != 0)
            continue;
        char *end;
        long pid = strtol(n + 1 + blen + strlen(TMP_TAG), &end, 10);
        if (pid <= 0 || (*end != '.' && *end != '-') || pid == (long)getpid())
            continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue; /* its process is alive (or not ours to probe): in use */
        char full[PATH_MAX];
        if ((size_t)snprintf(full, sizeof full, "%s/%s", dir, n) < sizeof full && unlink(full) != 0 &&
            (errno == EISDIR || errno == EPERM))
            mfb_temp_remove_tree(full);
    }
    closedir(d);
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
