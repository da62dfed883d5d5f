#include "workload/csv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int mfb_csv_open(struct mfb_csv *c, const char *path, struct mfb_err *err)
{
    memset(c, 0, sizeof *c);
    c->path = path;
    c->f = fopen(path, "rb");
    if (!c->f)
        return mfb_fail(err, "%s: cannot open: %s", path, strerror(errno));
    return 0;
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
        ssize_t len = getline(&c->buf, &c->cap, c->f);
        if (len < 0) {
            if (ferror(c->f))
                return mfb_fail(err, "%s:%d: read error: %s", c->path, c->line + 1, strerror(errno));
            return 0;
        }
        c->line++;
        if (memchr(c->buf, '\0', (size_t)len))
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
            if (push_field(c, field) < 0)
                return mfb_fail(err, "%s:%d: out of memory", c->path, c->line);
            if (!comma)
                break;
            p = comma + 1;
        }
        return 1;
    }
}
