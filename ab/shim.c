/* libmemfbench-ab.so: the LD_PRELOAD shim of `memfbench ab` (docs/program-ab.md). It routes a
 * program's calls to memcpy, memmove, memset, memcmp and bcmp, and their fortified and mempcpy
 * entry points (the ones the recorder interposes, record/recorder.c), to one implementation:
 *
 *   MEMFBENCH_AB_VARIANT=PATH:SYMBOL   a function of that prototype in a shared object (a plugin,
 *                                      or a built-in from libmemfbench-builtins.so)
 *   MEMFBENCH_AB_FUNCTION=F            which function it implements: memcpy (default), memmove,
 *                                      memset, memcmp or bcmp; the others go to the C library
 *   unset, or MEMFBENCH_AB_VARIANT=libc every call to the C library: the shim's own cost
 *   MEMFBENCH_AB_COUNT=FILE            at exit, append "ENTRY ROUTED LIBC" per entry point (tests)
 *
 * A call the routed code makes itself (a wrapper that calls memcpy) goes to the C library, or it
 * would call itself for ever. Calls made before the shim is ready (dlopen copies) take byte loops.
 * A variant that cannot be loaded ends the process with one line (exit 127), before main: a
 * comparison with a silently unrouted side would be a comparison of libc with itself. */

#include <dlfcn.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fallback.h"

typedef void *copy_fn(void *, const void *, size_t);
typedef void *set_fn(void *, int, size_t);
typedef int cmp_fn(const void *, const void *, size_t);

/* The entry points, for the counts a test reads. */
enum entry { E_MEMCPY, E_MEMMOVE, E_MEMPCPY, E___MEMPCPY, E_MEMSET, E_MEMCMP, E_BCMP, E_MEMCPY_CHK,
             E_MEMMOVE_CHK, E_MEMPCPY_CHK, E_MEMSET_CHK, E_COUNT };
static const char *const entry_names[E_COUNT] = {"memcpy", "memmove", "mempcpy", "__mempcpy", "memset", "memcmp",
                                                 "bcmp", "__memcpy_chk", "__memmove_chk", "__mempcpy_chk",
                                                 "__memset_chk"};
/* The function families a variant implements (base/functions.h's order). */
enum family { F_MEMCPY, F_MEMMOVE, F_MEMSET, F_MEMCMP, F_BCMP, F_COUNT };
static const char *const family_names[F_COUNT] = {"memcpy", "memmove", "memset", "memcmp", "bcmp"};

static copy_fn *libc_memcpy, *libc_memmove;
static set_fn *libc_memset;
static cmp_fn *libc_memcmp, *libc_bcmp;

static enum family routed_family = F_MEMCPY;
static void *routed;               /* the variant's function; NULL: every call to the C library */
static int counting;               /* MEMFBENCH_AB_COUNT given */
static atomic_uint_fast64_t counts[E_COUNT][2]; /* [entry][0: routed, 1: C library] */

static atomic_int state;           /* 0 unresolved, 1 resolving, 2 ready */
static __thread int inside __attribute__((tls_model("initial-exec"))); /* in routed code, or resolving */

/* One line on stderr and exit 127 (the shell's "cannot run"): the program never runs unrouted. */
static void die(const char *what, const char *detail)
{
    const char *parts[] = {"memfbench ab shim: ", what, detail ? ": " : "", detail ? detail : "", "\n"};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        if (write(STDERR_FILENO, parts[i], strlen(parts[i])) < 0)
            break;
    _exit(127);
}

static void load_variant(const char *spec)
{
    const char *fam = getenv("MEMFBENCH_AB_FUNCTION");
    if (fam && *fam) {
        int k = 0;
        while (k < F_COUNT && strcmp(fam, family_names[k]) != 0)
            k++;
        if (k == F_COUNT)
            die("MEMFBENCH_AB_FUNCTION is not memcpy, memmove, memset, memcmp or bcmp", fam);
        routed_family = (enum family)k;
    }
    const char *colon = strrchr(spec, ':');
    if (!colon || colon == spec || !colon[1])
        die("MEMFBENCH_AB_VARIANT is not PATH:SYMBOL", spec);
    char path[4096];
    size_t n = (size_t)(colon - spec);
    if (n >= sizeof path)
        die("MEMFBENCH_AB_VARIANT: the path is too long", NULL);
    fb_copy(path, spec, n);
    path[n] = '\0';
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        die("cannot load the variant", dlerror());
    routed = dlsym(h, colon + 1);
    if (!routed)
        die("the variant's library has no such symbol", colon + 1);
}

static void resolve(void)
{
    int expect = 0;
    if (!atomic_compare_exchange_strong(&state, &expect, 1)) {
        if (!inside)
            while (atomic_load(&state) != 2)
                ; /* another thread is resolving: microseconds, once per process */
        return;
    }
    inside = 1;
    libc_memcpy = (copy_fn *)dlsym(RTLD_NEXT, "memcpy");
    libc_memmove = (copy_fn *)dlsym(RTLD_NEXT, "memmove");
    libc_memset = (set_fn *)dlsym(RTLD_NEXT, "memset");
    libc_memcmp = (cmp_fn *)dlsym(RTLD_NEXT, "memcmp");
    libc_bcmp = (cmp_fn *)dlsym(RTLD_NEXT, "bcmp");
    if (!libc_bcmp)
        libc_bcmp = libc_memcmp;
    if (!libc_memcpy || !libc_memmove || !libc_memset || !libc_memcmp)
        die("the C library's functions were not found (dlsym RTLD_NEXT)", NULL);
    const char *spec = getenv("MEMFBENCH_AB_VARIANT");
    if (spec && *spec && strcmp(spec, "libc") != 0)
        load_variant(spec);
    const char *c = getenv("MEMFBENCH_AB_COUNT");
    counting = c && *c;
    inside = 0;
    atomic_store(&state, 2);
}

static void write_counts(void)
{
    const char *path = getenv("MEMFBENCH_AB_COUNT");
    int fd = path && *path ? open(path, O_WRONLY | O_CREAT | O_APPEND, 0644) : -1;
    if (fd < 0)
        return;
    char line[128];
    for (int e = 0; e < E_COUNT; e++) {
        int k = snprintf(line, sizeof line, "%s %llu %llu\n", entry_names[e],
                         (unsigned long long)atomic_load(&counts[e][0]), (unsigned long long)atomic_load(&counts[e][1]));
        if (k > 0 && write(fd, line, (size_t)k) < 0)
            break;
    }
    close(fd);
}

__attribute__((constructor)) static void at_load(void)
{
    resolve();
}

__attribute__((destructor)) static void at_unload(void)
{
    if (counting) {
        inside = 1; /* stdio's own copies are not the program's */
        write_counts();
    }
}

/* Whether a call of family f through entry e goes to the variant: the shim is ready, the variant
 * implements f, and the caller is not the variant itself. Counted when asked. */
static inline int route(enum entry e, enum family f)
{
    int to_variant = routed && routed_family == f && !inside;
    if (counting && !inside)
        atomic_fetch_add_explicit(&counts[e][to_variant ? 0 : 1], 1, memory_order_relaxed);
    return to_variant;
}

static inline int ready(void)
{
    if (__builtin_expect(atomic_load_explicit(&state, memory_order_acquire) == 2, 1))
        return 1;
    resolve();
    return atomic_load(&state) == 2;
}

#define EXPORT __attribute__((visibility("default")))

/* Every call, the variant's or the C library's, goes through the same steps (the flag set, an
 * indirect call, the flag cleared): the shim then costs the libc arm what it costs a variant's, and
 * a difference between them is the code's, not the shim's. */
static inline void *call_copy(copy_fn *f, void *d, const void *s, size_t n)
{
    int was = inside; /* a call from inside the variant must leave the flag as it found it */
    inside = 1;
    void *r = f(d, s, n);
    inside = was;
    return r;
}

static inline void *call_set(set_fn *f, void *d, int v, size_t n)
{
    int was = inside;
    inside = 1;
    void *r = f(d, v, n);
    inside = was;
    return r;
}

static inline int call_cmp(cmp_fn *f, const void *a, const void *b, size_t n)
{
    int was = inside;
    inside = 1;
    int r = f(a, b, n);
    inside = was;
    return r;
}

static inline copy_fn *copy_target(enum entry e, enum family f, copy_fn *libc)
{
    return route(e, f) ? (copy_fn *)routed : libc;
}

EXPORT void *memcpy(void *restrict d, const void *restrict s, size_t n)
{
    if (!ready())
        return fb_copy(d, s, n);
    return call_copy(copy_target(E_MEMCPY, F_MEMCPY, libc_memcpy), d, s, n);
}

EXPORT void *memmove(void *d, const void *s, size_t n)
{
    if (!ready())
        return fb_copy(d, s, n);
    return call_copy(copy_target(E_MEMMOVE, F_MEMMOVE, libc_memmove), d, s, n);
}

/* mempcpy is memcpy returning the end: routed with memcpy. */
static void *pcopy(enum entry e, void *restrict d, const void *restrict s, size_t n)
{
    if (!ready())
        return (unsigned char *)fb_copy(d, s, n) + n;
    return (unsigned char *)call_copy(copy_target(e, F_MEMCPY, libc_memcpy), d, s, n) + n;
}

EXPORT void *mempcpy(void *restrict d, const void *restrict s, size_t n)
{
    return pcopy(E_MEMPCPY, d, s, n);
}

EXPORT void *__mempcpy(void *restrict d, const void *restrict s, size_t n)
{
    return pcopy(E___MEMPCPY, d, s, n);
}

EXPORT void *memset(void *d, int v, size_t n)
{
    if (!ready())
        return fb_set(d, v, n);
    return call_set(route(E_MEMSET, F_MEMSET) ? (set_fn *)routed : libc_memset, d, v, n);
}

EXPORT int memcmp(const void *a, const void *b, size_t n)
{
    if (!ready())
        return fb_cmp(a, b, n);
    return call_cmp(route(E_MEMCMP, F_MEMCMP) ? (cmp_fn *)routed : libc_memcmp, a, b, n);
}

EXPORT int bcmp(const void *a, const void *b, size_t n)
{
    if (!ready())
        return fb_cmp(a, b, n);
    return call_cmp(route(E_BCMP, F_BCMP) ? (cmp_fn *)routed : libc_bcmp, a, b, n);
}

/* Fortified entry points (-D_FORTIFY_SOURCE): the bound is checked here as the C library would
 * (abort on an overflow), then the call goes where the plain function's goes, the same way for
 * both sides. */
static void check_room(size_t n, size_t room)
{
    static const char msg[] = "*** buffer overflow detected ***: terminated (memfbench ab shim)\n";
    if (n > room) {
        if (write(STDERR_FILENO, msg, sizeof msg - 1) < 0) {
            /* nothing more to say */
        }
        abort(); /* as the C library's __chk_fail */
    }
}

EXPORT void *__memcpy_chk(void *d, const void *s, size_t n, size_t room)
{
    if (!ready())
        return fb_copy(d, s, n);
    check_room(n, room);
    return call_copy(copy_target(E_MEMCPY_CHK, F_MEMCPY, libc_memcpy), d, s, n);
}

EXPORT void *__memmove_chk(void *d, const void *s, size_t n, size_t room)
{
    if (!ready())
        return fb_copy(d, s, n);
    check_room(n, room);
    return call_copy(copy_target(E_MEMMOVE_CHK, F_MEMMOVE, libc_memmove), d, s, n);
}

EXPORT void *__mempcpy_chk(void *d, const void *s, size_t n, size_t room)
{
    if (!ready())
        return (unsigned char *)fb_copy(d, s, n) + n;
    check_room(n, room);
    return (unsigned char *)call_copy(copy_target(E_MEMPCPY_CHK, F_MEMCPY, libc_memcpy), d, s, n) + n;
}

EXPORT void *__memset_chk(void *d, int v, size_t n, size_t room)
{
    if (!ready())
        return fb_set(d, v, n);
    check_room(n, room);
    return call_set(route(E_MEMSET_CHK, F_MEMSET) ? (set_fn *)routed : libc_memset, d, v, n);
}
