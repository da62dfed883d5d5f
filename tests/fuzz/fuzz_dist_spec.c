/* Fuzz target: the -d argument as mfb_dist_resolve (bench/workload/distribution.c) reads it
 * when it is not a file: a synthetic spec (fixed:N, uniform:LO-HI, pow2:LO-HI; load_synthetic)
 * or a shipped name (group/prefix, or a bare prefix that one group holds; find_shipped) under
 * the repository's distributions/ folder. The input is the spec. Synthetic specs are checked
 * against an independent reading of the documented syntax; shipped names against the
 * invariants of every table. Inputs that name an existing path are skipped: files are the other
 * targets' business, and a fuzzer must not wander the filesystem. */
#include <sys/stat.h>

#include "fuzz_common.h"

#ifndef MFB_FUZZ_DIST_DIR
#error "MFB_FUZZ_DIST_DIR: the distributions/ folder (set by tests/fuzz/meson.build)"
#endif

/* The whole of [s, s+n) as a decimal number that fits in 64 bits. */
static int ref_u64(const char *s, size_t n, uint64_t *out)
{
    if (n == 0)
        return -1;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

/* The rows a synthetic spec means (each weight 1), or -1 when it is not a valid one. */
static int ref_synthetic(const char *spec, uint64_t lo_out[64], uint64_t hi_out[64], size_t *n)
{
    *n = 0;
    const char *arg = strchr(spec, ':') + 1;
    uint64_t lo, hi;
    /* Longer arguments are refused, not cut (load_synthetic reads them in a 128-byte buffer). */
    if (strlen(arg) > 127)
        return -1;
    if (!strncmp(spec, "fixed:", 6)) {
        if (ref_u64(arg, strlen(arg), &lo) < 0 || lo > MFB_MAX_SIZE)
            return -1;
        lo_out[0] = hi_out[0] = lo;
        *n = 1;
        return 0;
    }
    const char *dash = strchr(arg, '-');
    if (!dash || ref_u64(arg, (size_t)(dash - arg), &lo) < 0 || ref_u64(dash + 1, strlen(dash + 1), &hi) < 0 ||
        hi < lo || hi > MFB_MAX_SIZE)
        return -1;
    if (!strncmp(spec, "uniform:", 8)) {
        lo_out[0] = lo;
        hi_out[0] = hi;
        *n = 1;
        return 0;
    }
    for (int b = 0; b < 64; b++) {
        uint64_t p = (uint64_t)1 << b;
        if (p >= lo && p <= hi) {
            lo_out[*n] = hi_out[*n] = p;
            (*n)++;
        }
    }
    return *n ? 0 : -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *spec = fuzz_strdup(data, size);
    int synthetic = !strncmp(spec, "fixed:", 6) || !strncmp(spec, "uniform:", 8) || !strncmp(spec, "pow2:", 5);
    struct stat st;
    if (!synthetic && (spec[0] == '/' || strstr(spec, "..") || stat(spec, &st) == 0)) {
        free(spec);
        return 0;
    }
    uint64_t ref_lo[64], ref_hi[64];
    size_t ref_n = 0;
    int ref_rc = synthetic ? ref_synthetic(spec, ref_lo, ref_hi, &ref_n) : 0;
    /* A name that does not resolve fails alike for every function (the lookup and the tables do
     * not depend on it, and a refused synthetic spec is refused whatever it is for): a failure for
     * the first function is checked against one other, picked by the input, rather than all five,
     * which kept the target at a few dozen inputs a second once a typo cost a did-you-mean search. */
    char first[sizeof ((struct mfb_err *)0)->msg] = "";
    for (int f = 0; f < MFB_FUNC_COUNT; f++) {
        if (first[0] && f != 1 + (int)(size % (MFB_FUNC_COUNT - 1)))
            continue;
        struct mfb_dist d;
        struct mfb_err err = {{0}};
        int rc = mfb_dist_resolve(&d, spec, (enum mfb_func)f, MFB_FUZZ_DIST_DIR, &err);
        if (first[0])
            FUZZ_CHECK(rc == -1 && !strcmp(err.msg, first));
        else if (f == 0 && rc == -1)
            snprintf(first, sizeof first, "%s", err.msg);
        FUZZ_CHECK(rc == 0 || (rc == -1 && err.msg[0] != '\0'));
        if (rc == 0) {
            fuzz_check_dist(&d, (enum mfb_func)f);
            FUZZ_CHECK(!strcmp(d.name, spec));
            FUZZ_CHECK(d.format == (synthetic ? MFB_FORMAT_SYNTHETIC : MFB_FORMAT_CSV));
        }
        if (synthetic) {
            /* The loader accepts exactly the valid specs, and reads them as written. */
            FUZZ_CHECK(rc == ref_rc);
            if (rc == 0) {
                FUZZ_CHECK(d.size.n == ref_n && d.size.origin == MFB_TABLE_FROM_SYNTHETIC);
                for (size_t i = 0; i < ref_n; i++)
                    FUZZ_CHECK(d.size.rows[i].lo == ref_lo[i] && d.size.rows[i].hi == ref_hi[i] &&
                               d.size.rows[i].weight == 1.0);
            }
        }
        mfb_dist_free(&d);
    }
    free(spec);
    return 0;
}
