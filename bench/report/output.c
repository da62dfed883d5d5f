#include "report/output.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int mfb_output_open(struct mfb_output *o, const char *path, struct mfb_err *err)
{
    memset(o, 0, sizeof *o);
    if (!(o->path = strdup(path)))
        return mfb_fail(err, "%s: out of memory", path);
    if (!strcmp(path, "-")) {
        o->f = stdout;
        return 0;
    }
    size_t n = strlen(path) + 32;
    if (!(o->tmp = malloc(n))) {
        mfb_output_abort(o);
        return mfb_fail(err, "%s: out of memory", path);
    }
    const char *slash = strrchr(path, '/');
    /* A hidden temporary in the target's folder, so the final rename stays on one filesystem. */
    if (slash)
        snprintf(o->tmp, n, "%.*s/.%s.XXXXXX", (int)(slash - path), path, slash + 1);
    else
        snprintf(o->tmp, n, ".%s.XXXXXX", path);
    int fd = mkstemp(o->tmp);
    if (fd < 0) {
        int e = errno;
        free(o->tmp);
        o->tmp = NULL;
        mfb_output_abort(o);
        return mfb_fail(err, "%s: cannot create the output file: %s", path, strerror(e));
    }
    /* mkstemp creates the file 0600; a result file is an ordinary file (0666 less umask). */
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    o->f = fdopen(fd, "w");
    if (!o->f) {
        close(fd);
        mfb_output_abort(o);
        return mfb_fail(err, "%s: cannot open the output file", path);
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
    FILE *f = o->f;
    fwrite(text, 1, len - 1, f);
    free(text);
    fputs(",\n", f);
    if (mfb_columns_write(f, smp) < 0)
        return mfb_fail(err, "%s: write error", o->path);
    fputs("\n}\n", f);
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
    if (rename(o->tmp, o->path) != 0) {
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
        unlink(o->tmp);
        free(o->tmp);
        o->tmp = NULL;
    }
    free(o->path);
    o->path = NULL;
}
