#include "variants.h"

#include <dlfcn.h>
#include <link.h>
#include <string.h>
#include <strings.h>

#include "impl.h"

#if defined(__x86_64__)
static int has_avx2(void)
{
    return mfb_cpu_has_avx2();
}
#endif

/* libc functions are stored as data and reached only through this table at run time, so the
 * timed loop cannot inline them or specialise them on a size. */
static const struct mfb_variant table[] = {
    {"libc", MFB_MEMCPY, "libc", "the C library's memcpy (resolved through its IFUNC)", {.copy = memcpy}, false, NULL, NULL},
    {"bytes", MFB_MEMCPY, "builtin", "byte-at-a-time loop", {.copy = mfb_memcpy_bytes}, false, NULL, NULL},
#if defined(__x86_64__)
    {"rep_movsb", MFB_MEMCPY, "builtin", "rep movsb (ERMS/FSRM microcode)", {.copy = mfb_memcpy_rep_movsb}, false, NULL, NULL},
    {"sse2", MFB_MEMCPY, "builtin", "16-byte unaligned SSE2 loop, overlapping tail", {.copy = mfb_memcpy_sse2}, false, NULL, NULL},
    {"avx2", MFB_MEMCPY, "builtin", "32-byte unaligned AVX2 loop, overlapping tail", {.copy = mfb_memcpy_avx2}, false, has_avx2, "AVX2"},
#endif
    {"sizeclass", MFB_MEMCPY, "builtin", "size classes with overlapping head/tail, 32-byte blocks", {.copy = mfb_memcpy_sizeclass}, false, NULL, NULL},
    {"noop", MFB_MEMCPY, "harness", "returns at once: harness overhead per call", {.copy = mfb_copy_noop}, true, NULL, NULL},

    {"libc", MFB_MEMMOVE, "libc", "the C library's memmove", {.copy = memmove}, false, NULL, NULL},
    {"bytes", MFB_MEMMOVE, "builtin", "byte loop, forward or backward by overlap", {.copy = mfb_memmove_bytes}, false, NULL, NULL},
    {"sizeclass", MFB_MEMMOVE, "builtin", "loads-before-stores head/tail classes, directional 32-byte blocks", {.copy = mfb_memmove_sizeclass}, false, NULL, NULL},
    {"noop", MFB_MEMMOVE, "harness", "returns at once: harness overhead per call", {.copy = mfb_copy_noop}, true, NULL, NULL},

    {"libc", MFB_MEMSET, "libc", "the C library's memset", {.set = memset}, false, NULL, NULL},
    {"bytes", MFB_MEMSET, "builtin", "byte-at-a-time loop", {.set = mfb_memset_bytes}, false, NULL, NULL},
#if defined(__x86_64__)
    {"rep_stosb", MFB_MEMSET, "builtin", "rep stosb (ERMS/FSRM microcode)", {.set = mfb_memset_rep_stosb}, false, NULL, NULL},
#endif
    {"sizeclass", MFB_MEMSET, "builtin", "broadcast value, overlapping head/tail, 32-byte blocks", {.set = mfb_memset_sizeclass}, false, NULL, NULL},
    {"noop", MFB_MEMSET, "harness", "returns at once: harness overhead per call", {.set = mfb_set_noop}, true, NULL, NULL},

    {"libc", MFB_MEMCMP, "libc", "the C library's memcmp", {.cmp = memcmp}, false, NULL, NULL},
    {"bytes", MFB_MEMCMP, "builtin", "byte-at-a-time loop", {.cmp = mfb_memcmp_bytes}, false, NULL, NULL},
    {"words", MFB_MEMCMP, "builtin", "8-byte words, byte-swapped order at the first difference", {.cmp = mfb_memcmp_words}, false, NULL, NULL},
    {"noop", MFB_MEMCMP, "harness", "returns at once: harness overhead per call", {.cmp = mfb_cmp_noop}, true, NULL, NULL},

    {"libc", MFB_BCMP, "libc", "the C library's bcmp", {.cmp = bcmp}, false, NULL, NULL},
    {"bytes", MFB_BCMP, "builtin", "byte loop, stops at the first difference", {.cmp = mfb_bcmp_bytes}, false, NULL, NULL},
    {"sizeclass", MFB_BCMP, "builtin", "OR of XORs of overlapping head/tail words, 16-byte blocks", {.cmp = mfb_bcmp_sizeclass}, false, NULL, NULL},
    {"noop", MFB_BCMP, "harness", "returns at once: harness overhead per call", {.cmp = mfb_cmp_noop}, true, NULL, NULL},
};

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
