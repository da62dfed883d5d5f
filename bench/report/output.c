#include "output.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int mfb_output_open(struct mfb_output *o, const char *path, struct mfb_err *err)
{
    memset(o, 0, sizeof *o);
    o->path = strdup(path);
    if (!strcmp(path, "-")) {
        o->f = stdout;
        return 0;
    }
    size_t n = strlen(path) + 32;
    o->tmp = malloc(n);
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

/* One samples column: a JSON array of integers, streamed (hundreds of thousands of numbers
 * would cost far more memory as cJSON nodes). */
#define WRITE_COLUMN(f, name, v, expr, fmt, last)                                                  \
    do {                                                                                           \
        fprintf(f, "    \"%s\": [", name);                                                         \
        for (size_t i_ = 0; i_ < (v)->n; i_++) {                                                   \
            const struct mfb_sample *s_ = &(v)->s[i_];                                             \
            fprintf(f, i_ ? "," fmt : fmt, expr);                                                  \
        }                                                                                          \
        fprintf(f, "]%s\n", (last) ? "" : ",");                                                    \
    } while (0)

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
    fprintf(f, ",\n\t\"samples\": {\n    \"count\": %zu,\n", smp->n);
    WRITE_COLUMN(f, "variant", smp, (unsigned)s_->variant, "%u", 0);
    WRITE_COLUMN(f, "round", smp, (unsigned)s_->round, "%u", 0);
    WRITE_COLUMN(f, "position", smp, (unsigned)s_->position, "%u", 0);
    WRITE_COLUMN(f, "calls", smp, (unsigned)s_->calls, "%u", 0);
    WRITE_COLUMN(f, "bytes", smp, (unsigned long long)s_->bytes, "%llu", 0);
    WRITE_COLUMN(f, "ticks", smp, (unsigned long long)s_->ticks, "%llu", 0);
    WRITE_COLUMN(f, "ns", smp, s_->ns, "%.3f", 0);
    WRITE_COLUMN(f, "t_start_ns", smp, (unsigned long long)s_->t_start_ns, "%llu", 0);
    WRITE_COLUMN(f, "cpu", smp, (int)s_->cpu, "%d", 0);
    WRITE_COLUMN(f, "warmup", smp, s_->warmup ? "true" : "false", "%s", 0);
    WRITE_COLUMN(f, "process", smp, (unsigned)s_->process, "%u", 1);
    fprintf(f, "\t}\n}\n");
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
