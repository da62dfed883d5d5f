#include "machine/pressure.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "base/quantile.h"
#include "base/target.h"

enum {
    PRESSURE_REPEATS = 9,     /* timings of the block alone; the median is recorded */
    PRESSURE_MIN_RUNS = 16,   /* block runs per timing, at least */
};
/* Instructions per timing of the block alone: enough for the clock's resolution to vanish. */
#define PRESSURE_BRANCHES_PER_TIMING (UINT64_C(1) << 20)

/* x86-64: a `jmp rel32` at the start of each line to the next line, int3 padding the rest
 * (never executed: a stray jump would trap rather than run on), `ret` in the last line. */
static void emit(unsigned char *code, size_t lines)
{
    memset(code, 0xcc, lines * MFB_PRESSURE_LINE);
    for (size_t i = 0; i + 1 < lines; i++) {
        unsigned char *at = code + i * MFB_PRESSURE_LINE;
        int32_t rel = MFB_PRESSURE_LINE - 5; /* from the end of this 5-byte jump to the next line */
        at[0] = 0xe9;
        memcpy(at + 1, &rel, sizeof rel);
    }
    code[(lines - 1) * MFB_PRESSURE_LINE] = 0xc3;
}

static double time_block(const struct mfb_pressure *p, const struct mfb_timer *t)
{
    uint64_t runs = PRESSURE_BRANCHES_PER_TIMING / p->branches;
    runs = runs < PRESSURE_MIN_RUNS ? PRESSURE_MIN_RUNS : runs;
    double ns[PRESSURE_REPEATS];
    for (int k = 0; k < PRESSURE_REPEATS; k++) {
        int cpu;
        uint64_t t0 = mfb_timer_begin(t);
        for (uint64_t i = 0; i < runs; i++)
            p->fn();
        uint64_t t1 = mfb_timer_end(t, &cpu);
        ns[k] = (double)(t1 - t0) * t->ns_per_tick / (double)runs;
    }
    return mfb_quantile_median(ns, PRESSURE_REPEATS);
}

int mfb_pressure_make(struct mfb_pressure *p, size_t bytes, const struct mfb_timer *t, struct mfb_err *err)
{
    memset(p, 0, sizeof *p);
    if (!mfb_target_code_generation())
        return mfb_fail(err, "--icache-pressure: generated code is written for x86-64 only");
    if (bytes < MFB_PRESSURE_LINE || bytes > MFB_PRESSURE_MAX || bytes % MFB_PRESSURE_LINE)
        return mfb_fail(err, "--icache-pressure: %zu is not a multiple of 64 from 64 to 1M", bytes);
    size_t lines = bytes / MFB_PRESSURE_LINE;
    /* written while writable, then executable and no longer writable (W^X) */
    void *code = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (code == MAP_FAILED)
        return mfb_fail(err, "--icache-pressure: cannot map %zu bytes: %s", bytes, strerror(errno));
    emit(code, lines);
    if (mprotect(code, bytes, PROT_READ | PROT_EXEC) != 0) {
        int e = errno;
        munmap(code, bytes);
        return mfb_fail(err, "--icache-pressure: cannot make the block executable: %s", strerror(e));
    }
    p->bytes = bytes;
    p->branches = lines; /* lines - 1 jumps and the ret */
    p->code = code;
    p->mapped = bytes;
    /* a data pointer to a function pointer: POSIX guarantees the conversion (dlsym relies on it) */
    memcpy(&p->fn, &code, sizeof p->fn);
    p->ns_per_run = time_block(p, t);
    return 0;
}

void mfb_pressure_free(struct mfb_pressure *p)
{
    if (p->code)
        munmap(p->code, p->mapped);
    memset(p, 0, sizeof *p);
}
