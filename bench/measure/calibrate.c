#include "measure/calibrate.h"

#include <math.h>
#include <stdlib.h>

#include "base/quantile.h"
#include "measure/passes.h"
#include "workload/table.h"

/* A batch should last at least this many timer overheads, so the timer's own cost and jitter
 * are under 0.1 % of it, and at least 20 us; and at most 1 ms, since longer batches collect timer
 * interrupts (a 250 Hz tick every 4 ms). */
#define TARGET_OVERHEADS 1000
#define TARGET_MIN_NS 20000.0
#define MAX_BATCH_NS 1e6
/* A batch should also span this many of the clock's steps, so that one step of quantization is
 * under 0.1 % of it. It binds only on a coarse clock: AArch64's cntvct_el0 runs at 1 GHz on Armv8.6
 * and later, but at 25-100 MHz on earlier cores (40 ns a step on Neoverse-N1 servers: 40 us), where
 * the payload below would leave the fastest batches a few hundred steps long. The step is the timer
 * block's tick_ns, or min_step_ns where reads step by more than one tick. */
#define TARGET_STEPS 1000
/* Pilot: the best of this many single passes per variant (the minimum rejects interrupts). */
#define PILOT_TRIES 5
/* Bytes a batch's calls process: at the 4-10 bytes/ns libc reaches on the fleet distributions,
 * 25-65 us (4.2 bytes/ns on the development VM: 62 us), over 1000 timer overheads of about 20 ns
 * and far below the 1 ms where timer interrupts start to land in batches. A payload fixed by the
 * distribution gives every study of it the same batch shape, whichever variants it holds and
 * however noisy a pilot would be (sized on a pilot, the passes flipped between 1, 2 and 4 from one
 * invocation to the next). */
#define TARGET_BATCH_BYTES (256u << 10)
/* Linearity and overhead: medians of this many tries. */
#define MEDIAN_TRIES 9
/* A later process of a study times the batch shape the first one chose, and checks its linearity
 * with the median of this many tries: a check, not a calibration. Nine tries per variant were about
 * 97 % of a later process's calibration (0.1 s of its 0.23 s fixed cost on the Intel VM, issue 53);
 * the median of three still keeps one disturbed try out of the figure. */
#define LATER_MEDIAN_TRIES 3
/* |linearity - 1| above this warns: per-call times would depend on the batch size. */
#define LINEARITY_TOLERANCE 0.05

/* --trace: a window of the trace is one timed pass (its passes are given: one), so its calls are
 * what each batch, its priming pass and its eviction go through. A window holds at most this many
 * bytes at the trace's mean call size, down to one call. Without it a trace of four 64 MiB calls
 * was replayed in windows of 512 calls, 32 GiB a pass, and 20 rounds did not end in 150 s. The
 * bound is on the mean, not on the largest call, so a trace of small calls with a rare large one
 * keeps full windows (its large calls only lengthen theirs); and it is known from the trace alone,
 * so every process of a study replays the same windows. */
#define TRACE_WINDOW_BYTES (16u << 20)

/* log2 of the calls of a trace's window: at most `most`, fewer for a trace of large calls. */
static uint8_t trace_window_log2(const struct mfb_run *r, uint8_t most)
{
    double mean = fmax(1, mfb_table_mean(&r->config.dist->size));
    uint8_t k = most;
    while (k > 0 && (double)(1u << k) * mean > TRACE_WINDOW_BYTES)
        k--;
    return k;
}

/* log2 of the largest power of two <= v (v >= 1): the long-call rule shortens the array to a
 * power of two so that every pass still visits it in a permuted order. */
static uint8_t log2_floor(double v)
{
    uint8_t k = 0;
    while (k < 31 && (double)(2u << k) <= v)
        k++;
    return k;
}

/* log2 of the smallest power of two >= v (0 for v <= 1). */
static uint8_t log2_ceil(double v)
{
    uint8_t k = 0;
    while (k < 31 && (double)(1u << k) < v)
        k++;
    return k;
}

static double pilot_ns_per_call(struct mfb_run *r, const struct mfb_variant *v, struct mfb_rng *rng)
{
    struct mfb_pass pass;
    uint64_t best = UINT64_MAX;
    for (int k = 0; k < PILOT_TRIES; k++) {
        struct mfb_batch_result res;
        mfb_passes_draw(rng, &pass, 1, r->runtime.ws->space.page_units);
        mfb_run_time_batch(r, v, 1, &pass, &res);
        if (res.ticks < best)
            best = res.ticks;
    }
    return (double)best * r->runtime.timer->ns_per_tick / mfb_calls_per_pass(&r->procedure.cal);
}

/* One batch shape for every variant: passes over the parameter array until the batch processes
 * TARGET_BATCH_BYTES (rounded up to a power of two passes), unless that pushes the slowest
 * variant past 1 ms; calls too long for that get shorter arrays. The pilots of the variants only
 * check the result: a batch shape chosen by the fastest variant of the study made a variant's
 * ratio depend on which other variants were in it (docs/validation.md). */
void mfb_calibrate_batch(struct mfb_run *r, struct mfb_rng *rng)
{
    struct mfb_calibration *c = &r->procedure.cal;
    c->calls_log2 = r->modes.trace ? trace_window_log2(r, r->runtime.ws->params_log2) : r->runtime.ws->params_log2;
    c->passes = 1;
    /* libc's pilot checks the batch time (warnings, the 1 ms cap); it is timed here only when
     * libc is not one of the study's variants. */
    const struct mfb_variant *libc = mfb_variant_find(r->config.study->func, "libc");
    double slow = 0, fast = NAN;
    for (int i = 0; i < r->config.nvars; i++) {
        double ns = pilot_ns_per_call(r, r->config.vars[i].v, rng);
        r->config.vars[i].pilot_ns_per_call = ns;
        slow = fmax(slow, ns);
        if (r->config.vars[i].v->origin == MFB_ORIGIN_LIBC && r->config.vars[i].v->func == libc->func)
            fast = ns;
    }
    if (isnan(fast))
        fast = pilot_ns_per_call(r, libc, rng);
    double mean_size = fmax(1, r->procedure.selfcheck.mean_expected);
    if (r->config.study->batch_passes > 0) {
        c->passes = (uint32_t)r->config.study->batch_passes;
        c->rule = MFB_BATCH_GIVEN;
    }
    double overhead_ns = r->runtime.timer->overhead_ticks * r->runtime.timer->ns_per_tick;
    double P = mfb_calls_per_pass(c);
    /* a coarse clock's step (cntvct under qemu: about 1 us) */
    double step_ns = fmax(r->runtime.timer->tick_ns, r->runtime.timer->min_step_ns);
    c->target_batch_ns = fmax(TARGET_OVERHEADS * overhead_ns, TARGET_MIN_NS);
    c->max_batch_ns = MAX_BATCH_NS;
    if (c->rule == MFB_BATCH_GIVEN) {
        /* as given */
    } else if (P * slow > c->max_batch_ns) {
        uint8_t k = log2_floor(fmax(1, floor(c->max_batch_ns / slow)));
        c->calls_log2 = k < c->calls_log2 ? k : c->calls_log2;
        c->rule = MFB_BATCH_LONG_CALLS;
    } else {
        uint32_t passes = 1u << log2_ceil((double)TARGET_BATCH_BYTES / (P * mean_size));
        uint32_t cap = (uint32_t)fmax(1, floor(c->max_batch_ns / (P * slow)));
        c->rule = MFB_BATCH_TARGET;
        if (passes > cap && cap * P * fast >= c->target_batch_ns / 5) {
            passes = cap;
            c->rule = MFB_BATCH_CAPPED;
        } else if (passes > cap) {
            c->rule = MFB_BATCH_FASTEST_WINS;
        }
        /* a coarse clock: double the passes until the fastest batch spans TARGET_STEPS steps,
         * within the cap (it never binds where one step is under 20 ns) */
        while (passes < cap && P * fast * passes < TARGET_STEPS * step_ns)
            passes = passes > cap / 2 ? cap : 2 * passes;
        c->passes = passes;
    }
    double calls = (double)mfb_calls_per_pass(c) * c->passes;
    c->single_call = calls == 1;
    c->fastest_batch_ns = fast * calls;
    c->slowest_batch_ns = slow * calls;
    if (c->single_call)
        mfb_warn(r->runtime.warn, MFB_W_LONG_CALLS, "calls are so long that every batch times a single call "
                 "(batch.single_call = true)");
    if (c->fastest_batch_ns < TARGET_STEPS * step_ns)
        mfb_warn(r->runtime.warn, MFB_W_BATCH, "libc's batch lasts %.1f us, %.0f steps of the %s clock (%.1f ns a step): "
                 "its quantization is over 0.1 %% of a batch", c->fastest_batch_ns / 1e3,
                 c->fastest_batch_ns / step_ns, r->runtime.timer->name, step_ns);
    if (c->fastest_batch_ns < c->target_batch_ns / 5)
        mfb_warn(r->runtime.warn, MFB_W_BATCH, "libc's batch lasts %.1f us, under %.0f timer overheads",
                 c->fastest_batch_ns / 1e3, c->fastest_batch_ns / overhead_ns);
    if (c->slowest_batch_ns > 2 * c->max_batch_ns)
        mfb_warn(r->runtime.warn, MFB_W_BATCH, "the slowest variant's batch lasts %.1f ms", c->slowest_batch_ns / 1e6);
}

/* Linearity: a batch of 2N passes must take as long as its two halves timed as batches of N
 * passes each (the same passes, so the drawn calls and shifts cancel); the median ratio of
 * MEDIAN_TRIES tries is recorded. A deviation means fixed per-batch costs (timer, loop set-up) or
 * cache effects that do not scale, and the per-call figure would depend on the batch size. */
int mfb_calibrate_linearity(struct mfb_run *r, struct mfb_rng *rng, struct mfb_err *err)
{
    uint32_t n = r->procedure.cal.passes;
    struct mfb_pass *passes = mfb_passes_new(rng, 2 * (size_t)n, r->runtime.ws->space.page_units);
    if (!passes)
        return mfb_fail(err, "out of memory drawing %u passes for the linearity check", 2 * n);
    r->procedure.cal.linearity_tolerance = LINEARITY_TOLERANCE;
    int tries = r->config.study->process_index > 0 ? LATER_MEDIAN_TRIES : MEDIAN_TRIES;
    for (int i = 0; i < r->config.nvars; i++) {
        double ratio[MEDIAN_TRIES];
        for (int k = 0; k < tries; k++) {
            struct mfb_batch_result a, b, both;
            mfb_run_time_batch(r, r->config.vars[i].v, n, passes, &a);
            mfb_run_time_batch(r, r->config.vars[i].v, n, passes + n, &b);
            mfb_run_time_batch(r, r->config.vars[i].v, 2 * (size_t)n, passes, &both);
            ratio[k] = (double)both.ticks / (double)(a.ticks + b.ticks);
        }
        double lin = mfb_quantile_median(ratio, (size_t)tries);
        r->config.vars[i].linearity = lin;
        /* a process of a --processes study records its figure and its parent judges the study's
         * median over processes (processes/merge.c): one process's median of three tries crossed
         * the tolerance, one way or the other, for a fifth of the variants of a default study on
         * the Intel VM (family 6 model 167), where the study's median stayed well inside it */
        if (fabs(lin - 1) > LINEARITY_TOLERANCE && r->config.study->process_index < 0)
            mfb_warn(r->runtime.warn, MFB_W_LINEARITY, "variant '%s': a batch twice as long took %.3f x twice the time "
                     "(tolerance %.0f %%)", r->config.vars[i].v->name, lin,
                     100 * LINEARITY_TOLERANCE);
    }
    free(passes);
    return 0;
}

/* The harness's own cost per call: the function's noop through the same loop with the run's batch
 * shape (median of MEDIAN_TRIES), measured even when noop is not a timed variant, so it is always
 * recorded. */
int mfb_calibrate_overhead(struct mfb_run *r, struct mfb_rng *rng, struct mfb_err *err)
{
    const struct mfb_variant *noop = mfb_variant_find(r->config.study->func, "noop");
    struct mfb_pass *passes = mfb_passes_new(rng, r->procedure.cal.passes, r->runtime.ws->space.page_units);
    if (!passes)
        return mfb_fail(err, "out of memory drawing %u passes for the overhead measurement", r->procedure.cal.passes);
    double t[MEDIAN_TRIES];
    for (int k = 0; k < MEDIAN_TRIES; k++) {
        struct mfb_batch_result res;
        mfb_run_time_batch(r, noop, r->procedure.cal.passes, passes, &res);
        t[k] = (double)res.ticks;
    }
    free(passes);
    r->runtime.harness.overhead_ns_per_call = mfb_quantile_median(t, MEDIAN_TRIES) * r->runtime.timer->ns_per_tick /
                                      ((double)mfb_calls_per_pass(&r->procedure.cal) * r->procedure.cal.passes);
    return 0;
}
