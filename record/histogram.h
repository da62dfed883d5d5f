/* The recorder's counts: one block per thread (made on the thread's first recorded call, never on
 * later ones), all blocks on one list that the dump walks. Nothing here allocates with malloc
 * and nothing calls the functions being recorded: the recorder sits underneath both. */
#ifndef MFB_RECORD_HISTOGRAM_H
#define MFB_RECORD_HISTOGRAM_H

#include <stddef.h>
#include <stdint.h>

/* The functions recorded; fortified and "p" entry points count under their plain function. */
enum rec_func { REC_MEMCPY, REC_MEMMOVE, REC_MEMSET, REC_MEMCMP, REC_BCMP, REC_FUNCS };

/* Sizes up to EXACT_MAX are counted one by one (the tables we replay resolve them); above, per
 * power of two in SUB_RANGES equal ranges, replayed uniformly within each. */
#define REC_EXACT_MAX 4096u
#define REC_SUB_RANGES 8u
#define REC_LOG_MAX 40u /* 2^40: above any call a program makes */
/* Alignments 1 .. 4096 (log2 0..12), as the loader's tables. */
#define REC_ALIGN_LOG_MAX 12u
/* First-mismatch positions counted exactly below this; later ones count as "uniform". */
#define REC_MISMATCH_EXACT 256u

enum rec_overlap { REC_OVL_NONE, REC_OVL_FORWARD, REC_OVL_BACKWARD };

struct rec_func_counts {
    uint64_t calls;                     /* every call (sampled or not) */
    uint64_t sampled;                   /* calls whose shape was counted below */
    uint64_t exact[REC_EXACT_MAX + 1];
    uint64_t ranged[REC_LOG_MAX][REC_SUB_RANGES];
    uint64_t src_align[REC_ALIGN_LOG_MAX + 1], dst_align[REC_ALIGN_LOG_MAX + 1];
    uint64_t overlap[3];
    uint64_t mis_equal, mis_last, mis_uniform, mis_at[REC_MISMATCH_EXACT];
};

struct rec_block {
    struct rec_func_counts f[REC_FUNCS];
    uint64_t countdown;                 /* calls left until the next sampled one */
    uint64_t rng;                       /* xorshift state of this thread's sampling */
    struct rec_block *next;             /* the list of every thread's block */
};

/* This thread's block; initial-exec TLS: the library is preloaded, so its TLS is in the static
 * block and a thread reaches it with one load, not a __tls_get_addr call (which cost 8 ns per
 * recorded call here). */
extern __thread struct rec_block *rec_mine __attribute__((tls_model("initial-exec")));
/* Makes this thread's block on its first call (mmap); NULL if that failed (the call then goes
 * uncounted, never fails). */
struct rec_block *rec_block_new(void);

static inline struct rec_block *rec_block(void)
{
    struct rec_block *b = rec_mine;
    return __builtin_expect(b != NULL, 1) ? b : rec_block_new();
}

/* Counts one call's size (the caller decided it is sampled). */
static inline void rec_count_size(struct rec_func_counts *c, uint64_t n)
{
    if (__builtin_expect(n <= REC_EXACT_MAX, 1)) {
        c->exact[n]++;
        return;
    }
    unsigned k = 63u - (unsigned)__builtin_clzll(n);
    if (k >= REC_LOG_MAX)
        k = REC_LOG_MAX - 1;
    uint64_t base = 1ull << k, width = base / REC_SUB_RANGES;
    uint64_t j = (n - base) / width;
    c->ranged[k][j < REC_SUB_RANGES ? j : REC_SUB_RANGES - 1]++;
}

/* The largest power of two dividing the address, as a log2 capped at 12 (4096). */
static inline unsigned rec_align_log(const void *p)
{
    uintptr_t a = (uintptr_t)p | ((uintptr_t)1 << REC_ALIGN_LOG_MAX);
    return (unsigned)__builtin_ctzll((unsigned long long)a);
}
/* The call sequence (MEMFBENCH_RECORD_TRACE=N): the first N calls of the process, every thread,
 * in the order they took a slot. */
struct rec_trace_entry {
    uint64_t size;
    uintptr_t caller;        /* the return address of the recorded call */
    uint8_t func;            /* enum rec_func */
    uint8_t src_log, dst_log;
};

/* Makes room for n entries (mmap); 0 on success. */
int rec_trace_init(uint64_t n);
/* Takes the next slot, or does nothing once the window is full. */
void rec_trace_add(enum rec_func f, uint64_t size, const void *src, const void *dst, const void *caller);
/* Writes the window as text to fd, callers symbolized with dladdr. */
void rec_trace_dump(int fd);

/* Writes every block's counts as text to fd (see the format above rec_dump in histogram.c). */
void rec_dump(int fd, uint64_t rate);
/* After fork, in the child: every block restarts at zero (the parent's counts stay the parent's). */
void rec_reset_all(void);

#endif
