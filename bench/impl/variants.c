#include "impl/variants.h"

#include <dlfcn.h>
#include <link.h>
#include <string.h>
#include <strings.h>

#include "impl/impl.h"

#if defined(__x86_64__)
static int has_avx2(void)
{
    return mfb_cpu_has_avx2();
}
#endif

#if defined(__aarch64__)
static int has_sve(void)
{
    return MFB_HAVE_SVE && mfb_cpu_has_sve();
}

static int has_mops(void)
{
    return MFB_HAVE_MOPS && mfb_cpu_has_mops();
}

static int zva_permitted(void)
{
    return mfb_cpu_zva_permitted();
}

/* SVE and MOPS: a row where the compiler lacks them too, so that `memfbench list` says why. */
#if MFB_HAVE_SVE
#define SVE_CODE mfb_memcpy_sve
#define SVE_NEEDS "SVE (the kernel reports no HWCAP_SVE for this CPU)"
#else
#define SVE_CODE NULL
#define SVE_NEEDS "a compiler with the SVE ACLE (arm_sve.h): this build's has none"
#endif
#if MFB_HAVE_MOPS
#define MOPS_CODE mfb_memcpy_mops
#define MOPS_NEEDS "FEAT_MOPS (the kernel reports no HWCAP2_MOPS: an Armv8.8 CPU and Linux 6.5 or later)"
#else
#define MOPS_CODE NULL
#define MOPS_NEEDS "an assembler that knows FEAT_MOPS (binutils 2.38 or later): this build's does not"
#endif
#endif

/* A second, independent copy of the C library in its own link namespace (dlmopen): the same
 * machine code at another address, for A/A comparisons against `libc`. */
/* AddressSanitizer reserves the address range a second C library would be mapped into, and a
 * second libc's malloc would bypass its interceptors: dlmopen then aborts the process. */
#if defined(__SANITIZE_ADDRESS__)
#define MFB_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MFB_ASAN 1
#endif
#endif
#define LIBC_COPY_NEEDS "a build without AddressSanitizer (a second C library cannot run beside its shadow memory)"

static int libc_copy_available(void)
{
#ifdef MFB_ASAN
    return 0;
#else
    return 1;
#endif
}

static int resolve_libc_copy(enum mfb_func f, union mfb_fn *fn, const char **why)
{
    Dl_info info;
    void *self = (void *)memcpy;
    const char *path = dladdr(self, &info) && info.dli_fname ? info.dli_fname : "libc.so.6";
    void *h = dlmopen(LM_ID_NEWLM, path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        *why = "dlmopen of a second libc failed";
        return -1;
    }
    void *p = dlsym(h, mfb_func_name(f)); /* the traits table's name is the C symbol */
    if (!p) {
        *why = "the second libc has no such symbol";
        return -1;
    }
    memcpy(fn, &p, sizeof p);
    return 0;
}

#define COPY(fname, func, fld, impl, of) {fname, func, MFB_ORIGIN_COPY, "A/A: byte-identical second copy of '" of "' at another address", {.fld = impl}, false, NULL, NULL, NULL, of}
/* Store-forwarding probes (impl/noop.c): no result, so exempt from the check like noop. */
#define PROBE_LOAD1(func) {"load1", func, MFB_ORIGIN_PROBE, "probe: one 1-byte load at the start of the right-hand buffer, broadcast to a vector mask (calls of 32 bytes and more)", {.cmp = mfb_cmp_load1}, true, has_avx2, "AVX2", NULL, NULL}
#define PROBE_LOAD32(func) {"load32", func, MFB_ORIGIN_PROBE, "probe: one 32-byte load at the start of the right-hand buffer, to a vector mask (calls of 32 bytes and more)", {.cmp = mfb_cmp_load32}, true, has_avx2, "AVX2", NULL, NULL}
#define LIBC_COPY(func) {"libc-copy", func, MFB_ORIGIN_COPY, "A/A: the C library loaded a second time (dlmopen), same code at another address", {.copy = NULL}, false, libc_copy_available, LIBC_COPY_NEEDS, resolve_libc_copy, "libc"}

/* libc functions are stored as data and reached only through this table at run time, so the
 * timed loop cannot inline them or specialise them on a size. */
static const struct mfb_variant table[] = {
    {"libc", MFB_MEMCPY, MFB_ORIGIN_LIBC, "the C library's memcpy (resolved through its IFUNC)", {.copy = memcpy}, false, NULL, NULL, NULL, NULL},
    {"bytes", MFB_MEMCPY, MFB_ORIGIN_BUILTIN, "byte-at-a-time loop", {.copy = mfb_memcpy_bytes}, false, NULL, NULL, NULL, NULL},
#if defined(__x86_64__)
    {"rep_movsb", MFB_MEMCPY, MFB_ORIGIN_BUILTIN, "rep movsb (ERMS/FSRM microcode)", {.copy = mfb_memcpy_rep_movsb}, false, NULL, NULL, NULL, NULL},
    {"sse2", MFB_MEMCPY, MFB_ORIGIN_BUILTIN, "16-byte unaligned SSE2 loop, overlapping tail", {.copy = mfb_memcpy_sse2}, false, NULL, NULL, NULL, NULL},
    {"avx2", MFB_MEMCPY, MFB_ORIGIN_BUILTIN, "32-byte unaligned AVX2 loop, overlapping tail", {.copy = mfb_memcpy_avx2}, false, has_avx2, "AVX2", NULL, NULL},
#endif
#if defined(__aarch64__)
    {"asimd", MFB_MEMCPY, MFB_ORIGIN_BUILTIN, "Advanced SIMD: 16/32-byte ldp/stp of q registers, overlapping head and tail, no loop up to 128 bytes, then 64-byte blocks with aligned stores", {.copy = mfb_memcpy_asimd}, false, NULL, NULL, NULL, NULL},
    {"sve", MFB_MEMCPY, MFB_ORIGIN_BUILTIN, "SVE: one whilelo-predicated ld1b/st1b loop of the CPU's vector length, no tail code", {.copy = SVE_CODE}, false, has_sve, SVE_NEEDS, NULL, NULL},
    {"mops", MFB_MEMCPY, MFB_ORIGIN_BUILTIN, "FEAT_MOPS cpyfp/cpyfm/cpyfe: the CPU's own copy sequence", {.copy = MOPS_CODE}, false, has_mops, MOPS_NEEDS, NULL, NULL},
#endif
    {"sizeclass", MFB_MEMCPY, MFB_ORIGIN_BUILTIN, "size classes with overlapping head/tail, 32-byte blocks", {.copy = mfb_memcpy_sizeclass}, false, NULL, NULL, NULL, NULL},
    {"noop", MFB_MEMCPY, MFB_ORIGIN_HARNESS, "returns at once: harness overhead per call", {.copy = mfb_copy_noop}, true, NULL, NULL, NULL, NULL},
    LIBC_COPY(MFB_MEMCPY),
    COPY("bytes-copy", MFB_MEMCPY, copy, mfb_memcpy_bytes_copy, "bytes"),
#if defined(__x86_64__)
    COPY("rep_movsb-copy", MFB_MEMCPY, copy, mfb_memcpy_rep_movsb_copy, "rep_movsb"),
    COPY("sse2-copy", MFB_MEMCPY, copy, mfb_memcpy_sse2_copy, "sse2"),
    {"avx2-copy", MFB_MEMCPY, MFB_ORIGIN_COPY, "A/A: byte-identical second copy of 'avx2' at another address", {.copy = mfb_memcpy_avx2_copy}, false, has_avx2, "AVX2", NULL, "avx2"},
#endif
#if defined(__aarch64__)
    COPY("asimd-copy", MFB_MEMCPY, copy, mfb_memcpy_asimd_copy, "asimd"),
#if MFB_HAVE_SVE
    {"sve-copy", MFB_MEMCPY, MFB_ORIGIN_COPY, "A/A: byte-identical second copy of 'sve' at another address", {.copy = mfb_memcpy_sve_copy}, false, has_sve, SVE_NEEDS, NULL, "sve"},
#endif
#if MFB_HAVE_MOPS
    {"mops-copy", MFB_MEMCPY, MFB_ORIGIN_COPY, "A/A: byte-identical second copy of 'mops' at another address", {.copy = mfb_memcpy_mops_copy}, false, has_mops, MOPS_NEEDS, NULL, "mops"},
#endif
#endif
    COPY("sizeclass-copy", MFB_MEMCPY, copy, mfb_memcpy_sizeclass_copy, "sizeclass"),
    {"libc-slow1pct", MFB_MEMCPY, MFB_ORIGIN_VALIDATION, "wrapped libc memcpy that copies a second time on every 25th call (known extra cost, about 1 % on the fleet distribution)", {.copy = mfb_memcpy_slow1pct}, false, NULL, NULL, NULL, NULL},
    {"libc-twice", MFB_MEMCPY, MFB_ORIGIN_VALIDATION, "wrapped libc memcpy that copies a second time on every call (sizes libc-slow1pct's extra cost)", {.copy = mfb_memcpy_twice}, false, NULL, NULL, NULL, NULL},
    {"libc-wrapped", MFB_MEMCPY, MFB_ORIGIN_VALIDATION, "libc memcpy in the same counting wrapper as libc-slow1pct, without the extra copy (its control)", {.copy = mfb_memcpy_wrapped}, false, NULL, NULL, NULL, NULL},

    {"libc", MFB_MEMMOVE, MFB_ORIGIN_LIBC, "the C library's memmove", {.copy = memmove}, false, NULL, NULL, NULL, NULL},
    {"bytes", MFB_MEMMOVE, MFB_ORIGIN_BUILTIN, "byte loop, forward or backward by overlap", {.copy = mfb_memmove_bytes}, false, NULL, NULL, NULL, NULL},
#if defined(__aarch64__)
    {"asimd", MFB_MEMMOVE, MFB_ORIGIN_BUILTIN, "Advanced SIMD as memcpy's asimd (every load before a store up to 128 bytes), backward when the destination starts inside the source", {.copy = mfb_memmove_asimd}, false, NULL, NULL, NULL, NULL},
#endif
    {"sizeclass", MFB_MEMMOVE, MFB_ORIGIN_BUILTIN, "loads-before-stores head/tail classes, directional 32-byte blocks", {.copy = mfb_memmove_sizeclass}, false, NULL, NULL, NULL, NULL},
    {"noop", MFB_MEMMOVE, MFB_ORIGIN_HARNESS, "returns at once: harness overhead per call", {.copy = mfb_copy_noop}, true, NULL, NULL, NULL, NULL},
    LIBC_COPY(MFB_MEMMOVE),
    COPY("bytes-copy", MFB_MEMMOVE, copy, mfb_memmove_bytes_copy, "bytes"),
#if defined(__aarch64__)
    COPY("asimd-copy", MFB_MEMMOVE, copy, mfb_memmove_asimd_copy, "asimd"),
#endif
    COPY("sizeclass-copy", MFB_MEMMOVE, copy, mfb_memmove_sizeclass_copy, "sizeclass"),

    {"libc", MFB_MEMSET, MFB_ORIGIN_LIBC, "the C library's memset", {.set = memset}, false, NULL, NULL, NULL, NULL},
    {"bytes", MFB_MEMSET, MFB_ORIGIN_BUILTIN, "byte-at-a-time loop", {.set = mfb_memset_bytes}, false, NULL, NULL, NULL, NULL},
#if defined(__x86_64__)
    {"rep_stosb", MFB_MEMSET, MFB_ORIGIN_BUILTIN, "rep stosb (ERMS/FSRM microcode)", {.set = mfb_memset_rep_stosb}, false, NULL, NULL, NULL, NULL},
#endif
#if defined(__aarch64__)
    {"asimd", MFB_MEMSET, MFB_ORIGIN_BUILTIN, "Advanced SIMD: the byte dup'ed into a q register, stp pairs from both ends up to 128 bytes, then 64-byte aligned blocks", {.set = mfb_memset_asimd}, false, NULL, NULL, NULL, NULL},
    {"zva", MFB_MEMSET, MFB_ORIGIN_BUILTIN, "asimd, but zero fills of 256 bytes and more clear whole DCZID_EL0-sized blocks with DC ZVA", {.set = mfb_memset_zva}, false, zva_permitted, "DC ZVA permitted at EL0 (DCZID_EL0.DZP is set: the instruction is prohibited here)", NULL, NULL},
#endif
    {"sizeclass", MFB_MEMSET, MFB_ORIGIN_BUILTIN, "broadcast value, overlapping head/tail, 32-byte blocks", {.set = mfb_memset_sizeclass}, false, NULL, NULL, NULL, NULL},
    {"noop", MFB_MEMSET, MFB_ORIGIN_HARNESS, "returns at once: harness overhead per call", {.set = mfb_set_noop}, true, NULL, NULL, NULL, NULL},
    LIBC_COPY(MFB_MEMSET),
    COPY("bytes-copy", MFB_MEMSET, set, mfb_memset_bytes_copy, "bytes"),
#if defined(__x86_64__)
    COPY("rep_stosb-copy", MFB_MEMSET, set, mfb_memset_rep_stosb_copy, "rep_stosb"),
#endif
#if defined(__aarch64__)
    COPY("asimd-copy", MFB_MEMSET, set, mfb_memset_asimd_copy, "asimd"),
    {"zva-copy", MFB_MEMSET, MFB_ORIGIN_COPY, "A/A: byte-identical second copy of 'zva' at another address", {.set = mfb_memset_zva_copy}, false, zva_permitted, "DC ZVA permitted at EL0 (DCZID_EL0.DZP is set: the instruction is prohibited here)", NULL, "zva"},
#endif
    COPY("sizeclass-copy", MFB_MEMSET, set, mfb_memset_sizeclass_copy, "sizeclass"),

    {"libc", MFB_MEMCMP, MFB_ORIGIN_LIBC, "the C library's memcmp", {.cmp = memcmp}, false, NULL, NULL, NULL, NULL},
    {"bytes", MFB_MEMCMP, MFB_ORIGIN_BUILTIN, "byte-at-a-time loop", {.cmp = mfb_memcmp_bytes}, false, NULL, NULL, NULL, NULL},
    {"words", MFB_MEMCMP, MFB_ORIGIN_BUILTIN, "8-byte words, byte-swapped order at the first difference", {.cmp = mfb_memcmp_words}, false, NULL, NULL, NULL, NULL},
#if defined(__aarch64__)
    {"asimd", MFB_MEMCMP, MFB_ORIGIN_BUILTIN, "Advanced SIMD: 32 bytes a step (ldp q pairs, umaxv of the XORs), the first difference from the cmeq mask; big-endian words under 16 bytes", {.cmp = mfb_memcmp_asimd}, false, NULL, NULL, NULL, NULL},
#endif
    {"noop", MFB_MEMCMP, MFB_ORIGIN_HARNESS, "returns at once: harness overhead per call", {.cmp = mfb_cmp_noop}, true, NULL, NULL, NULL, NULL},
#if defined(__x86_64__)
    PROBE_LOAD1(MFB_MEMCMP),
    PROBE_LOAD32(MFB_MEMCMP),
#endif
    LIBC_COPY(MFB_MEMCMP),
    COPY("bytes-copy", MFB_MEMCMP, cmp, mfb_memcmp_bytes_copy, "bytes"),
    COPY("words-copy", MFB_MEMCMP, cmp, mfb_memcmp_words_copy, "words"),
#if defined(__aarch64__)
    COPY("asimd-copy", MFB_MEMCMP, cmp, mfb_memcmp_asimd_copy, "asimd"),
#endif

    {"libc", MFB_BCMP, MFB_ORIGIN_LIBC, "the C library's bcmp", {.cmp = bcmp}, false, NULL, NULL, NULL, NULL},
    {"bytes", MFB_BCMP, MFB_ORIGIN_BUILTIN, "byte loop, stops at the first difference", {.cmp = mfb_bcmp_bytes}, false, NULL, NULL, NULL, NULL},
    {"sizeclass", MFB_BCMP, MFB_ORIGIN_BUILTIN, "OR of XORs of overlapping head/tail words, 16-byte blocks", {.cmp = mfb_bcmp_sizeclass}, false, NULL, NULL, NULL, NULL},
    {"noop", MFB_BCMP, MFB_ORIGIN_HARNESS, "returns at once: harness overhead per call", {.cmp = mfb_cmp_noop}, true, NULL, NULL, NULL, NULL},
#if defined(__x86_64__)
    PROBE_LOAD1(MFB_BCMP),
    PROBE_LOAD32(MFB_BCMP),
#endif
    LIBC_COPY(MFB_BCMP),
    COPY("bytes-copy", MFB_BCMP, cmp, mfb_bcmp_bytes_copy, "bytes"),
    COPY("sizeclass-copy", MFB_BCMP, cmp, mfb_bcmp_sizeclass_copy, "sizeclass"),
};

const char *mfb_origin_name(enum mfb_origin o)
{
    static const char *const names[] = {
        [MFB_ORIGIN_LIBC] = "libc",   [MFB_ORIGIN_BUILTIN] = "builtin",       [MFB_ORIGIN_HARNESS] = "harness",
        [MFB_ORIGIN_COPY] = "copy",   [MFB_ORIGIN_VALIDATION] = "validation", [MFB_ORIGIN_PLUGIN] = "plugin",
        [MFB_ORIGIN_PROBE] = "probe",  [MFB_ORIGIN_SOURCE] = "source"};
    return names[o];
}

size_t mfb_variants_all(const struct mfb_variant **out)
{
    *out = table;
    return sizeof table / sizeof table[0];
}

const struct mfb_variant *mfb_variant_find(enum mfb_func f, const char *name)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (table[i].func == f && !strcmp(table[i].name, name))
            return &table[i];
    return NULL;
}

bool mfb_variant_available(const struct mfb_variant *v)
{
    return !v->available || v->available();
}

bool mfb_variant_default(const struct mfb_variant *v)
{
    return v->origin == MFB_ORIGIN_LIBC || v->origin == MFB_ORIGIN_BUILTIN || v->origin == MFB_ORIGIN_HARNESS;
}

int mfb_variant_instantiate(const struct mfb_variant *v, struct mfb_variant *out, const char **why)
{
    *out = *v;
    if (!mfb_variant_available(v)) {
        *why = v->needs;
        return -1;
    }
    return v->resolve ? v->resolve(v->func, &out->fn, why) : 0;
}

size_t mfb_variant_same_code(const struct mfb_variant *a, const struct mfb_variant *b, bool *identical)
{
    struct mfb_codeinfo x, y;
    mfb_variant_codeinfo(a, &x);
    mfb_variant_codeinfo(b, &y);
    size_t n = x.size && x.size == y.size ? x.size : 256;
    if (x.size && y.size && x.size != y.size) {
        *identical = false;
        return 0;
    }
    *identical = memcmp((const void *)x.address, (const void *)y.address, n) == 0;
    return n;
}

void mfb_variant_codeinfo(const struct mfb_variant *v, struct mfb_codeinfo *ci)
{
    void *addr;
    memcpy(&addr, &v->fn, sizeof addr);
    memset(ci, 0, sizeof *ci);
    ci->address = (uintptr_t)addr;
    Dl_info info;
    const ElfW(Sym) *sym = NULL;
    if (dladdr1(addr, &info, (void **)&sym, RTLD_DL_SYMENT)) {
        ci->object = info.dli_fname;
        /* dladdr names the nearest exported symbol below the address; libc's IFUNC targets are
         * often local, so a name is reported only when it starts exactly here. */
        if (info.dli_saddr == addr) {
            ci->symbol = info.dli_sname;
            ci->size = sym ? sym->st_size : 0;
        }
    }
}
