#include "runner.h"

#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernels.h"
#include "params.h"
#include "rng.h"
#include "verify.h"

/* Sub-streams of the master seed: changing one use of randomness does not move the others. */
enum { STREAM_PARAMS = 1, STREAM_ORDER, STREAM_SHIFT, STREAM_VERIFY, STREAM_SELFCHECK };

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

static void time_batch(struct mfb_run *r, const struct mfb_variant *v, size_t n, size_t passes,
                       const uint64_t *shifts, struct mfb_batch_result *res)
{
    struct mfb_batch b = {.variant = v, .base = r->ws->arena, .calls = params_of(r), .n = n,
                          .shifts = shifts, .reps = passes, .timer = r->timer};
    mfb_run_batch(&b, res);
}

/* One batch size for every variant (nanobench's rule for paired comparisons): passes over the
 * parameter array until the fastest variant's batch lasts >= 1000 timer overheads (and >= 20 us),
 * unless that pushes the slowest variant past 1 ms; calls too long for that get shorter arrays. */
static void calibrate(struct mfb_run *r, const uint64_t *zero_shifts)
{
    uint32_t P = r->ws->params_cap;
    double fast = INFINITY, slow = 0;
    for (int i = 0; i < r->nvars; i++) {
        uint64_t best = UINT64_MAX;
        for (int k = 0; k < 5; k++) {
            struct mfb_batch_result res;
            time_batch(r, r->vars[i].v, P, 1, zero_shifts, &res);
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
        uint32_t n = (uint32_t)fmax(1, floor(r->max_batch_ns / slow));
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
    r->fastest_batch_ns = fast * r->calls_per_pass * r->passes;
    r->slowest_batch_ns = slow * r->calls_per_pass * r->passes;
    if (r->fastest_batch_ns < r->target_batch_ns / 5)
        mfb_warn(r->warn, "batch", "the fastest variant's batch lasts %.1f us, under %.0f timer overheads",
                 r->fastest_batch_ns / 1e3, r->fastest_batch_ns / overhead_ns);
    if (r->slowest_batch_ns > 2 * r->max_batch_ns)
        mfb_warn(r->warn, "batch", "the slowest variant's batch lasts %.1f ms: batches that long collect "
                 "timer interrupts", r->slowest_batch_ns / 1e6);
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
    uint64_t zero = 0;
    calibrate(r, &zero);
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
        fprintf(stderr, "\r[%5.1f s] round %u / %ld", elapsed, r->rounds, r->cfg->rounds);
    if (final)
        fprintf(stderr, "\n");
    fflush(stderr);
}

int mfb_run_rounds(struct mfb_run *r, volatile sig_atomic_t *stop, struct mfb_err *err)
{
    struct mfb_sampler s;
    /* Round 0 replays the verified parameters; later rounds continue the same stream. */
    if (mfb_sampler_init(&s, r->dist, r->ws, r->cfg->align_mode, mfb_seed_derive(r->seed, STREAM_PARAMS), err) < 0)
        return -1;
    struct mfb_call *params = params_of(r);
    uint64_t pass_bytes = mfb_sampler_fill(&s, params, r->ws->params_cap);
    if (r->calls_per_pass < r->ws->params_cap) {
        pass_bytes = 0;
        for (uint32_t i = 0; i < r->calls_per_pass; i++)
            pass_bytes += params[i].size & MFB_SIZE_MASK;
    }
    struct mfb_rng order_rng, shift_rng;
    mfb_rng_seed(&order_rng, mfb_seed_derive(r->seed, STREAM_ORDER));
    mfb_rng_seed(&shift_rng, mfb_seed_derive(r->seed, STREAM_SHIFT));
    uint64_t *shifts = calloc(r->passes, sizeof *shifts);
    int order[MFB_MAX_VARIANTS];
    for (int i = 0; i < r->nvars; i++)
        order[i] = i;
    const struct mfb_window *large = &r->ws->large;
    uint64_t shift_slots = large->used ? (large->size - large->slice) / 4096 + 1 : 1;
    r->warmup_rounds = (uint32_t)r->cfg->warmup_rounds;
    uint64_t start = mfb_mono_ns(), first_tick = 0, last_progress = start;
    bool have_first = false;
    double ns_per_tick = r->timer->ns_per_tick;
    for (;;) {
        if (r->rounds > 0)
            pass_bytes = mfb_sampler_fill(&s, params, r->calls_per_pass);
        /* Balanced order: a fresh random permutation on even rounds, its reverse on odd ones, so
         * over each pair every variant's mean position is the same (ABBA for two variants). */
        if (r->rounds % 2 == 0) {
            for (int i = r->nvars - 1; i > 0; i--) {
                int j = (int)mfb_rng_below(&order_rng, (uint64_t)i + 1);
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
        for (int pos = 0; pos < r->nvars; pos++) {
            for (uint32_t p = 0; p < r->passes; p++)
                shifts[p] = large->used ? 4096 * mfb_rng_below(&shift_rng, shift_slots) : 0;
            struct mfb_batch_result res;
            time_batch(r, r->vars[order[pos]].v, r->calls_per_pass, r->passes, shifts, &res);
            if (!have_first) {
                first_tick = res.begin;
                have_first = true;
            }
            struct mfb_sample smp = {.variant = (uint16_t)order[pos], .position = (uint16_t)pos, .round = r->rounds,
                                     .calls = r->calls_per_pass * r->passes, .warmup = r->rounds < r->warmup_rounds,
                                     .cpu = (int16_t)res.cpu, .bytes = pass_bytes * r->passes, .ticks = res.ticks,
                                     .t_start_ns = (uint64_t)((double)(res.begin - first_tick) * ns_per_tick)};
            if (res.cpu < 0)
                smp.cpu = (int16_t)sched_getcpu();
            if (mfb_samples_push(&r->samples, &smp) < 0) {
                free(shifts);
                mfb_sampler_free(&s);
                return mfb_fail(err, "out of memory storing samples");
            }
        }
        r->rounds++;
        uint64_t now = mfb_mono_ns();
        double elapsed = (double)(now - start) / 1e9;
        bool enough = r->rounds >= r->warmup_rounds + 2;
        if (*stop) {
            r->stop_reason = "interrupted";
        } else if (r->cfg->rounds && r->rounds >= (uint32_t)r->cfg->rounds) {
            r->stop_reason = "rounds";
        } else if (r->cfg->time_s > 0 && elapsed >= r->cfg->time_s && enough) {
            r->stop_reason = "time";
        }
        if (now - last_progress > 500000000u) {
            progress(r, elapsed, false);
            last_progress = now;
        }
        if (r->stop_reason) {
            r->rounds_s = elapsed;
            progress(r, elapsed, true);
            break;
        }
    }
    free(shifts);
    mfb_sampler_free(&s);
    return 0;
}

void mfb_run_free(struct mfb_run *r)
{
    mfb_samples_free(&r->samples);
}
