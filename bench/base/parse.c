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

int mfb_parse_cpu_list(const char *s, bool *out, size_t n)
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
        for (uint64_t c = lo; c <= hi && c < n; c++)
            out[c] = true;
        if (*p == ',') {
            p++;
            continue;
        }
        return *p == '\0' || !strcmp(p, "\n") ? 0 : -1;
    }
}

int mfb_parse_cpu_order(const char *s, int *out, size_t max, size_t *n, int *repeated)
{
    const char *p = s;
    *n = 0;
    for (;;) {
        uint64_t lo, hi;
        if (digits(p, 10, &lo, &p) < 0)
            return -1;
        hi = lo;
        if (*p == '-' && digits(p + 1, 10, &hi, &p) < 0)
            return -1;
        /* beyond any CPU number a kernel gives; bounds the loop below */
        if (hi < lo || hi >= MFB_CPU_NUMBER_LIMIT)
            return -1;
        for (uint64_t c = lo; c <= hi; c++) {
            for (size_t k = 0; k < *n; k++)
                if (out[k] == (int)c) {
                    *repeated = (int)c;
                    return -3;
                }
            if (*n == max)
                return -2;
            out[(*n)++] = (int)c;
        }
        if (*p == ',') {
            p++;
            continue;
        }
        return *p == '\0' ? 0 : -1;
    }
}
