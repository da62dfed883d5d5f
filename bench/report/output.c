#include "report/output.h"

#include "report/gzip.h"
#include "files/temporaries.h"

#include <stdbool.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *mfb_output_temp(const char *target, const char *what)
{
    char dir[PATH_MAX];
    const char *base;
    mfb_temp_split(target, dir, sizeof dir, &base);
    char *p = mfb_temp_make(dir, base, what, false);
    if (!p)
        return NULL;
    /* made 0600; a result file is an ordinary file (0666 less umask). */
    mode_t mask = umask(0);
    umask(mask);
    chmod(p, 0666 & ~mask);
    return p;
}

/* Refuses targets a result must not replace: anything but a regular file (a device node, a
 * directory, a FIFO), a name that can only be a folder, a path too long to make. */
int mfb_output_check(const char *path, struct mfb_err *err)
{
    size_t len = strlen(path);
    if (len == 0)
        return mfb_fail(err, "-o: empty file name");
    if (len >= PATH_MAX - 64)
        return mfb_fail(err, "-o: path of %zu bytes is too long (at most %d)", len, PATH_MAX - 65);
    if (path[len - 1] == '/')
        return mfb_fail(err, "%s: -o names a folder; give a file name", path);
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    if (!strcmp(base, ".") || !strcmp(base, ".."))
        return mfb_fail(err, "%s: -o names a folder; give a file name", path);
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return mfb_fail(err, "%s: exists and is not a regular file (%s); memfbench replaces only regular files",
                        path, S_ISDIR(st.st_mode) ? "a directory" : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
                              : S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISSOCK(st.st_mode) ? "a socket" : "not a file");
    return 0;
}

int mfb_output_open_direct(struct mfb_output *o, const char *path, struct mfb_err *err)
{
    memset(o, 0, sizeof *o);
    if (!(o->path = strdup(path)))
        return mfb_fail(err, "%s: out of memory", path);
    if (!(o->f = fopen(path, "w"))) {
        int e = errno;
        mfb_output_abort(o);
        return mfb_fail(err, "%s: cannot open the output file: %s", path, strerror(e));
    }
    return 0;
}

int mfb_output_open(struct mfb_output *o, const char *path, struct mfb_err *err)
{
    memset(o, 0, sizeof *o);
    if (!strcmp(path, "-")) {
        if (!(o->path = strdup(path)))
            return mfb_fail(err, "%s: out of memory", path);
        o->f = stdout;
        return 0;
    }
    if (mfb_output_check(path, err) < 0)
        return -1;
    /* A symbolic link to a file: the result replaces the file it points to, not the link. */
    char real[PATH_MAX];
    struct stat st;
    const char *target = lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && realpath(path, real) ? real : path;
    if (!(o->path = strdup(target)))
        return mfb_fail(err, "%s: out of memory", path);
    char dir[PATH_MAX];
    const char *base;
    mfb_temp_split(target, dir, sizeof dir, &base);
    mfb_temp_remove_stale(dir, true);
    if (!(o->tmp = mfb_output_temp(target, ""))) {
        int e = errno;
        mfb_output_abort(o);
        return mfb_fail(err, "%s: cannot create the output file: %s", path, strerror(e));
    }
    o->f = fopen(o->tmp, "w");
    if (!o->f) {
        int e = errno;
        mfb_output_abort(o);
        return mfb_fail(err, "%s: cannot open the output file: %s", path, strerror(e));
    }
    return 0;
}

int mfb_output_commit(struct mfb_output *o, cJSON *doc, const struct mfb_samples *smp, struct mfb_err *err)
{
    char *text = cJSON_Print(doc);
    if (!text)
        return mfb_fail(err, "%s: out of memory formatting the result", o->path);
    /* cJSON_Print of an object ends with '}': reopen it to append the samples. */
    size_t len = strlen(text);
    while (len > 0 && text[len - 1] != '}')
        len--;
    /* A name ending in .gz gets the same text gzip-compressed (stdout stays plain). */
    bool gz = o->f != stdout && mfb_gzip_wanted(o->path);
    FILE *f = gz ? mfb_gzip_writer(o->f) : o->f;
    if (!f) {
        free(text);
        return mfb_fail(err, "%s: out of memory starting the compressor", o->path);
    }
    int bad = 0;
    if (smp) {
        fwrite(text, 1, len - 1, f);
        fputs(",\n", f);
        bad = mfb_columns_write(f, smp) < 0;
        fputs("\n}\n", f);
    } else {
        fwrite(text, 1, len, f);
        fputs("\n", f);
    }
    free(text);
    if (gz) {
        bad |= ferror(f) != 0;
        bad |= fclose(f) != 0;
        f = o->f;
    }
    if (bad)
        return mfb_fail(err, "%s: write error%s", o->path, gz ? " (compressing)" : "");
    if (o->f == stdout) {
        if (fflush(stdout) != 0)
            return mfb_fail(err, "stdout: write error: %s", strerror(errno));
        return 0;
    }
    if (fflush(f) != 0 || ferror(f) || fsync(fileno(f)) != 0) {
        int e = errno;
        return mfb_fail(err, "%s: write error: %s", o->path, strerror(e));
    }
    fclose(f);
    o->f = NULL;
    if (!o->tmp)
        return 0; /* written in place (mfb_output_open_direct) */
    if (mfb_temp_settle(o->tmp, o->path) != 0) {
        int e = errno;
        return mfb_fail(err, "%s: cannot move the result into place: %s", o->path, strerror(e));
    }
    free(o->tmp);
    o->tmp = NULL;
    return 0;
}

void mfb_output_abort(struct mfb_output *o)
{
    if (o->f && o->f != stdout)
        fclose(o->f);
    o->f = NULL;
    if (o->tmp) {
        mfb_temp_discard(o->tmp);
        free(o->tmp);
        o->tmp = NULL;
    }
    free(o->path);
    o->path = NULL;
}
