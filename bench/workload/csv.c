#include "workload/csv.h"

#include "base/openin.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int mfb_csv_open(struct mfb_csv *c, const char *path, struct mfb_err *err)
{
    memset(c, 0, sizeof *c);
    c->path = path;
    /* a device or a pipe may never end (/dev/zero) and cannot be read twice: a table is a file */
    c->f = mfb_open_input(path, "give a table or trace as a file", err);
    return c->f ? 0 : -1;
}

/* One line into c->buf, at most MFB_CSV_MAX_LINE bytes: its length, 0 at the end of the file, or
 * -1 with err for a line longer than that or a read error. */
static long read_line(struct mfb_csv *c, struct mfb_err *err)
{
    if (!c->buf) {
        if (!(c->buf = malloc(MFB_CSV_MAX_LINE + 2)))
            return mfb_fail(err, "%s: out of memory", c->path);
        c->cap = MFB_CSV_MAX_LINE + 2;
    }
    if (!fgets(c->buf, (int)c->cap, c->f)) {
        if (ferror(c->f))
            return mfb_fail(err, "%s:%d: read error: %s", c->path, c->line + 1, strerror(errno));
        return 0;
    }
    /* fgets stops at a NUL too: the length read is where the newline is, or the buffer's end */
    char *nl = memchr(c->buf, '\n', c->cap - 1);
    size_t len = nl ? (size_t)(nl - c->buf) + 1 : strnlen(c->buf, c->cap - 1);
    if (!nl && len >= MFB_CSV_MAX_LINE && !feof(c->f))
        return mfb_fail(err, "%s:%d: a line longer than %d bytes: not a table", c->path, c->line + 1, MFB_CSV_MAX_LINE);
    c->bytes += len;
    if (c->bytes > MFB_CSV_MAX_BYTES)
        return mfb_fail(err, "%s:%d: more than %llu bytes: not a table", c->path, c->line + 1,
                        (unsigned long long)MFB_CSV_MAX_BYTES);
    return (long)len;
}

void mfb_csv_close(struct mfb_csv *c)
{
    if (c->f)
        fclose(c->f);
    free(c->buf);
    free(c->fields);
    memset(c, 0, sizeof *c);
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    char *e = s + strlen(s);
    while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
        *--e = '\0';
    return s;
}

/* Strips one pair of surrounding double quotes; quotes inside a field are not supported
 * because no distribution key or weight needs them. */
static char *unquote(char *s, int *bad)
{
    size_t n = strlen(s);
    if (n >= 2 && s[0] == '"' && s[n - 1] == '"') {
        s[n - 1] = '\0';
        s++;
    }
    if (strchr(s, '"'))
        *bad = 1;
    return s;
}

static int push_field(struct mfb_csv *c, char *field)
{
    if (c->nfields == c->fields_cap) {
        int cap = c->fields_cap ? c->fields_cap * 2 : 8;
        char **p = realloc(c->fields, (size_t)cap * sizeof *p);
        if (!p)
            return -1;
        c->fields = p;
        c->fields_cap = cap;
    }
    c->fields[c->nfields++] = field;
    return 0;
}

int mfb_csv_next(struct mfb_csv *c, struct mfb_err *err)
{
    for (;;) {
        long len = read_line(c, err);
        if (len <= 0)
            return (int)len;
        c->line++;
        if (strlen(c->buf) < (size_t)len || memchr(c->buf, '\0', (size_t)len))
            return mfb_fail(err, "%s:%d: NUL byte: not a text file", c->path, c->line);
        char *s = c->buf;
        if (c->line == 1 && len >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0)
            s += 3;
        size_t n = strlen(s);
        while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r'))
            s[--n] = '\0';
        s = trim(s);
        if (*s == '\0' || *s == '#')
            continue;
        c->nfields = 0;
        for (char *p = s;;) {
            char *comma = strchr(p, ',');
            if (comma)
                *comma = '\0';
            int bad = 0;
            char *field = unquote(trim(p), &bad);
            if (bad)
                return mfb_fail(err, "%s:%d: field %d: stray double quote", c->path, c->line,
                                c->nfields + 1);
            if (c->nfields == MFB_CSV_MAX_FIELDS)
                return mfb_fail(err, "%s:%d: more than %d fields: not a table", c->path, c->line, MFB_CSV_MAX_FIELDS);
            if (push_field(c, field) < 0)
                return mfb_fail(err, "%s:%d: out of memory", c->path, c->line);
            if (!comma)
                break;
            p = comma + 1;
        }
        return 1;
    }
}
