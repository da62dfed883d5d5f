#include "base/parse.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Digits of base 10 or 16 from s up to the first other character; *end points there. */
static int digits(const char *s, int base, uint64_t *out, const char **end)
{
    const char *p = s;
    while (base == 16 ? isxdigit((unsigned char)*p) : isdigit((unsigned char)*p))
        p++;
    if (p == s)
        return -1;
    errno = 0;
    unsigned long long v = strtoull(s, NULL, base);
    if (errno == ERANGE)
        return -1;
    *out = v;
    *end = p;
    return 0;
}

int mfb_parse_u64(const char *s, uint64_t *out)
{
    const char *end;
    uint64_t v;
    if (digits(s, 10, &v, &end) < 0 || *end)
        return -1;
    *out = v;
    return 0;
}

int mfb_parse_seed(const char *s, uint64_t *out)
{
    bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    const char *end;
    uint64_t v;
    if (digits(hex ? s + 2 : s, hex ? 16 : 10, &v, &end) < 0 || *end)
        return -1;
    /* "010" is ten here and eight to strtoull(s, 0), printf's %i, the shell's $((010)) and most C
     * tools a seed is copied between: one text, two seeds. A decimal seed with a leading zero is
     * refused, so every seed that is accepted means the same to all of them. */
    if (!hex && s[0] == '0' && s[1] != '\0')
        return -1;
    *out = v;
    return 0;
}

int mfb_parse_bytes(const char *s, size_t *out)
{
    const char *end;
    uint64_t v;
    if (digits(s, 10, &v, &end) < 0)
        return -1;
    unsigned shift = 0;
    if (*end == 'K' || *end == 'k')
        shift = 10, end++;
    else if (*end == 'M' || *end == 'm')
        shift = 20, end++;
    else if (*end == 'G' || *end == 'g')
        shift = 30, end++;
    /* "iB" only after a unit letter: "1iB" is not a size. */
    if (shift && *end == 'i' && end[1] == 'B')
        end += 2;
    else if (*end == 'B')
        end++;
    /* sysfs lines end in a newline. */
    if ((*end != '\0' && strcmp(end, "\n") != 0) || v > (SIZE_MAX >> shift))
        return -1;
    *out = (size_t)(v << shift);
    return 0;
}

int mfb_parse_name(const char *s, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(s, names[i]))
            return i;
    return -1;
}

/* Walks a CPU list ("0-3,8", sysfs and command-line syntax; a trailing newline allowed) range by
 * range: visit gets each [lo, hi] and returns < 0 to stop the walk with that value. -1: not a
 * list (junk, an empty list or item, a descending range). */
static int walk_cpu_ranges(const char *s, int (*visit)(uint64_t lo, uint64_t hi, void *ctx), void *ctx)
{
    const char *p = s;
    for (;;) {
        uint64_t lo, hi;
        if (digits(p, 10, &lo, &p) < 0)
            return -1;
        hi = lo;
        if (*p == '-' && digits(p + 1, 10, &hi, &p) < 0)
            return -1;
        if (hi < lo)
            return -1;
        int rc = visit(lo, hi, ctx);
        if (rc < 0)
            return rc;
        if (*p == ',') {
            p++;
            continue;
        }
        return *p == '\0' || !strcmp(p, "\n") ? 0 : -1;
    }
}

struct cpu_set_ctx {
    bool *out;
    size_t n;
};

static int set_range(uint64_t lo, uint64_t hi, void *ctx)
{
    struct cpu_set_ctx *c = ctx;
    for (uint64_t cpu = lo; cpu <= hi && cpu < c->n; cpu++)
        c->out[cpu] = true;
    return 0;
}

int mfb_parse_cpu_list(const char *s, bool *out, size_t n)
{
    struct cpu_set_ctx c = {out, n};
    return walk_cpu_ranges(s, set_range, &c);
}

struct cpu_order_ctx {
    int *out;
    size_t max, *n;
    int *repeated;
};

static int append_range(uint64_t lo, uint64_t hi, void *ctx)
{
    struct cpu_order_ctx *c = ctx;
    /* beyond any CPU number a kernel gives; bounds the loop below */
    if (hi >= MFB_CPU_NUMBER_LIMIT)
        return -4;
    for (uint64_t cpu = lo; cpu <= hi; cpu++) {
        for (size_t k = 0; k < *c->n; k++)
            if (c->out[k] == (int)cpu) {
                *c->repeated = (int)cpu;
                return -3;
            }
        if (*c->n == c->max)
            return -2;
        c->out[(*c->n)++] = (int)cpu;
    }
    return 0;
}

int mfb_parse_cpu_order(const char *s, int *out, size_t max, size_t *n, int *repeated)
{
    *n = 0;
    struct cpu_order_ctx c = {out, max, n, repeated};
    return walk_cpu_ranges(s, append_range, &c);
}

int mfb_parse_bytes_list(const char *s, char sep, size_t *out, int n)
{
    int k = 0;
    for (const char *p = s;; k++) {
        size_t len = strcspn(p, (char[]){sep, '\0'});
        /* a size is a few characters; a longer field is no size (and needs no copy) */
        char field[32];
        if (k == n || len == 0 || len >= sizeof field)
            return -1;
        memcpy(field, p, len);
        field[len] = '\0';
        if (mfb_parse_bytes(field, &out[k]) < 0)
            return -1;
        if (!p[len])
            return k + 1;
        p += len + 1;
    }
}

/* The restricted Damerau-Levenshtein distance between a and b (lengths below 64), capped at cap + 1. */
static int edits(const char *a, const char *b, int cap)
{
    enum { MAXLEN = 64 };
    size_t la = strlen(a), lb = strlen(b);
    if (la >= MAXLEN || lb >= MAXLEN)
        return cap + 1;
    /* every edit changes the length by one at most: lengths further apart than cap are further
     * than cap, and the table need not be filled (a long typo against every shipped name) */
    if ((la > lb ? la - lb : lb - la) > (size_t)cap)
        return cap + 1;
    int d[MAXLEN][MAXLEN];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            int best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[la][lb] > cap ? cap + 1 : d[la][lb];
}

int mfb_nearest_name(const char *word, const char *const *names, size_t n, int max_edits)
{
    int best = -1, best_d = max_edits + 1;
    int limit = (int)(strlen(word) / 2);
    for (size_t i = 0; i < n; i++) {
        int d = edits(word, names[i], max_edits);
        if (d > 0 && d < best_d && d <= limit) {
            best = (int)i;
            best_d = d;
        }
    }
    return best;
}

int mfb_parse_cache_sizes(const char *s, size_t out[3])
{
    size_t v[3];
    if (mfb_parse_bytes_list(s, ':', v, 3) != 3 || v[0] < 4096 || v[1] < 4096 || v[2] < 4096)
        return -1;
    memcpy(out, v, sizeof v);
    return 0;
}
