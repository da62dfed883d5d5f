/* The registry of implementations a run can time: libc, built-ins and the noop probe. */
#ifndef MFB_VARIANTS_H
#define MFB_VARIANTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/functions.h"

typedef void *(*mfb_copy_fn)(void *, const void *, size_t);
typedef void *(*mfb_set_fn)(void *, int, size_t);
typedef int (*mfb_cmp_fn)(const void *, const void *, size_t);

union mfb_fn {
    mfb_copy_fn copy; /* memcpy, memmove */
    mfb_set_fn set;   /* memset */
    mfb_cmp_fn cmp;   /* memcmp, bcmp */
};

/* Where a variant's code comes from. */
enum mfb_origin {
    MFB_ORIGIN_LIBC,       /* the C library the binary runs with */
    MFB_ORIGIN_BUILTIN,    /* memfbench's own implementations (impl/) */
    MFB_ORIGIN_HARNESS,    /* noop: the harness's own cost */
    MFB_ORIGIN_COPY,       /* A/A: the same code again at another address */
    MFB_ORIGIN_VALIDATION, /* known extra cost, for checking the statistics */
    MFB_ORIGIN_PLUGIN,     /* --variant PATH:SYMBOL */
    MFB_ORIGIN_PROBE,      /* harness-bias probes (load1, load32): timed only when named */
    MFB_ORIGIN_SOURCE      /* --variant FILE.c:SYMBOL (or .o, .a): built by memfbench at every placement */
};

/* The origin's name in the result file and `memfbench list`. */
const char *mfb_origin_name(enum mfb_origin o);

struct mfb_variant {
    const char *name;
    enum mfb_func func;
    enum mfb_origin origin;
    const char *description;
    union mfb_fn fn;
    bool noop;               /* measures harness overhead; exempt from the result check */
    int (*available)(void);  /* NULL: always */
    const char *needs;       /* what an unavailable variant needs */
    /* Variants whose code is only found at run time (a second libc) fill fn here; NULL: fn is set. */
    int (*resolve)(enum mfb_func f, union mfb_fn *fn, const char **why);
    const char *copy_of;     /* A/A copies: the variant whose code this duplicates */
};

/* Where the code under test lives, from the dynamic symbol table (dladdr). */
struct mfb_codeinfo {
    uintptr_t address;
    const char *symbol; /* NULL when unknown */
    const char *object; /* shared object or executable */
    size_t size;        /* 0 when unknown */
};

size_t mfb_variants_all(const struct mfb_variant **out);
const struct mfb_variant *mfb_variant_find(enum mfb_func f, const char *name);
bool mfb_variant_available(const struct mfb_variant *v);
/* Whether a variant belongs in the default set (libc, built-ins, noop; not copies or validation). */
bool mfb_variant_default(const struct mfb_variant *v);
/* A usable copy of v in *out, with run-time code resolved; -1 and why when it cannot be had. */
int mfb_variant_instantiate(const struct mfb_variant *v, struct mfb_variant *out, const char **why);
/* Compares the code bytes of a copy with its original (symbol sizes, else the first 256 bytes). */
size_t mfb_variant_same_code(const struct mfb_variant *a, const struct mfb_variant *b, bool *identical);
void mfb_variant_codeinfo(const struct mfb_variant *v, struct mfb_codeinfo *ci);

#endif
