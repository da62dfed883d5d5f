/* Correctness of every built-in variant: sizes 0..4096 crossed with every source and every
 * destination misalignment 0..63, all 64 x 64 pairs for sizes up to 256; memmove in both overlap
 * directions; compare functions at every mismatch position and sign. The checker is the one
 * `memfbench run` uses before timing.
 *
 * With --light (sanitizer builds, where every access is checked and the sweep would take minutes)
 * sizes go to 1024 and all 64 x 64 pairs to 64: the same code paths, fewer repetitions. With
 * --emulated (a cross build's tests under qemu-user, where every instruction is translated, about
 * 20 times slower) sizes go to 600 and all pairs to 32: still past every size class of the
 * built-ins (the AArch64 ones loop above 128 bytes, the DC ZVA memset above 256), at every source
 * misalignment. A memset writes the byte 0 at every fourth source misalignment, so the zero-only
 * paths (DC ZVA) are checked at every size. */
#include <string.h>

#include "impl/code_placements.h"
#include "impl/impl.h"
#include "impl/verify.h"
#include "tap.h"

static int check(struct mfb_verify *v, const struct mfb_variant *var, const struct mfb_vcall *c, char *why,
                 size_t n)
{
    struct mfb_err err;
    if (mfb_verify_call(v, var, c, &err) < 0) {
        snprintf(why, n, "%s", err.msg);
        return -1;
    }
    return 0;
}

/* Sweep extents: the full one, or --light's. */
struct extent {
    uint64_t max_size, all_pairs_to;
};

static int sweep_alignments(struct mfb_verify *v, const struct mfb_variant *var, const struct extent *x, char *why,
                            size_t n)
{
    for (uint64_t size = 0; size <= x->max_size; size++) {
        int all_pairs = size <= x->all_pairs_to;
        for (uint32_t s = 0; s < 64; s++) {
            for (uint32_t k = 0; k < (all_pairs ? 64u : 1u); k++) {
                uint32_t d = all_pairs ? k : (uint32_t)((s * 37 + size) % 64);
                struct mfb_vcall c = {.n = size, .src_mod = s, .dst_mod = d};
                if (var->func == MFB_MEMSET)
                    c.aux = s % 4 == 0 ? 0 : (uint32_t)((size * 7 + s) & 0xff);
                if (mfb_func_compares(var->func))
                    c.aux = size == 0 ? MFB_MIS_EQUAL_FLAG : (uint32_t)(((size + s + k) % (size + 1)));
                if (mfb_func_compares(var->func) && c.aux == size)
                    c.aux = MFB_MIS_EQUAL_FLAG;
                if (mfb_func_compares(var->func) && (k & 1) && !(c.aux & MFB_MIS_EQUAL_FLAG))
                    c.aux |= MFB_MIS_SIGN_FLAG;
                if (check(v, var, &c, why, n) < 0)
                    return -1;
            }
        }
    }
    return 0;
}

static int sweep_overlap(struct mfb_verify *v, const struct mfb_variant *var, char *why, size_t n)
{
    for (uint64_t size = 2; size <= 600; size += (size < 130 ? 1 : 7))
        for (int64_t d = 1; d < (int64_t)size; d += (d < 40 ? 1 : 13))
            for (int dir = -1; dir <= 1; dir += 2) {
                struct mfb_vcall c = {.n = size, .src_mod = (uint32_t)(size % 64), .dst_mod = 0, .delta = dir * d};
                c.dst_mod = (uint32_t)((int64_t)c.src_mod + c.delta + 4096) % 4096;
                if (mfb_func_compares(var->func))
                    c.aux = (uint32_t)(size / 2) | (dir > 0 ? MFB_MIS_SIGN_FLAG : 0);
                if (check(v, var, &c, why, n) < 0)
                    return -1;
            }
    return 0;
}

/* Every code placement of a built-in is the same function: a light sweep (every size to 300, one
 * misalignment pair each) catches a table entry pointing at the wrong built-in. */
static int sweep_light(struct mfb_verify *v, const struct mfb_variant *var, char *why, size_t n)
{
    for (uint64_t size = 0; size <= 300; size++) {
        struct mfb_vcall c = {.n = size, .src_mod = (uint32_t)(size % 64), .dst_mod = (uint32_t)(size * 7 % 64)};
        if (var->func == MFB_MEMSET)
            c.aux = (uint32_t)(size & 0xff);
        if (mfb_func_compares(var->func))
            c.aux = size ? (uint32_t)(size / 3) : MFB_MIS_EQUAL_FLAG;
        if (check(v, var, &c, why, n) < 0)
            return -1;
    }
    return 0;
}

/* Built-ins and their copies move to every placement, each at its own offset within a page;
 * code memfbench does not compile (libc, noop, probes, validation wrappers) stays put. */
static void check_placements(struct tap *t, struct mfb_verify *v, const struct mfb_variant *all, size_t nv)
{
    for (size_t i = 0; i < nv; i++) {
        struct mfb_variant inst;
        const char *missing = "";
        if (mfb_variant_instantiate(&all[i], &inst, &missing) < 0)
            continue;
        bool movable = all[i].origin == MFB_ORIGIN_BUILTIN || all[i].origin == MFB_ORIGIN_VALIDATION ||
                       (all[i].origin == MFB_ORIGIN_COPY && strcmp(all[i].copy_of, "libc") != 0);
        uintptr_t offsets[MFB_CODE_PLACEMENTS];
        bool placed = true, distinct = true, correct = true;
        char why[1024] = "";
        for (unsigned k = 0; k < MFB_CODE_PLACEMENTS; k++) {
            struct mfb_variant p = inst;
            placed = placed && mfb_variant_place(&p, k) == movable;
            void *addr;
            memcpy(&addr, &p.fn, sizeof addr);
            offsets[k] = (uintptr_t)addr % 4096;
            for (unsigned j = 0; j < k; j++)
                distinct = distinct && offsets[j] != offsets[k];
            if (movable && correct && sweep_light(v, &p, why, sizeof why) < 0)
                correct = false;
        }
        if (movable)
            TAP_CHECK(t, placed && distinct && correct, "%s/%s: %d placements, each at its own page offset, each "
                      "correct %s", mfb_func_name(all[i].func), all[i].name, MFB_CODE_PLACEMENTS, why);
        else
            TAP_CHECK(t, placed, "%s/%s (origin %s) is not moved", mfb_func_name(all[i].func), all[i].name,
                      mfb_origin_name(all[i].origin));
    }
}

/* A wrong variant must be caught: a memcpy that drops its last byte, and one that writes past. */
static void *short_copy(void *d, const void *s, size_t n)
{
    if (n)
        memcpy(d, s, n - 1);
    return d;
}

static void *long_copy(void *d, const void *s, size_t n)
{
    memcpy(d, s, n);
    ((unsigned char *)d)[n] ^= 1;
    return d;
}

static int wrong_sign(const void *a, const void *b, size_t n)
{
    return -memcmp(a, b, n);
}

/* The reference loops go a word at a time: they copy and fill as a byte loop does, overlapping
 * calls at every distance under three words included, both directions, every length up to 64 and
 * every start within a word. */
static void check_reference(struct tap *t)
{
    enum { SPAN = 256 };
    unsigned char buf[SPAN], want[SPAN];
    int bad = 0, calls = 0;
    uint32_t x = 2463534242u;
    for (size_t n = 0; n <= 64; n++)
        for (int start = 0; start < 8; start++)
            for (int delta = -24; delta <= 24; delta++) {
                for (int i = 0; i < SPAN; i++) {
                    x ^= x << 13, x ^= x >> 17, x ^= x << 5;
                    buf[i] = want[i] = (unsigned char)x;
                }
                size_t so = (size_t)(64 + start), dso = (size_t)((int)so + delta);
                /* the byte loops, in the direction memmove must take */
                if (dso < so)
                    for (size_t i = 0; i < n; i++)
                        want[dso + i] = want[so + i];
                else
                    for (size_t i = n; i > 0; i--)
                        want[dso + i - 1] = want[so + i - 1];
                void *ret = mfb_ref_memmove(buf + dso, buf + so, n);
                bad += ret != buf + dso || memcmp(buf, want, SPAN) != 0;
                for (size_t i = 0; i < n; i++)
                    want[dso + i] = (unsigned char)(delta + 0x80);
                ret = mfb_ref_memset(buf + dso, delta + 0x80, n);
                bad += ret != buf + dso || memcmp(buf, want, SPAN) != 0;
                calls += 2;
            }
    TAP_CHECK(t, bad == 0, "the reference memmove and memset write what byte loops write (%d of %d calls differ)",
              bad, calls);
}

int main(int argc, char **argv)
{
    bool light = argc > 1 && !strcmp(argv[1], "--light");
    bool emulated = argc > 1 && !strcmp(argv[1], "--emulated");
    const struct extent x = emulated ? (struct extent){600, 32} : light ? (struct extent){1024, 64}
                                                                        : (struct extent){4096, 256};
    struct tap t = {0};
    struct mfb_verify v;
    struct mfb_err err;
    struct mfb_activity activity = {.phase = MFB_PHASE_VERIFYING};
    if (mfb_verify_init(&v, 8192, 12345, &activity, &err) < 0) {
        printf("Bail out! %s\n", err.msg);
        return 1;
    }
    const struct mfb_variant *all;
    size_t nv = mfb_variants_all(&all);
    for (size_t i = 0; i < nv; i++) {
        struct mfb_variant inst;
        const struct mfb_variant *var = &inst;
        const char *missing = "";
        if (all[i].noop)
            continue;
        if (mfb_variant_instantiate(&all[i], &inst, &missing) < 0) {
            printf("ok %d - %s/%s # SKIP needs %s\n", ++t.n, mfb_func_name(all[i].func), all[i].name, missing);
            continue;
        }
        char why[1024] = "";
        uint64_t before = v.checked;
        int rc = sweep_alignments(&v, var, &x, why, sizeof why);
        TAP_CHECK(&t, rc == 0, "%s/%s: sizes 0..%llu x misalignments 0..63 (%llu calls) %s",
                  mfb_func_name(var->func), var->name, (unsigned long long)x.max_size, (unsigned long long)(v.checked - before), why);
        if (var->func == MFB_MEMMOVE || mfb_func_compares(var->func)) {
            why[0] = '\0';
            before = v.checked;
            rc = sweep_overlap(&v, var, why, sizeof why);
            TAP_CHECK(&t, rc == 0, "%s/%s: overlapping forward and backward (%llu calls) %s",
                      mfb_func_name(var->func), var->name, (unsigned long long)(v.checked - before), why);
        }
    }
    check_placements(&t, &v, all, nv);
    check_reference(&t);
    struct mfb_variant bad[] = {
        {"short", MFB_MEMCPY, MFB_ORIGIN_PLUGIN, "", {.copy = short_copy}, false, NULL, NULL, NULL, NULL},
        {"long", MFB_MEMCPY, MFB_ORIGIN_PLUGIN, "", {.copy = long_copy}, false, NULL, NULL, NULL, NULL},
        {"sign", MFB_MEMCMP, MFB_ORIGIN_PLUGIN, "", {.cmp = wrong_sign}, false, NULL, NULL, NULL, NULL},
    };
    for (int i = 0; i < 3; i++) {
        char why[1024] = "";
        int rc = sweep_alignments(&v, &bad[i], &x, why, sizeof why);
        TAP_CHECK(&t, rc < 0 && strstr(why, bad[i].name), "a wrong '%s' variant is rejected: %s", bad[i].name, why);
    }
    mfb_verify_free(&v);
    return tap_done(&t);
}
