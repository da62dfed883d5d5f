/* libmemfbench-record.so: an LD_PRELOAD interposer that counts the calls a program makes to
 * memcpy, memmove, memset, memcmp and bcmp (and their fortified and mempcpy/wmemcpy entry
 * points), then calls the C library's own function. `memfbench record` sets it up and turns the
 * counts into distribution tables (docs/recording.md).
 *
 * Environment: MEMFBENCH_RECORD_DIR (where each process writes raw-<pid>.txt at exit; unset: the
 * library only forwards calls), MEMFBENCH_RECORD_RATE (1/N or N: every Nth call's shape is counted,
 * all calls are counted), MEMFBENCH_RECORD_FLUSH (seconds: also rewrite the file that often, and
 * on SIGUSR1, for services that do not exit), MEMFBENCH_RECORD_TRACE (N: also keep the first N calls
 * in order, with their callers, written as trace-<pid>.txt). */

#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h> /* rename */
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

#include "impl/impl.h" /* the reference loops: the fallbacks of the calls made while resolving */
#include "histogram.h"

typedef void *copy_fn(void *, const void *, size_t);
typedef void *set_fn(void *, int, size_t);
typedef int cmp_fn(const void *, const void *, size_t);
typedef void *copy_chk_fn(void *, const void *, size_t, size_t);
typedef void *set_chk_fn(void *, int, size_t, size_t);
typedef wchar_t *wcopy_fn(wchar_t *, const wchar_t *, size_t);

static copy_fn *real_memcpy, *real_memmove, *real_mempcpy;
static set_fn *real_memset;
static cmp_fn *real_memcmp, *real_bcmp;
static copy_chk_fn *real_memcpy_chk, *real_memmove_chk, *real_mempcpy_chk;
static set_chk_fn *real_memset_chk;
static wcopy_fn *real_wmemcpy;

static atomic_int state;          /* 0 unresolved, 1 resolving, 2 ready */
static uint64_t rate = 1;
static int recording;             /* MEMFBENCH_RECORD_DIR was given */
static const char *out_dir;
static uint64_t flush_ns;         /* 0: at exit only */
static int tracing;               /* MEMFBENCH_RECORD_TRACE */
/* The trace window's bound: 16 M calls is 400 MB of text, beyond any useful replay. */
#define TRACE_MAX (1u << 24)
static atomic_int flush_asked;    /* SIGUSR1 */
static atomic_uint_fast64_t last_flush_ns;
static __thread int inside __attribute__((tls_model("initial-exec"))); /* in the recorder's own code: do not count */

static uint64_t parse_u64(const char *s)
{
    uint64_t v = 0;
    for (; s && *s >= '0' && *s <= '9'; s++)
        v = v * 10 + (uint64_t)(*s - '0');
    return v;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void on_usr1(int sig)
{
    (void)sig;
    atomic_store(&flush_asked, 1);
}

static void after_fork_child(void)
{
    rec_reset_all(); /* the child records its own calls (counts and trace), to its own files */
}

/* The thread looking the functions up: its own calls meanwhile (dlsym copies) take the fallbacks;
 * other threads wait for it, so no call of theirs goes uncounted. */
static __thread int resolving_here __attribute__((tls_model("initial-exec")));

static void resolve(void)
{
    int expect = 0;
    if (!atomic_compare_exchange_strong(&state, &expect, 1)) {
        if (!resolving_here)
            while (atomic_load(&state) != 2)
                ; /* microseconds, once per process */
        return;
    }
    resolving_here = 1;
    real_memcpy = (copy_fn *)dlsym(RTLD_NEXT, "memcpy");
    real_memmove = (copy_fn *)dlsym(RTLD_NEXT, "memmove");
    real_mempcpy = (copy_fn *)dlsym(RTLD_NEXT, "mempcpy");
    real_memset = (set_fn *)dlsym(RTLD_NEXT, "memset");
    real_memcmp = (cmp_fn *)dlsym(RTLD_NEXT, "memcmp");
    real_bcmp = (cmp_fn *)dlsym(RTLD_NEXT, "bcmp");
    real_memcpy_chk = (copy_chk_fn *)dlsym(RTLD_NEXT, "__memcpy_chk");
    real_memmove_chk = (copy_chk_fn *)dlsym(RTLD_NEXT, "__memmove_chk");
    real_mempcpy_chk = (copy_chk_fn *)dlsym(RTLD_NEXT, "__mempcpy_chk");
    real_memset_chk = (set_chk_fn *)dlsym(RTLD_NEXT, "__memset_chk");
    real_wmemcpy = (wcopy_fn *)dlsym(RTLD_NEXT, "wmemcpy");
    if (!real_bcmp)
        real_bcmp = real_memcmp;
    out_dir = getenv("MEMFBENCH_RECORD_DIR");
    recording = out_dir && *out_dir;
    const char *r = getenv("MEMFBENCH_RECORD_RATE");
    if (r) {
        const char *slash = r;
        while (*slash && *slash != '/')
            slash++;
        uint64_t n = parse_u64(*slash ? slash + 1 : r);
        rate = n ? n : 1;
    }

    flush_ns = parse_u64(getenv("MEMFBENCH_RECORD_FLUSH")) * 1000000000u;
    uint64_t window = parse_u64(getenv("MEMFBENCH_RECORD_TRACE"));
    if (recording && window)
        tracing = rec_trace_init(window < TRACE_MAX ? window : TRACE_MAX) == 0;
    if (recording) {
        pthread_atfork(NULL, NULL, after_fork_child);
        if (flush_ns) {
            struct sigaction sa = {.sa_handler = on_usr1, .sa_flags = SA_RESTART};
            sigemptyset(&sa.sa_mask);
            sigaction(SIGUSR1, &sa, NULL);
            atomic_store(&last_flush_ns, now_ns());
        }
    }
    resolving_here = 0;
    atomic_store(&state, 2);
}

/* Before main: most programs are ready before their first thread starts. */
__attribute__((constructor)) static void at_load(void)
{
    resolve();
}

static inline int ready(void)
{
    if (__builtin_expect(atomic_load_explicit(&state, memory_order_acquire) == 2, 1))
        return 1;
    resolve();
    return atomic_load(&state) == 2;
}

/* Writes <prefix><pid>.txt in the output folder: a temporary first, renamed over the last one,
 * so a reader sees a whole file or the previous whole file. */
static void write_file(const char *prefix, void (*writer)(int fd))
{
    char path[4096], tmp[4096];
    size_t n = 0;
    for (const char *s = out_dir; *s && n < sizeof path - 64; s++)
        path[n++] = *s;
    path[n++] = '/';
    const char *mid = prefix;
    for (const char *s = mid; *s; s++)
        path[n++] = *s;
    char digits[24];
    int k = 0;
    for (uint64_t p = (uint64_t)getpid(); p || !k; p /= 10)
        digits[k++] = (char)('0' + p % 10);
    while (k)
        path[n++] = digits[--k];
    size_t stem = n;
    const char *ext = ".txt";
    for (const char *s = ext; *s; s++)
        path[n++] = *s;
    path[n] = '\0';
    for (size_t i = 0; i < stem; i++)
        tmp[i] = path[i];
    const char *tail = ".tmp";
    size_t m = stem;
    for (const char *s = tail; *s; s++)
        tmp[m++] = *s;
    tmp[m] = '\0';
    /* The program knows the folder ($MEMFBENCH_RECORD_DIR) and may have put a FIFO, a folder or a
     * link at this name: opened without blocking or following a link, and written only when it
     * is a regular file, so no process of the program waits in its exit for a reader. */
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC, 0644);
    struct stat st;
    if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
        close(fd);
        fd = -1;
    }
    if (fd >= 0) {
        writer(fd);
        int ok = fsync(fd) == 0;
        close(fd);
        if (ok)
            rename(tmp, path);
        else
            unlink(tmp);
    }
}

static void write_counts(int fd)
{
    rec_dump(fd, rate);
}

static void dump(void)
{
    if (!recording)
        return;
    inside = 1;
    write_file("raw-", write_counts);
    if (tracing)
        write_file("trace-", rec_trace_dump);
    inside = 0;
}

static void maybe_flush(void)
{
    if (!flush_ns)
        return;
    uint64_t t = now_ns();
    if (atomic_exchange(&flush_asked, 0) || t - atomic_load(&last_flush_ns) > flush_ns) {
        atomic_store(&last_flush_ns, t);
        dump();
    }
}

__attribute__((destructor)) static void at_exit_dump(void)
{
    dump();
}

/* The counts of one call; the shape only every rate-th call of this thread. */
static inline struct rec_func_counts *count(enum rec_func f)
{
    if (!recording || inside)
        return NULL;
    struct rec_block *b = rec_block();
    if (!b)
        return NULL;
    struct rec_func_counts *c = &b->f[f];
    c->calls++;
    if (rate == 1)
        goto sampled;
    if (b->countdown) {
        b->countdown--;
        return NULL;
    }
    /* The next gap is drawn uniformly from 0 .. 2(rate - 1), mean rate - 1: sampling every rate-th
     * call exactly would alias with a program's periodic call patterns (a loop copying sizes in a
     * cycle of 16 sampled at 1/16 sees one size); a random gap does not. */
    if (!b->rng)
        b->rng = (uint64_t)(uintptr_t)b ^ 0x9E3779B97F4A7C15ull;
    b->rng ^= b->rng << 13;
    b->rng ^= b->rng >> 7;
    b->rng ^= b->rng << 17;
    b->countdown = b->rng % (2 * rate - 1);
sampled:
    c->sampled++;
    /* SIGUSR1 is looked at on every sampled call (a plain load), the clock every 4096 */
    if (flush_ns && (atomic_load_explicit(&flush_asked, memory_order_relaxed) || (c->sampled & 4095) == 0))
        maybe_flush();
    return c;
}

static inline void copy_shape(struct rec_func_counts *c, const void *d, const void *s, size_t n, int overlap)
{
    rec_count_size(c, n);
    c->src_align[rec_align_log(s)]++;
    c->dst_align[rec_align_log(d)]++;
    if (overlap) {
        uintptr_t dd = (uintptr_t)d, ss = (uintptr_t)s;
        int k = REC_OVL_NONE;
        if (n && dd > ss && dd < ss + n)
            k = REC_OVL_FORWARD;
        else if (n && dd < ss && dd + n > ss)
            k = REC_OVL_BACKWARD;
        c->overlap[k]++;
    }
}

static inline void cmp_shape(struct rec_func_counts *c, const void *a, const void *b, size_t n)
{
    rec_count_size(c, n);
    c->src_align[rec_align_log(a)]++;
    c->dst_align[rec_align_log(b)]++;
    const unsigned char *x = a, *y = b;
    size_t i = 0;
    while (i < n && x[i] == y[i])
        i++;
    if (i == n)
        c->mis_equal++;
    else if (i == n - 1)
        c->mis_last++;
    else if (i < REC_MISMATCH_EXACT)
        c->mis_at[i]++;
    else
        c->mis_uniform++;
}

/* One call of each kind: its counts, its shape when sampled, its trace entry. Inlined into each
 * interposed function, which passes its own return address as the caller. */
static inline __attribute__((always_inline)) void on_copy(enum rec_func f, const void *d, const void *s, size_t n,
                                                          int overlap, const void *caller)
{
    struct rec_func_counts *c = count(f);
    if (c)
        copy_shape(c, d, s, n, overlap);
    if (tracing && !inside)
        rec_trace_add(f, n, s, d, caller);
}

static inline __attribute__((always_inline)) void on_set(const void *d, size_t n, const void *caller)
{
    struct rec_func_counts *c = count(REC_MEMSET);
    if (c) {
        rec_count_size(c, n);
        c->dst_align[rec_align_log(d)]++;
    }
    if (tracing && !inside)
        rec_trace_add(REC_MEMSET, n, NULL, d, caller);
}

static inline __attribute__((always_inline)) void on_cmp(enum rec_func f, const void *a, const void *b, size_t n,
                                                         const void *caller)
{
    struct rec_func_counts *c = count(f);
    if (c)
        cmp_shape(c, a, b, n);
    if (tracing && !inside)
        rec_trace_add(f, n, a, b, caller);
}

#define EXPORT __attribute__((visibility("default")))
#define CALLER __builtin_return_address(0)

EXPORT void *memcpy(void *restrict d, const void *restrict s, size_t n)
{
    if (!ready())
        return mfb_ref_memmove(d, s, n);
    on_copy(REC_MEMCPY, d, s, n, 0, CALLER);
    return real_memcpy(d, s, n);
}

EXPORT void *memmove(void *d, const void *s, size_t n)
{
    if (!ready())
        return mfb_ref_memmove(d, s, n);
    on_copy(REC_MEMMOVE, d, s, n, 1, CALLER);
    return real_memmove(d, s, n);
}

EXPORT void *mempcpy(void *restrict d, const void *restrict s, size_t n)
{
    if (!ready())
        return (unsigned char *)mfb_ref_memmove(d, s, n) + n;
    on_copy(REC_MEMCPY, d, s, n, 0, CALLER);
    return real_mempcpy ? real_mempcpy(d, s, n) : (unsigned char *)real_memcpy(d, s, n) + n;
}

EXPORT void *__mempcpy(void *restrict d, const void *restrict s, size_t n)
{
    if (!ready())
        return (unsigned char *)mfb_ref_memmove(d, s, n) + n;
    on_copy(REC_MEMCPY, d, s, n, 0, CALLER);
    return real_mempcpy ? real_mempcpy(d, s, n) : (unsigned char *)real_memcpy(d, s, n) + n;
}

EXPORT void *memset(void *d, int v, size_t n)
{
    if (!ready())
        return mfb_ref_memset(d, v, n);
    on_set(d, n, CALLER);
    return real_memset(d, v, n);
}

EXPORT int memcmp(const void *a, const void *b, size_t n)
{
    if (!ready())
        return mfb_ref_memcmp(a, b, n);
    on_cmp(REC_MEMCMP, a, b, n, CALLER);
    return real_memcmp(a, b, n);
}

EXPORT int bcmp(const void *a, const void *b, size_t n)
{
    if (!ready())
        return mfb_ref_memcmp(a, b, n);
    on_cmp(REC_BCMP, a, b, n, CALLER);
    return real_bcmp(a, b, n);
}

/* Fortified entry points (-D_FORTIFY_SOURCE): the C library's own checks run (it aborts on an
 * overflow as it would without us); the call counts as the plain function. */
EXPORT void *__memcpy_chk(void *d, const void *s, size_t n, size_t room)
{
    if (!ready() || !real_memcpy_chk)
        return mfb_ref_memmove(d, s, n);
    on_copy(REC_MEMCPY, d, s, n, 0, CALLER);
    return real_memcpy_chk(d, s, n, room);
}

EXPORT void *__memmove_chk(void *d, const void *s, size_t n, size_t room)
{
    if (!ready() || !real_memmove_chk)
        return mfb_ref_memmove(d, s, n);
    on_copy(REC_MEMMOVE, d, s, n, 1, CALLER);
    return real_memmove_chk(d, s, n, room);
}

EXPORT void *__mempcpy_chk(void *d, const void *s, size_t n, size_t room)
{
    if (!ready() || !real_mempcpy_chk)
        return (unsigned char *)mfb_ref_memmove(d, s, n) + n;
    on_copy(REC_MEMCPY, d, s, n, 0, CALLER);
    return real_mempcpy_chk(d, s, n, room);
}

EXPORT void *__memset_chk(void *d, int v, size_t n, size_t room)
{
    if (!ready() || !real_memset_chk)
        return mfb_ref_memset(d, v, n);
    on_set(d, n, CALLER);
    return real_memset_chk(d, v, n, room);
}

/* wmemcpy copies n wide characters: counted as a memcpy of their bytes. */
EXPORT wchar_t *wmemcpy(wchar_t *restrict d, const wchar_t *restrict s, size_t n)
{
    if (!ready() || !real_wmemcpy)
        return mfb_ref_memmove(d, s, n * sizeof(wchar_t));
    on_copy(REC_MEMCPY, d, s, n * sizeof(wchar_t), 0, CALLER);
    return real_wmemcpy(d, s, n);
}
