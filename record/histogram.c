#include "histogram.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <sys/mman.h>

/* The trace window (rec_trace_init); after fork the child starts its own. */
static struct rec_trace_entry *trace;
static uint64_t trace_cap;
static atomic_uint_fast64_t trace_next;

/* Every block, pushed once by its thread; the dump and the fork handler walk it. */
static _Atomic(struct rec_block *) blocks;
__thread struct rec_block *rec_mine __attribute__((tls_model("initial-exec")));

struct rec_block *rec_block_new(void)
{
    /* mmap rather than malloc: the program's malloc may itself copy, and must not see us. */
    void *p = mmap(NULL, sizeof(struct rec_block), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    struct rec_block *b = p; /* zero-filled by the kernel */
    b->next = atomic_load(&blocks);
    while (!atomic_compare_exchange_weak(&blocks, &b->next, b))
        ;
    rec_mine = b;
    return b;
}

void rec_reset_all(void)
{
    atomic_store(&trace_next, 0);
    for (struct rec_block *b = atomic_load(&blocks); b; b = b->next) {
        struct rec_block *next = b->next;
        uint64_t countdown = b->countdown;
        /* a byte loop: memset would come back to us */
        volatile unsigned char *q = (volatile unsigned char *)b;
        for (size_t i = 0; i < sizeof *b; i++)
            q[i] = 0;
        b->next = next;
        b->countdown = countdown;
    }
}

/* Sums every block into out (a block being written by its thread meanwhile may be a count or
 * two behind; the dump at exit sees them all). */
static void sum_blocks(struct rec_func_counts *out)
{
    for (struct rec_block *b = atomic_load(&blocks); b; b = b->next)
        for (int f = 0; f < REC_FUNCS; f++) {
            const uint64_t *src = (const uint64_t *)&b->f[f];
            uint64_t *dst = (uint64_t *)&out[f];
            for (size_t i = 0; i < sizeof(struct rec_func_counts) / sizeof(uint64_t); i++)
                dst[i] += src[i];
        }
}

/* Text output without stdio (which may allocate and copy through the functions we record). */
struct out {
    int fd;
    char buf[4096];
    size_t n;
};

#include <unistd.h>

static void flush(struct out *o)
{
    size_t done = 0;
    while (done < o->n) {
        ssize_t w = write(o->fd, o->buf + done, o->n - done);
        if (w <= 0)
            break;
        done += (size_t)w;
    }
    o->n = 0;
}

static void put_str(struct out *o, const char *s)
{
    for (; *s; s++) {
        if (o->n == sizeof o->buf)
            flush(o);
        o->buf[o->n++] = *s;
    }
}

static void put_u64(struct out *o, uint64_t v)
{
    char tmp[24];
    int i = 0;
    do {
        tmp[i++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    char rev[24];
    for (int j = 0; j < i; j++)
        rev[j] = tmp[i - 1 - j];
    rev[i] = '\0';
    put_str(o, rev);
}

static void line(struct out *o, const char *kind, const char *fn, uint64_t a, uint64_t b, uint64_t count)
{
    put_str(o, kind);
    put_str(o, " ");
    put_str(o, fn);
    put_str(o, " ");
    put_u64(o, a);
    put_str(o, " ");
    put_u64(o, b);
    put_str(o, " ");
    put_u64(o, count);
    put_str(o, "\n");
}

static const char *const names[REC_FUNCS] = {"memcpy", "memmove", "memset", "memcmp", "bcmp"};

/* Format (one record per line, counts last):
 *   memfbench-record 1
 *   rate N                      every Nth call's shape was counted
 *   calls FUNC CALLS SAMPLED 0
 *   size FUNC LO HI COUNT       sizes LO..HI (LO == HI below 4097)
 *   src_alignment FUNC A A COUNT / dst_alignment ...
 *   overlap FUNC KIND 0 COUNT   KIND 0 none, 1 forward, 2 backward
 *   mismatch FUNC KIND POS COUNT  KIND 0 equal, 1 uniform, 2 at POS, 3 last */
void rec_dump(int fd, uint64_t rate)
{
    static struct rec_func_counts sum[REC_FUNCS]; /* static: too large for a thread's stack */
    volatile unsigned char *q = (volatile unsigned char *)sum;
    for (size_t i = 0; i < sizeof sum; i++)
        q[i] = 0;
    sum_blocks(sum);
    static struct out o;
    o.fd = fd;
    o.n = 0;
    put_str(&o, "memfbench-record 1\nrate ");
    put_u64(&o, rate);
    put_str(&o, "\n");
    for (int f = 0; f < REC_FUNCS; f++) {
        const struct rec_func_counts *c = &sum[f];
        if (!c->calls)
            continue;
        line(&o, "calls", names[f], c->calls, c->sampled, 0);
        for (uint64_t s = 0; s <= REC_EXACT_MAX; s++)
            if (c->exact[s])
                line(&o, "size", names[f], s, s, c->exact[s]);
        for (unsigned k = 0; k < REC_LOG_MAX; k++)
            for (unsigned j = 0; j < REC_SUB_RANGES; j++)
                if (c->ranged[k][j]) {
                    uint64_t base = 1ull << k, width = base / REC_SUB_RANGES;
                    uint64_t lo = base + j * width, hi = j + 1 == REC_SUB_RANGES ? 2 * base - 1 : lo + width - 1;
                    if (lo <= REC_EXACT_MAX)
                        lo = REC_EXACT_MAX + 1;
                    line(&o, "size", names[f], lo, hi, c->ranged[k][j]);
                }
        for (unsigned a = 0; a <= REC_ALIGN_LOG_MAX; a++) {
            if (c->src_align[a])
                line(&o, "src_alignment", names[f], 1ull << a, 1ull << a, c->src_align[a]);
            if (c->dst_align[a])
                line(&o, "dst_alignment", names[f], 1ull << a, 1ull << a, c->dst_align[a]);
        }
        for (unsigned k = 0; k < 3; k++)
            if (c->overlap[k])
                line(&o, "overlap", names[f], k, 0, c->overlap[k]);
        if (c->mis_equal)
            line(&o, "mismatch", names[f], 0, 0, c->mis_equal);
        if (c->mis_uniform)
            line(&o, "mismatch", names[f], 1, 0, c->mis_uniform);
        for (unsigned p = 0; p < REC_MISMATCH_EXACT; p++)
            if (c->mis_at[p])
                line(&o, "mismatch", names[f], 2, p, c->mis_at[p]);
        if (c->mis_last)
            line(&o, "mismatch", names[f], 3, 0, c->mis_last);
    }
    put_str(&o, "end\n");
    flush(&o);
}


int rec_trace_init(uint64_t n)
{
    void *p = mmap(NULL, n * sizeof *trace, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return -1;
    trace = p;
    trace_cap = n;
    return 0;
}

void rec_trace_add(enum rec_func f, uint64_t size, const void *src, const void *dst, const void *caller)
{
    if (!trace || atomic_load_explicit(&trace_next, memory_order_relaxed) >= trace_cap)
        return;
    uint64_t i = atomic_fetch_add(&trace_next, 1);
    if (i >= trace_cap)
        return;
    trace[i] = (struct rec_trace_entry){.size = size, .caller = (uintptr_t)caller, .func = (uint8_t)f,
                                        .src_log = (uint8_t)(src ? rec_align_log(src) : 0),
                                        .dst_log = (uint8_t)rec_align_log(dst)};
}

static void put_hex(struct out *o, uint64_t v)
{
    char tmp[20];
    int i = 0;
    do {
        tmp[i++] = "0123456789abcdef"[v & 15];
        v >>= 4;
    } while (v);
    put_str(o, "0x");
    char rev[20];
    for (int j = 0; j < i; j++)
        rev[j] = tmp[i - 1 - j];
    rev[i] = '\0';
    put_str(o, rev);
}

/* A caller as symbol+offset, else object+offset, else the address; no spaces. */
static void put_caller(struct out *o, uintptr_t a)
{
    Dl_info info;
    if (dladdr((void *)a, &info) && info.dli_fname) {
        const char *base = info.dli_fname;
        for (const char *s = info.dli_fname; *s; s++)
            if (*s == '/')
                base = s + 1;
        if (info.dli_sname) {
            put_str(o, info.dli_sname);
            put_str(o, "+");
            put_hex(o, a - (uintptr_t)info.dli_saddr);
            put_str(o, "@");
            put_str(o, base);
        } else {
            put_str(o, base);
            put_str(o, "+");
            put_hex(o, a - (uintptr_t)info.dli_fbase);
        }
        return;
    }
    put_hex(o, a);
}

/* Format: "memfbench-trace 1", then per call "FUNC SIZE SRC_ALIGN DST_ALIGN CALLER", then "end". */
void rec_trace_dump(int fd)
{
    static struct out o;
    o.fd = fd;
    o.n = 0;
    put_str(&o, "memfbench-trace 1\n");
    uint64_t n = atomic_load(&trace_next);
    if (n > trace_cap)
        n = trace_cap;
    for (uint64_t i = 0; i < n; i++) {
        const struct rec_trace_entry *e = &trace[i];
        put_str(&o, names[e->func]);
        put_str(&o, " ");
        put_u64(&o, e->size);
        put_str(&o, " ");
        put_u64(&o, 1ull << e->src_log);
        put_str(&o, " ");
        put_u64(&o, 1ull << e->dst_log);
        put_str(&o, " ");
        put_caller(&o, e->caller);
        put_str(&o, "\n");
    }
    put_str(&o, "end\n");
    flush(&o);
}
