/* libmemfbench-ab.so: the LD_PRELOAD shim of `memfbench ab` (docs/program-ab.md). It routes a
 * program's calls to memcpy, memmove, memset, memcmp and bcmp, and their fortified, mempcpy and
 * wmemcpy entry points (the ones the recorder interposes, record/recorder.c), to one implementation:
 *
 *   MEMFBENCH_AB_VARIANT=PATH:SYMBOL   a function of that prototype in a shared object (a plugin,
 *                                      or a built-in from libmemfbench-builtins.so)
 *   MEMFBENCH_AB_FUNCTION=F            which function it implements: memcpy (default), memmove,
 *                                      memset, memcmp or bcmp; the others go to the C library
 *   unset, or MEMFBENCH_AB_VARIANT=libc every call to the C library: the shim's own cost
 *   MEMFBENCH_AB_CALLS=FILE            at exit, append "FUNCTION CALLS INSIDE" for the function's
 *                                      calls (every entry point of its family, either side) and
 *                                      whether the process exited inside the variant's code (1: the
 *                                      variant called exit): how memfbench ab sees that a run did
 *                                      its work, ran through the shim and was not cut short
 *   MEMFBENCH_AB_COUNT=FILE            at exit, append "ENTRY ROUTED LIBC" per entry point (tests)
 *
 * Both files are the program's to break: it may make either a FIFO, a folder or a link to a device.
 * The shim writes only into a regular file it opened without blocking and without following a
 * link, so no process of the program ever waits in its exit for a reader that never comes.
 *
 * A call the routed code makes itself (a wrapper that calls memcpy) goes to the C library, or it
 * would call itself for ever: the variant is loaded with RTLD_DEEPBIND. Calls made before the shim
 * is ready (another library's constructor, dlopen's own copies) take byte loops.
 * A variant that cannot be loaded ends the process with one line (exit 127), before main: a
 * comparison with a silently unrouted side would be a comparison of libc with itself. */

#include <dlfcn.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <unwind.h>
#include <wchar.h>

#include "impl/impl.h" /* the reference loops: the fallbacks of the calls made while resolving */

typedef void *copy_fn(void *, const void *, size_t);
typedef void *set_fn(void *, int, size_t);
typedef int cmp_fn(const void *, const void *, size_t);

/* The entry points, for the counts a test reads. */
enum entry { E_MEMCPY, E_MEMMOVE, E_MEMPCPY, E___MEMPCPY, E_MEMSET, E_MEMCMP, E_BCMP, E_MEMCPY_CHK,
             E_MEMMOVE_CHK, E_MEMPCPY_CHK, E_MEMSET_CHK, E_WMEMCPY, E_COUNT };
static const char *const entry_names[E_COUNT] = {"memcpy", "memmove", "mempcpy", "__mempcpy", "memset", "memcmp",
                                                 "bcmp", "__memcpy_chk", "__memmove_chk", "__mempcpy_chk",
                                                 "__memset_chk", "wmemcpy"};
/* The function families a variant implements (base/functions.h's order). */
enum family { F_MEMCPY, F_MEMMOVE, F_MEMSET, F_MEMCMP, F_BCMP, F_COUNT };
static const char *const family_names[F_COUNT] = {"memcpy", "memmove", "memset", "memcmp", "bcmp"};

static copy_fn *libc_memcpy, *libc_memmove;
static set_fn *libc_memset;
static cmp_fn *libc_memcmp, *libc_bcmp;

static enum family routed_family = F_MEMCPY;
static void *routed;               /* the variant's function; NULL: every call to the C library */
static const void *routed_base;    /* the load address of the variant's library (dladdr); NULL: none */
static int counting;               /* MEMFBENCH_AB_COUNT given */
static atomic_uint_fast64_t counts[E_COUNT][2]; /* [entry][0: routed, 1: C library] */
/* Calls per family, always kept (a call made before the shim has read its family, by another
 * library's constructor, counts too): a relaxed load and store, not a read-modify-write, so a call
 * pays no locked instruction and no arm more than another. Threads may lose an increment to each
 * other now and then: the count is a check that a run did its work (ab.c), not a measurement.
 * On 64-byte lines of their own: written on every call, they must not share a line with the
 * dispatch pointers every thread reads on every call (each write would take it from their cores). */
static struct {
    _Alignas(64) atomic_uint_fast64_t n[F_COUNT];
} family_calls;

static atomic_int state;           /* 0 unresolved, 1 resolving, 2 ready */
/* this thread is inside resolve(): its calls take the byte loops. initial-exec: reading it never
 * allocates (a dynamic TLS access may, while the variant's dlopen adds TLS) */
static __thread int resolving __attribute__((tls_model("initial-exec")));

/* Where each family's calls go once resolved: the variant for the routed family, the C library for
 * the others. An entry point is one load and a tail jump through its family's pointer, the same two
 * instructions for libc and for a variant, so the shim costs both arms alike; before resolution
 * the pointers lead to the resolving path. Relaxed atomics: written once, before main, read as
 * plain loads. */
static void *first_memcpy(void *, const void *, size_t);
static void *first_memmove(void *, const void *, size_t);
static void *first_memset(void *, int, size_t);
static int first_memcmp(const void *, const void *, size_t);
static int first_bcmp(const void *, const void *, size_t);
static _Atomic(copy_fn *) to_memcpy = first_memcpy, to_memmove = first_memmove;
static _Atomic(set_fn *) to_memset = first_memset;
static _Atomic(cmp_fn *) to_memcmp = first_memcmp, to_bcmp = first_bcmp;

/* One line on stderr and exit 127 (the shell's "cannot run"): the program never runs unrouted. */
static void die(const char *what, const char *detail)
{
    const char *parts[] = {"memfbench ab shim: ", what, detail ? ": " : "", detail ? detail : "", "\n"};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        if (write(STDERR_FILENO, parts[i], strlen(parts[i])) < 0)
            break;
    _exit(127);
}

/* The family the variant implements (and whose calls are counted for MEMFBENCH_AB_CALLS). */
static void read_family(void)
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
}

static void load_variant(const char *spec)
{
    const char *colon = strrchr(spec, ':');
    if (!colon || colon == spec || !colon[1])
        die("MEMFBENCH_AB_VARIANT is not PATH:SYMBOL", spec);
    char path[4096];
    size_t n = (size_t)(colon - spec);
    if (n >= sizeof path)
        die("MEMFBENCH_AB_VARIANT: the path is too long", NULL);
    mfb_ref_memmove(path, spec, n);
    path[n] = '\0';
    /* RTLD_DEEPBIND: the variant's own calls to memcpy (a wrapper's) bind to the C library it
     * links, not to this shim, so they never come back here: no flag on the path of every call.
     * (A library linked without the C library, -nostdlib, that calls memcpy anyway would find this
     * shim and recurse until the run fails: memfbench ab then names the run.) */
    /* A library the program already holds keeps the bindings it has (RTLD_DEEPBIND is not applied
     * again): a wrapper in it would call the shim, which calls it, for ever. */
    void *held = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
    if (held)
        die("the variant's library is already loaded in the program (its own calls would come back to the shim)",
            path);
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    if (!h)
        die("cannot load the variant", dlerror());
    routed = dlsym(h, colon + 1);
    if (!routed)
        die("the variant's library has no such symbol", colon + 1);
    Dl_info info;
    if (dladdr(routed, &info) && info.dli_fbase)
        routed_base = info.dli_fbase;
}

/* Counting (tests): which side an entry point's call went to. Off, it is one predictable branch on
 * a flag, in every arm alike. */
static inline void count(enum entry e, enum family f)
{
    atomic_store_explicit(&family_calls.n[f], atomic_load_explicit(&family_calls.n[f], memory_order_relaxed) + 1,
                          memory_order_relaxed);
    if (__builtin_expect(counting, 0))
        atomic_fetch_add_explicit(&counts[e][routed && routed_family == f ? 0 : 1], 1, memory_order_relaxed);
}

static void resolve(void)
{
    int expect = 0;
    if (!atomic_compare_exchange_strong(&state, &expect, 1)) {
        if (!resolving)
            while (atomic_load(&state) != 2)
                ; /* another thread is resolving: microseconds, once per process */
        return;
    }
    resolving = 1;
    libc_memcpy = (copy_fn *)dlsym(RTLD_NEXT, "memcpy");
    libc_memmove = (copy_fn *)dlsym(RTLD_NEXT, "memmove");
    libc_memset = (set_fn *)dlsym(RTLD_NEXT, "memset");
    libc_memcmp = (cmp_fn *)dlsym(RTLD_NEXT, "memcmp");
    libc_bcmp = (cmp_fn *)dlsym(RTLD_NEXT, "bcmp");
    if (!libc_bcmp)
        libc_bcmp = libc_memcmp;
    if (!libc_memcpy || !libc_memmove || !libc_memset || !libc_memcmp)
        die("the C library's functions were not found (dlsym RTLD_NEXT)", NULL);
    read_family();
    const char *spec = getenv("MEMFBENCH_AB_VARIANT");
    if (spec && *spec && strcmp(spec, "libc") != 0)
        load_variant(spec);
    const char *c = getenv("MEMFBENCH_AB_COUNT");
    counting = c && *c;
    atomic_store_explicit(&to_memcpy, routed && routed_family == F_MEMCPY ? (copy_fn *)routed : libc_memcpy,
                          memory_order_relaxed);
    atomic_store_explicit(&to_memmove, routed && routed_family == F_MEMMOVE ? (copy_fn *)routed : libc_memmove,
                          memory_order_relaxed);
    atomic_store_explicit(&to_memset, routed && routed_family == F_MEMSET ? (set_fn *)routed : libc_memset,
                          memory_order_relaxed);
    atomic_store_explicit(&to_memcmp, routed && routed_family == F_MEMCMP ? (cmp_fn *)routed : libc_memcmp,
                          memory_order_relaxed);
    atomic_store_explicit(&to_bcmp, routed && routed_family == F_BCMP ? (cmp_fn *)routed : libc_bcmp,
                          memory_order_relaxed);
    resolving = 0;
    atomic_store(&state, 2);
}

/* The resolving path: calls made before the shim is ready (another library's constructor, or the
 * dlopen of the variant itself) resolve it, or take the byte loops while this thread resolves. */
static int ready(void)
{
    if (atomic_load(&state) != 2)
        resolve();
    return atomic_load(&state) == 2;
}

static void *first_memcpy(void *restrict d, const void *restrict s, size_t n)
{
    return ready() ? atomic_load_explicit(&to_memcpy, memory_order_relaxed)(d, s, n) : mfb_ref_memmove(d, s, n);
}

static void *first_memmove(void *d, const void *s, size_t n)
{
    return ready() ? atomic_load_explicit(&to_memmove, memory_order_relaxed)(d, s, n) : mfb_ref_memmove(d, s, n);
}

static void *first_memset(void *d, int v, size_t n)
{
    return ready() ? atomic_load_explicit(&to_memset, memory_order_relaxed)(d, v, n) : mfb_ref_memset(d, v, n);
}

static int first_memcmp(const void *a, const void *b, size_t n)
{
    return ready() ? atomic_load_explicit(&to_memcmp, memory_order_relaxed)(a, b, n) : mfb_ref_memcmp(a, b, n);
}

static int first_bcmp(const void *a, const void *b, size_t n)
{
    return ready() ? atomic_load_explicit(&to_bcmp, memory_order_relaxed)(a, b, n) : mfb_ref_memcmp(a, b, n);
}

/* path opened for writing (flags added) without blocking on a FIFO, following a link or taking a
 * folder or a device: a descriptor of a regular file, or -1. */
static int open_regular(const char *path, int flags)
{
    int fd = path && *path ? open(path, flags | O_WRONLY | O_APPEND | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC, 0644) : -1;
    struct stat st;
    if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
        close(fd);
        fd = -1;
    }
    return fd;
}

static void write_counts(void)
{
    int fd = open_regular(getenv("MEMFBENCH_AB_COUNT"), O_CREAT);
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

/* One line, "FUNCTION CALLS INSIDE", appended in one write(2): the processes of a run (a program
 * that forks or runs others) append to the same file without tearing each other's lines. The file
 * is never created here: memfbench ab makes it before each run. */
static void write_calls(unsigned long long calls, bool inside)
{
    int fd = open_regular(getenv("MEMFBENCH_AB_CALLS"), 0);
    if (fd < 0)
        return; /* memfbench ab reads a missing line, or a file that is not one, as a run it cannot count */
    char line[64];
    int k = snprintf(line, sizeof line, "%s %llu %d\n", family_names[routed_family], calls, inside ? 1 : 0);
    if (k > 0 && write(fd, line, (size_t)k) < 0) {
        /* nothing more to do: memfbench ab reads a missing line as a run that did not end normally */
    }
    close(fd);
}

/* Frames looked at, at most, from the exit handler down: exit's caller is a handful below it. */
#define EXIT_FRAMES 64

struct exit_walk {
    int frames;
    bool inside;
};

static _Unwind_Reason_Code exit_frame(struct _Unwind_Context *ctx, void *arg)
{
    struct exit_walk *w = arg;
    int interrupted = 0;
    uintptr_t ip = (uintptr_t)_Unwind_GetIPInfo(ctx, &interrupted);
    /* a frame a signal interrupted (a handler that called exit) and everything below it ran before
     * the exit was asked for: the program's own, not the variant's */
    if (interrupted || ip == 0 || ++w->frames > EXIT_FRAMES)
        return _URC_END_OF_STACK;
    Dl_info info;
    /* ip - 1: a return address, which may already be past its function's last byte */
    if (routed_base && dladdr((void *)(ip - 1), &info) && info.dli_fbase == routed_base) {
        w->inside = true;
        return _URC_END_OF_STACK;
    }
    return _URC_NO_REASON;
}

/* Whether this exit was called from inside the variant's library: a frame of it on this thread's
 * stack between the exit handlers and the signal frame, if any. Found by unwinding once, at exit,
 * rather than by a flag set around every call: a flag costs the two arms of a comparison unlike
 * amounts (docs/program-ab.md, "The shim"), the walk costs them alike and only once. A variant
 * that calls _exit runs no handler; memfbench ab sees its run by the count it lacks. */
static bool exited_inside_variant(void)
{
    struct exit_walk w = {0};
    _Unwind_Backtrace(exit_frame, &w); /* both arms walk: the libc arm simply finds no variant */
    return w.inside;
}
__attribute__((constructor)) static void at_load(void)
{
    resolve();
}

__attribute__((destructor)) static void at_unload(void)
{
    unsigned long long calls = atomic_load_explicit(&family_calls.n[routed_family], memory_order_relaxed);
    /* From here every call is the shim's own (the unwinder's, stdio's): to the C library, so that a
     * variant that exits on every call in programs cannot run again inside this exit. */
    counting = 0;
    if (atomic_load(&state) == 2) {
        atomic_store_explicit(&to_memcpy, libc_memcpy, memory_order_relaxed);
        atomic_store_explicit(&to_memmove, libc_memmove, memory_order_relaxed);
        atomic_store_explicit(&to_memset, libc_memset, memory_order_relaxed);
        atomic_store_explicit(&to_memcmp, libc_memcmp, memory_order_relaxed);
        atomic_store_explicit(&to_bcmp, libc_bcmp, memory_order_relaxed);
    }
    write_calls(calls, exited_inside_variant());
    write_counts();
}

#define EXPORT __attribute__((visibility("default")))

EXPORT void *memcpy(void *restrict d, const void *restrict s, size_t n)
{
    count(E_MEMCPY, F_MEMCPY);
    return atomic_load_explicit(&to_memcpy, memory_order_relaxed)(d, s, n);
}

EXPORT void *memmove(void *d, const void *s, size_t n)
{
    count(E_MEMMOVE, F_MEMMOVE);
    return atomic_load_explicit(&to_memmove, memory_order_relaxed)(d, s, n);
}

/* mempcpy is memcpy returning the end: routed with memcpy. */
EXPORT void *mempcpy(void *restrict d, const void *restrict s, size_t n)
{
    count(E_MEMPCPY, F_MEMCPY);
    return (unsigned char *)atomic_load_explicit(&to_memcpy, memory_order_relaxed)(d, s, n) + n;
}

EXPORT void *__mempcpy(void *restrict d, const void *restrict s, size_t n)
{
    count(E___MEMPCPY, F_MEMCPY);
    return (unsigned char *)atomic_load_explicit(&to_memcpy, memory_order_relaxed)(d, s, n) + n;
}

EXPORT void *memset(void *d, int v, size_t n)
{
    count(E_MEMSET, F_MEMSET);
    return atomic_load_explicit(&to_memset, memory_order_relaxed)(d, v, n);
}

EXPORT int memcmp(const void *a, const void *b, size_t n)
{
    count(E_MEMCMP, F_MEMCMP);
    return atomic_load_explicit(&to_memcmp, memory_order_relaxed)(a, b, n);
}

EXPORT int bcmp(const void *a, const void *b, size_t n)
{
    count(E_BCMP, F_BCMP);
    return atomic_load_explicit(&to_bcmp, memory_order_relaxed)(a, b, n);
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
    check_room(n, room);
    count(E_MEMCPY_CHK, F_MEMCPY);
    return atomic_load_explicit(&to_memcpy, memory_order_relaxed)(d, s, n);
}

EXPORT void *__memmove_chk(void *d, const void *s, size_t n, size_t room)
{
    check_room(n, room);
    count(E_MEMMOVE_CHK, F_MEMMOVE);
    return atomic_load_explicit(&to_memmove, memory_order_relaxed)(d, s, n);
}

EXPORT void *__mempcpy_chk(void *d, const void *s, size_t n, size_t room)
{
    check_room(n, room);
    count(E_MEMPCPY_CHK, F_MEMCPY);
    return (unsigned char *)atomic_load_explicit(&to_memcpy, memory_order_relaxed)(d, s, n) + n;
}

/* wmemcpy copies n wide characters: routed with memcpy, as the recorder counts it (a memcpy of
 * their bytes). */
EXPORT wchar_t *wmemcpy(wchar_t *restrict d, const wchar_t *restrict s, size_t n)
{
    count(E_WMEMCPY, F_MEMCPY);
    return atomic_load_explicit(&to_memcpy, memory_order_relaxed)(d, s, n * sizeof(wchar_t));
}

EXPORT void *__memset_chk(void *d, int v, size_t n, size_t room)
{
    check_room(n, room);
    count(E_MEMSET_CHK, F_MEMSET);
    return atomic_load_explicit(&to_memset, memory_order_relaxed)(d, v, n);
}
