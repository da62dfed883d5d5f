#include "report/folder.h"

#include "files/temporaries.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *mfb_folder_begin(const char *target, struct mfb_err *err)
{
    size_t len = strlen(target);
    if (len == 0 || len >= PATH_MAX - 64) {
        mfb_fail(err, "-o: %s folder name", len ? "too long a" : "empty");
        return NULL;
    }
    struct stat st;
    if (lstat(target, &st) == 0) {
        mfb_fail(err, "%s: exists; give a new folder (nothing is written over)", target);
        return NULL;
    }
    char parent[PATH_MAX];
    snprintf(parent, sizeof parent, "%s", target);
    while (len > 1 && parent[len - 1] == '/')
        parent[--len] = '\0';
    const char *base;
    char dir[PATH_MAX];
    mfb_temp_split(parent, dir, sizeof dir, &base);
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        mfb_fail(err, "%s: the folder %s does not exist", target, dir);
        return NULL;
    }
    mfb_temp_remove_stale(dir, true); /* a folder left by a record or merge that was killed */
    char *tmp = mfb_temp_make(dir, base, "", true);
    if (!tmp) {
        mfb_fail(err, "%s: cannot create a folder in %s: %s", target, dir, strerror(errno));
        return NULL;
    }
    /* mkdtemp makes it 0700; the result is an ordinary folder */
    mode_t mask = umask(0);
    umask(mask);
    chmod(tmp, 0777 & ~mask);
    return tmp;
}

int mfb_folder_put_json(const char *dir, const char *name, const cJSON *doc, struct mfb_err *err)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *text = cJSON_Print(doc);
    if (!text)
        return mfb_fail(err, "%s: out of memory", name);
    FILE *fp = fopen(path, "w");
    int bad = !fp;
    if (fp) {
        bad |= fputs(text, fp) < 0 || fputc('\n', fp) == EOF;
        bad |= fclose(fp) != 0;
    }
    free(text);
    return bad ? mfb_fail(err, "%s: cannot write %s", dir, name) : 0;
}

/* rename(2) that never replaces: a plain rename puts a folder over an empty folder of that name
 * (one a recorded program made, say) without a word. A file system without RENAME_NOREPLACE gets
 * a look first; only a writer racing us for the same name in between could then lose it. */
static int rename_noreplace(const char *from, const char *to)
{
    if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0)
        return 0;
    if (errno != EINVAL && errno != ENOSYS)
        return -1;
    struct stat st;
    if (lstat(to, &st) == 0) {
        errno = EEXIST;
        return -1;
    }
    return rename(from, to);
}

int mfb_folder_commit(const char *tmp, const char *target, struct mfb_err *err)
{
    if (rename_noreplace(tmp, target) != 0)
        return mfb_fail(err, "%s: cannot move the folder into place: %s", target, strerror(errno));
    mfb_temp_forget(tmp);
    return 0;
}

/* The names tried beside a target that was taken: TARGET-2 up to this, as a second study's file is
 * default-2.json.gz. Each try is one rename, so even all of them are quick. */
#define BESIDE_MAX 9999

int mfb_folder_commit_beside(const char *tmp, const char *target, char *placed, size_t cap, struct mfb_err *err)
{
    if (rename_noreplace(tmp, target) == 0) {
        mfb_temp_forget(tmp);
        snprintf(placed, cap, "%s", target);
        return 0;
    }
    int why = errno;
    size_t len = strlen(target);
    while (len > 1 && target[len - 1] == '/')
        len--;
    for (int k = 2; why == EEXIST && k <= BESIDE_MAX; k++) {
        if ((size_t)snprintf(placed, cap, "%.*s-%d", (int)len, target, k) >= cap) {
            why = ENAMETOOLONG;
            break;
        }
        if (rename_noreplace(tmp, placed) == 0) {
            mfb_temp_forget(tmp);
            return 1;
        }
        why = errno;
    }
    /* the temporary is named as what it is: removed by a later run in that folder once we are gone,
     * not at this one's exit (it holds the only copy) */
    mfb_temp_forget(tmp);
    return mfb_fail(err, "%s: cannot move the folder into place or beside it (%s); it is kept as %s: rename it "
                         "before another memfbench command writes into that folder", target,
                    why == EEXIST ? "every name tried exists" : strerror(why), tmp);
}

void mfb_folder_abort(const char *tmp)
{
    if (tmp)
        mfb_temp_discard(tmp);
}
