/* Fuzz target: the parsers of the numbers users and the system write (bench/base/parse.c):
 * mfb_parse_u64, mfb_parse_seed, mfb_parse_bytes, mfb_parse_cpu_list, and the closed-set name
 * parsers built on mfb_parse_name. The input is one string; each parser is compared with an
 * independent reading of the syntax its header documents. */
#include <stdbool.h>

#include "base/parse.h"
#include "fuzz_common.h"

static int ref_digit(char c, int base)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (base == 16 && c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (base == 16 && c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* At least one digit of the base from *p, fitting 64 bits; *p is left after them. */
static int ref_number(const char **p, int base, uint64_t *out)
{
    const char *s = *p;
    uint64_t v = 0;
    int ok = 1;
    while (ref_digit(*s, base) >= 0) {
        unsigned d = (unsigned)ref_digit(*s, base);
        if (v > (UINT64_MAX - d) / (unsigned)base)
            ok = 0;
        else
            v = v * (unsigned)base + d;
        s++;
    }
    if (s == *p || !ok)
        return -1;
    *p = s;
    *out = v;
    return 0;
}

/* Each parser leaves *out untouched when it fails. */
static int ref_u64(const char *s, uint64_t *out)
{
    uint64_t v;
    if (ref_number(&s, 10, &v) < 0 || *s)
        return -1;
    *out = v;
    return 0;
}

static int ref_seed(const char *s, uint64_t *out)
{
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        s += 2;
        uint64_t v;
        if (ref_number(&s, 16, &v) < 0 || *s)
            return -1;
        *out = v;
        return 0;
    }
    if (s[0] == '0' && s[1] != '\0') /* a decimal seed has no leading zero: "010" is refused */
        return -1;
    return ref_u64(s, out);
}

/* Digits, an optional K/M/G (either case), then "iB" (only after a unit) or "B", an optional newline. */
static int ref_bytes(const char *s, size_t *out)
{
    uint64_t v;
    if (ref_number(&s, 10, &v) < 0)
        return -1;
    unsigned shift = 0;
    switch (*s) {
    case 'K': case 'k': shift = 10, s++; break;
    case 'M': case 'm': shift = 20, s++; break;
    case 'G': case 'g': shift = 30, s++; break;
    default: break;
    }
    if (shift && s[0] == 'i' && s[1] == 'B')
        s += 2;
    else if (s[0] == 'B')
        s++;
    if (strcmp(s, "") && strcmp(s, "\n"))
        return -1;
    if (v > (uint64_t)(SIZE_MAX >> shift))
        return -1;
    *out = (size_t)(v << shift);
    return 0;
}

/* "A" or "A-B" (A <= B), comma separated, an optional final newline. */
static int ref_cpu_list(const char *s, bool *out, size_t n)
{
    for (;;) {
        uint64_t lo, hi;
        if (ref_number(&s, 10, &lo) < 0)
            return -1;
        hi = lo;
        if (*s == '-') {
            s++;
            if (ref_number(&s, 10, &hi) < 0)
                return -1;
        }
        if (hi < lo)
            return -1;
        for (size_t c = 0; c < n; c++)
            if (c >= lo && c <= hi)
                out[c] = true;
        if (*s == ',') {
            s++;
            continue;
        }
        return !strcmp(s, "") || !strcmp(s, "\n") ? 0 : -1;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = fuzz_strdup(data, size);
    const uint64_t sentinel = 0x5a5a5a5a5a5a5a5aull;

    uint64_t a = sentinel, b = sentinel;
    int rc = mfb_parse_u64(s, &a), ref = ref_u64(s, &b);
    FUZZ_CHECK(rc == ref && a == b); /* on failure *out is left untouched: both stay the sentinel */

    a = b = sentinel;
    rc = mfb_parse_seed(s, &a), ref = ref_seed(s, &b);
    FUZZ_CHECK(rc == ref && a == b);

    size_t x = (size_t)sentinel, y = (size_t)sentinel;
    rc = mfb_parse_bytes(s, &x), ref = ref_bytes(s, &y);
    FUZZ_CHECK(rc == ref && x == y);

    enum { NCPU = 80 };
    bool got[NCPU] = {false}, want[NCPU] = {false};
    rc = mfb_parse_cpu_list(s, got, NCPU), ref = ref_cpu_list(s, want, NCPU);
    FUZZ_CHECK(rc == ref);
    if (rc == 0)
        FUZZ_CHECK(!memcmp(got, want, sizeof got));

    static const char *const names[] = {"auto", "l1", "l2", "llc", "dram", ""};
    int i = mfb_parse_name(s, names, (int)(sizeof names / sizeof names[0]));
    FUZZ_CHECK(i >= -1 && i < (int)(sizeof names / sizeof names[0]));
    FUZZ_CHECK(i < 0 ? (strcmp(s, "auto") && strcmp(s, "l1") && strcmp(s, "l2") && strcmp(s, "llc") &&
                        strcmp(s, "dram") && *s)
                     : !strcmp(s, names[i]));
    enum mfb_func f = MFB_FUNC_COUNT;
    if (mfb_func_parse(s, &f) == 0)
        FUZZ_CHECK(f < MFB_FUNC_COUNT && !strcmp(mfb_func_name(f), s));
    else
        FUZZ_CHECK(f == MFB_FUNC_COUNT);
    free(s);
    return 0;
}
