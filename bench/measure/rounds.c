#include "runner.h"

#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernels.h"
#include "order.h"
#include "params.h"
#include "rng.h"
#include "signtest.h"
#include "verify.h"

/* Sub-streams of the master seed: changing one use of randomness does not move the others. */
enum { STREAM_PARAMS = 1, STREAM_ORDER, STREAM_SHIFT, STREAM_VERIFY, STREAM_SELFCHECK, STREAM_CALIBRATE };

#define SELFCHECK_DRAWS (1u << 20)

static struct mfb_call *params_of(const struct mfb_run *r)
{
    return (struct mfb_call *)(r->ws->arena + r->ws->params_off);
}

static int selfcheck(struct mfb_run *r, struct mfb_err *err)
{
    struct mfb_sampler s;
    if (mfb_sampler_init(&s, r->dist, r->ws, r->cfg->align_mode, mfb_seed_derive(r->seed, STREAM_SELFCHECK), err) < 0)
        return -1;
    struct mfb_selfcheck_acc acc;
    if (mfb_selfcheck_begin(&acc, r->dist, r->cfg->align_mode, r->ws->roles) < 0)
        return mfb_fail(err, "out of memory");
    enum { CHUNK = 4096 };
    struct mfb_call *buf = malloc(CHUNK * sizeof *buf);
    for (uint32_t done = 0; done < SELFCHECK_DRAWS; done += CHUNK) {
        mfb_sampler_fill(&s, buf, CHUNK);
        mfb_selfcheck_add(&acc, buf, CHUNK);
    }
    free(buf);
    mfb_sampler_free(&s);
    return mfb_selfcheck_finish(&acc, &r->selfcheck, err);
}

static void time_batch(struct mfb_run *r, const struct mfb_variant *v, size_t n, size_t npasses,
                       const struct mfb_pass *passes, struct mfb_batch_result *res)
{
    uint32_t mask = (n & (n - 1)) == 0 ? (uint32_t)n - 1 : ~0u;
    struct mfb_batch b = {.variant = v, .base = r->ws->arena, .calls = params_of(r), .n = n, .mask = mask,
                          .passes = passes, .reps = npasses, .timer = r->timer};
    mfb_run_batch(&b, res);
}

/* Each pass: a random page shift for large calls and a random visiting order (odd stride, offset). */
static void draw_passes(const struct mfb_run *r, struct mfb_rng *rng, struct mfb_pass *p, size_t n)
{
    const struct mfb_window *large = &r->ws->large;
    uint64_t slots = large->used ? (large->size - large->slice) / 4096 + 1 : 1;
    for (size_t i = 0; i < n; i++) {
        p[i].shift = large->used ? 4096 * mfb_rng_below(rng, slots) : 0;
        uint64_t x = mfb_rng_next(rng);
        p[i].stride = (uint32_t)x | 1u;
        p[i].offset = (uint32_t)(x >> 32);
    }
}

static struct mfb_pass *new_passes(const struct mfb_run *r, struct mfb_rng *rng, size_t n)
{
    struct mfb_pass *p = malloc(n * sizeof *p);
    if (p)
        draw_passes(r, rng, p, n);
    return p;
}

/* One batch size for every variant (nanobench's rule for paired comparisons): passes over the
 * parameter array until the fastest variant's batch lasts >= 1000 timer overheads (and >= 20 us),
 * unless that pushes the slowest variant past 1 ms; calls too long for that get shorter arrays. */
static uint32_t pow2_floor(uint32_t v)
{
    uint32_t p = 1;
    while (p * 2 <= v)
        p *= 2;
    return p;
}

static void calibrate(struct mfb_run *r, struct mfb_rng *rng)
{
    struct mfb_pass pass;
    uint32_t P = r->ws->params_cap;
    double fast = INFINITY, slow = 0;
    for (int i = 0; i < r->nvars; i++) {
        uint64_t best = UINT64_MAX;
        for (int k = 0; k < 5; k++) {
            struct mfb_batch_result res;
            draw_passes(r, rng, &pass, 1);
            time_batch(r, r->vars[i].v, P, 1, &pass, &res);
            if (res.ticks < best)
                best = res.ticks;
        }
        double ns = (double)best * r->timer->ns_per_tick / P;
        r->vars[i].pilot_ns_per_call = ns;
        if (!r->vars[i].v->noop || r->nvars == 1)
            fast = fmin(fast, ns);
        slow = fmax(slow, ns);
    }
    if (!isfinite(fast))
        fast = slow;
    double overhead_ns = r->timer->overhead_ticks * r->timer->ns_per_tick;
    r->target_batch_ns = fmax(1000 * overhead_ns, 20000);
    r->max_batch_ns = 1e6;
    r->calls_per_pass = P;
    r->passes = 1;
    if (P * slow > r->max_batch_ns) {
        /* a power of two keeps the per-pass permutation */
        uint32_t n = pow2_floor((uint32_t)fmax(1, floor(r->max_batch_ns / slow)));
        r->calls_per_pass = n < P ? n : P;
        r->batch_rule = "long calls: the slowest variant's pass over the parameter array exceeds 1 ms, so "
                        "batches hold fewer calls";
    } else {
        double need = ceil(r->target_batch_ns / (P * fast));
        uint32_t passes = (uint32_t)fmax(1, need);
        uint32_t cap = (uint32_t)fmax(1, floor(r->max_batch_ns / (P * slow)));
        if (passes > cap && cap * P * fast >= r->target_batch_ns / 5) {
            passes = cap;
            r->batch_rule = "capped so the slowest variant's batch stays under 1 ms; the fastest variant's batch "
                            "is below its target";
        } else if (passes > cap) {
            r->batch_rule = "the fastest variant's target wins: the slowest variant's batch exceeds 1 ms";
        } else {
            r->batch_rule = "fastest variant's batch >= max(1000 x timer overhead, 20 us); slowest under 1 ms";
        }
        r->passes = passes;
    }
    r->single_call = r->calls_per_pass == 1 && r->passes == 1;
    if (r->single_call)
        mfb_warn(r->warn, "long_calls", "calls are so long that every batch times a single call: samples are "
                 "single-call times (batch.single_call = true)");
    r->fastest_batch_ns = fast * r->calls_per_pass * r->passes;
    r->slowest_batch_ns = slow * r->calls_per_pass * r->passes;
    if (r->fastest_batch_ns < r->target_batch_ns / 5)
        mfb_warn(r->warn, "batch", "the fastest variant's batch lasts %.1f us, under %.0f timer overheads",
                 r->fastest_batch_ns / 1e3, r->fastest_batch_ns / overhead_ns);
    if (r->slowest_batch_ns > 2 * r->max_batch_ns)
        mfb_warn(r->warn, "batch", "the slowest variant's batch lasts %.1f ms: batches that long collect "
                 "timer interrupts", r->slowest_batch_ns / 1e6);
}

/* Linearity: a batch of 2N passes must take as long as its two halves timed as batches of N
 * passes each (the same passes, so the drawn calls and shifts cancel); the median ratio of 9 tries
 * is recorded. A deviation means fixed per-batch costs (timer, loop set-up) or cache effects that
 * do not scale, and the per-call figure would depend on the batch size. */
static void check_linearity(struct mfb_run *r, struct mfb_rng *rng)
{
    enum { TRIES = 9 };
    uint32_t n = r->passes;
    struct mfb_pass *passes = new_passes(r, rng, 2 * (size_t)n);
    r->linearity_tolerance = 0.05;
    for (int i = 0; i < r->nvars; i++) {
        double ratio[TRIES];
        for (int k = 0; k < TRIES; k++) {
            struct mfb_batch_result a, b, both;
            time_batch(r, r->vars[i].v, r->calls_per_pass, n, passes, &a);
            time_batch(r, r->vars[i].v, r->calls_per_pass, n, passes + n, &b);
            time_batch(r, r->vars[i].v, r->calls_per_pass, 2 * (size_t)n, passes, &both);
            ratio[k] = (double)both.ticks / (double)(a.ticks + b.ticks);
        }
        double lin = mfb_median(ratio, TRIES);
        r->vars[i].linearity = lin;
        if (fabs(lin - 1) > r->linearity_tolerance)
            mfb_warn(r->warn, "linearity", "variant '%s': a batch twice as long took %.3f x twice the time "
                     "(tolerance %.0f %%): per-call times depend on the batch size here", r->vars[i].v->name, lin,
                     100 * r->linearity_tolerance);
    }
    free(passes);
}

/* The harness's own cost per call: the function's noop through the same loop with the run's batch
 * shape (median of 9), measured even when noop is not a timed variant, so it is always recorded. */
static void measure_overhead(struct mfb_run *r, struct mfb_rng *rng)
{
    const struct mfb_variant *noop = mfb_variant_find(r->cfg->func, "noop");
    struct mfb_pass *passes = new_passes(r, rng, r->passes);
    uint64_t t[9];
    for (int k = 0; k < 9; k++) {
        struct mfb_batch_result res;
        time_batch(r, noop, r->calls_per_pass, r->passes, passes, &res);
        t[k] = res.ticks;
    }
    free(passes);
    mfb_sort_u64(t, 9);
    r->overhead_ns_per_call = (double)t[4] * r->timer->ns_per_tick / ((double)r->calls_per_pass * r->passes);
}

int mfb_run_prepare(struct mfb_run *r, struct mfb_err *err)
{
    uint64_t t0 = mfb_mono_ns();
    if (selfcheck(r, err) < 0)
        return -1;
    struct mfb_sampler s;
    if (mfb_sampler_init(&s, r->dist, r->ws, r->cfg->align_mode, mfb_seed_derive(r->seed, STREAM_PARAMS), err) < 0)
        return -1;
    mfb_sampler_fill(&s, params_of(r), r->ws->params_cap);
    mfb_sampler_free(&s);
    struct mfb_verify ver;
    if (mfb_verify_init(&ver, mfb_table_max(&r->dist->size), mfb_seed_derive(r->seed, STREAM_VERIFY), err) < 0)
        return -1;
    for (int i = 0; i < r->nvars; i++) {
        uint64_t before = ver.checked;
        if (mfb_verify_calls(&ver, r->vars[i].v, params_of(r), r->ws->params_cap, err) < 0) {
            mfb_verify_free(&ver);
            return -1;
        }
        r->vars[i].verified_calls = ver.checked - before;
        mfb_variant_codeinfo(r->vars[i].v, &r->vars[i].code);
    }
    mfb_verify_free(&ver);
    struct mfb_rng rng;
    mfb_rng_seed(&rng, mfb_seed_derive(r->seed, STREAM_CALIBRATE));
    calibrate(r, &rng);
    check_linearity(r, &rng);
    r->prepare_s = (double)(mfb_mono_ns() - t0) / 1e9;
    return 0;
}

static void progress(const struct mfb_run *r, double elapsed, bool final)
{
    if (r->cfg->quiet || !isatty(STDERR_FILENO))
        return;
    if (r->cfg->time_s > 0)
        fprintf(stderr, "\r[%5.1f / %.0f s] round %u", elapsed, r->cfg->time_s, r->rounds);
    else
        fprintf(stderr, "\r[%5.1f s] round %u / %ld", elapsed, r->rounds, r->cfg->rounds + (long)r->warmup_rounds);
    if (final)
        fprintf(stderr, "\n");
    fflush(stderr);
}

/* Warm-up detection: warm-up rounds replay the first parameter array, so their total time is
 * comparable from round to round; warm-up ends when the median of the last WINDOW totals is within
 * SETTLE of the median of the WINDOW before (no trend left), or at the cap. */
enum { WARM_WINDOW = 5, WARM_MAX_ROUNDS = 2000 };
#define WARM_SETTLE 0.01

static bool warmup_settled(struct mfb_run *r, const double *totals, size_t n)
{
    if (n < 2 * WARM_WINDOW)
        return false;
    double last_w[WARM_WINDOW], prev_w[WARM_WINDOW];
    for (int i = 0; i < WARM_WINDOW; i++) {
        last_w[i] = totals[n - WARM_WINDOW + i];
        prev_w[i] = totals[n - 2 * WARM_WINDOW + i];
    }
    double last = mfb_median(last_w, WARM_WINDOW), prev = mfb_median(prev_w, WARM_WINDOW);
    r->warmup_change = last / prev - 1;
    return fabs(r->warmup_change) <= WARM_SETTLE;
}

/* --target-ci: is every comparison's 95 % sign-test interval of the paired ratio within +-P %?
 * Reads the measured rounds' samples (each round is nvars consecutive samples). */
static bool target_reached(struct mfb_run *r, double *d)
{
    size_t nv = (size_t)r->nvars;
    bool all = true;
    for (int v = 1; v < r->nvars; v++) {
        if (r->vars[v].v->noop)
            continue;
        size_t m = 0;
        for (size_t i = (size_t)r->warmup_rounds * nv; i + nv <= r->samples.n; i += nv) {
            double t0 = 0, tv = 0;
            for (size_t j = 0; j < nv; j++) {
                const struct mfb_sample *x = &r->samples.s[i + j];
                if (x->variant == 0)
                    t0 = (double)x->ticks;
                else if (x->variant == v)
                    tv = (double)x->ticks;
            }
            if (t0 > 0 && tv > 0)
                d[m++] = log(tv / t0);
        }
        double lo, med, hi;
        if (mfb_sign_test_interval(d, m, 0.95, &lo, &med, &hi) < 0) {
            r->target_widths[v] = INFINITY;
            all = false;
            continue;
        }
        double w = fmax(exp(hi - med) - 1, 1 - exp(lo - med));
        r->target_widths[v] = w;
        if (w * 100 > r->cfg->target_ci)
            all = false;
    }
    return all;
}

static void shuffle_or_reverse(struct mfb_run *r, struct mfb_rng *order_rng, int *order)
{
    /* Balanced order: a fresh random permutation on even rounds, its reverse on odd ones, so
     * over each pair every variant's mean position is the same (ABBA for two variants). */
    if (r->rounds % 2 == 0) {
        for (int i = r->nvars - 1; i > 0; i--) {
            int j = (int)mfb_rng_below(order_rng, (uint64_t)i + 1);
            int t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
    } else {
        for (int i = 0, j = r->nvars - 1; i < j; i++, j--) {
            int t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
    }
}

int mfb_run_rounds(struct mfb_run *r, volatile sig_atomic_t *stop, struct mfb_err *err)
{
    struct mfb_sampler s;
    /* Round 0 replays the verified parameters; later rounds continue the same stream. */
    if (mfb_sampler_init(&s, r->dist, r->ws, r->cfg->align_mode, mfb_seed_derive(r->seed, STREAM_PARAMS), err) < 0)
        return -1;
    struct mfb_call *params = params_of(r);
    mfb_sampler_fill(&s, params, r->ws->params_cap);
    uint64_t pass_bytes = 0; /* a pass may use only the first calls_per_pass records */
    for (uint32_t i = 0; i < r->calls_per_pass; i++)
        pass_bytes += params[i].size & MFB_SIZE_MASK;
    struct mfb_rng order_rng, shift_rng;
    mfb_rng_seed(&order_rng, mfb_seed_derive(r->seed, STREAM_ORDER));
    mfb_rng_seed(&shift_rng, mfb_seed_derive(r->seed, STREAM_SHIFT));
    struct mfb_pass *passes = calloc(r->passes, sizeof *passes);
    double *totals = calloc(WARM_MAX_ROUNDS, sizeof *totals);
    double *scratch = NULL;
    size_t scratch_cap = 0;
    int order[MFB_MAX_VARIANTS];
    for (int i = 0; i < r->nvars; i++)
        order[i] = i;
    bool auto_warm = r->cfg->warmup_rounds < 0;
    bool warming = auto_warm || r->cfg->warmup_rounds > 0;
    r->warmup_mode = auto_warm ? "detected" : "fixed";
    r->warmup_rounds = 0;
    /* The warm-up may take a tenth of the time budget (at least 0.5 s) before it is cut. */
    double warm_cap_s = r->cfg->time_s > 0 ? fmax(0.5, r->cfg->time_s / 10) : 2.0;
    uint64_t start = mfb_mono_ns(), first_tick = 0, last_progress = start, last_check = start;
    bool have_first = false;
    double ns_per_tick = r->timer->ns_per_tick;
    for (;;) {
        if (r->rounds > 0 && !warming)
            pass_bytes = mfb_sampler_fill(&s, params, r->calls_per_pass);
        shuffle_or_reverse(r, &order_rng, order);
        double total = 0;
        for (int pos = 0; pos < r->nvars; pos++) {
            draw_passes(r, &shift_rng, passes, r->passes);
            struct mfb_batch_result res;
            time_batch(r, r->vars[order[pos]].v, r->calls_per_pass, r->passes, passes, &res);
            if (!have_first) {
                first_tick = res.begin;
                have_first = true;
            }
            total += (double)res.ticks;
            struct mfb_sample smp = {.variant = (uint16_t)order[pos], .position = (uint16_t)pos, .round = r->rounds,
                                     .calls = r->calls_per_pass * r->passes, .warmup = warming,
                                     .cpu = (int16_t)res.cpu, .bytes = pass_bytes * r->passes, .ticks = res.ticks,
                                     .ns = (double)res.ticks * ns_per_tick,
                                     .t_start_ns = (uint64_t)((double)(res.begin - first_tick) * ns_per_tick)};
            if (res.cpu < 0)
                smp.cpu = (int16_t)sched_getcpu();
            if (mfb_samples_push(&r->samples, &smp) < 0) {
                free(passes);
                free(totals);
                free(scratch);
                mfb_sampler_free(&s);
                return mfb_fail(err, "out of memory storing samples");
            }
        }
        r->rounds++;
        uint64_t now = mfb_mono_ns();
        double elapsed = (double)(now - start) / 1e9;
        if (warming) {
            totals[r->rounds - 1] = total;
            bool done;
            if (auto_warm) {
                r->warmup_settled = warmup_settled(r, totals, r->rounds);
                done = r->warmup_settled || r->rounds >= WARM_MAX_ROUNDS || elapsed >= warm_cap_s;
                if (done && !r->warmup_settled)
                    mfb_warn(r->warn, "warmup", "round times had not settled after %u warm-up rounds (%.1f s; last "
                             "change %+.2f %%): the machine may be drifting", r->rounds, elapsed,
                             100 * r->warmup_change);
            } else {
                done = r->rounds >= (uint32_t)r->cfg->warmup_rounds;
            }
            if (done) {
                warming = false;
                r->warmup_rounds = r->rounds;
                r->warmup_s = elapsed;
            }
        }
        uint32_t measured = r->rounds - r->warmup_rounds;
        if (!warming && r->cfg->target_ci > 0 && measured >= 6 && (now - last_check > 250000000u || *stop)) {
            last_check = now;
            if (scratch_cap < measured) {
                scratch_cap = 2 * (size_t)measured;
                free(scratch);
                scratch = malloc(scratch_cap * sizeof *scratch);
            }
            r->target_reached = target_reached(r, scratch);
        }
        bool enough = !warming && measured >= 2;
        if (*stop) {
            r->stop_reason = "interrupted";
        } else if (r->target_reached) {
            r->stop_reason = "target_ci";
        } else if (r->cfg->rounds && !warming && measured >= (uint32_t)r->cfg->rounds) {
            r->stop_reason = "rounds";
        } else if (r->cfg->time_s > 0 && elapsed >= r->cfg->time_s && enough) {
            r->stop_reason = "time";
        }
        if (now - last_progress > 500000000u) {
            progress(r, elapsed, false);
            last_progress = now;
        }
        if (r->stop_reason) {
            if (warming) { /* interrupted during the warm-up */
                r->warmup_rounds = r->rounds;
                r->warmup_s = elapsed;
            }
            if (r->cfg->target_ci > 0 && !r->target_reached && measured >= 6) {
                if (scratch_cap < measured) {
                    free(scratch);
                    scratch = malloc((size_t)measured * sizeof *scratch);
                }
                target_reached(r, scratch);
                mfb_warn(r->warn, "target_ci", "stopped by %s before every interval reached +-%.2f %%",
                         r->stop_reason, r->cfg->target_ci);
            }
            r->rounds_s = elapsed;
            progress(r, elapsed, true);
            /* Measured after the rounds, in the state the rounds ran in (warm caches and clocks). */
            struct mfb_rng rng;
            mfb_rng_seed(&rng, mfb_seed_derive(r->seed, STREAM_CALIBRATE) + 1);
            measure_overhead(r, &rng);
            break;
        }
    }
    free(passes);
    free(totals);
    free(scratch);
    mfb_sampler_free(&s);
    return 0;
}

void mfb_run_free(struct mfb_run *r)
{
    mfb_samples_free(&r->samples);
}
