/* mfb_run_rounds: interleaved rounds, each timing every variant once on the same calls, until a
 * stop rule fires; then the harness overhead, in the state the rounds left the machine in. */
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/seeds.h"
#include "measure/calibrate.h"
#include "measure/passes.h"
#include "measure/run.h"
#include "measure/stoprule.h"
#include "measure/warmup.h"
#include "workload/sampler.h"
#include "workload/table.h"

/* --target-ci is checked at most this often (the check sorts every round's ratio). */
#define TARGET_CHECK_NS 250000000u
/* Progress on a terminal at most this often. */
#define PROGRESS_NS 500000000u
/* The sign-test interval needs this many rounds before it can be narrower than everything. */
#define TARGET_MIN_ROUNDS 6

/* --threads N > 1: the team the rounds are timed with; NULL: one thread. */
static struct mfb_team *team_of(const struct mfb_run *r)
{
    return r->runtime.team && r->runtime.team->n > 1 ? r->runtime.team : NULL;
}

struct rounds {
    struct mfb_sampler sampler;
    struct mfb_sampler *class_samplers; /* --by-class: one per class */
    struct mfb_call *first;             /* --by-class: the first array, replayed by warm-up rounds */
    struct mfb_call *params;
    uint64_t pass_bytes;            /* bytes of the calls one pass makes */
    struct mfb_rng order_rng, shift_rng;
    struct mfb_pass *passes;
    int order[MFB_MAX_VARIANTS];
    bool warming;
    struct mfb_warmup_rule *warm;
    struct mfb_stoprule target;
    uint64_t start_ns, last_progress_ns, last_check_ns, first_tick;
    bool have_first;
    volatile sig_atomic_t *stop; /* set by SIGINT/SIGTERM/SIGHUP (thread 0's; never set for the others) */
};

/* time_round's result when a stop request came mid-round: the round is left at the next batch's
 * boundary, so a stop never waits for a long round (a trace, many classes, large calls), and its
 * batches are dropped, so the file holds whole rounds only (every variant on the same calls). */
#define ROUND_ABANDONED 1

static double elapsed_s(const struct rounds *st, uint64_t now)
{
    return (double)(now - st->start_ns) / 1e9;
}

static uint64_t pass_bytes(const struct mfb_call *calls, uint32_t n)
{
    uint64_t b = 0;
    for (uint32_t i = 0; i < n; i++)
        b += calls[i].size & MFB_SIZE_MASK;
    return b;
}

static void release(struct rounds *st, int nclasses)
{
    for (int k = 0; st->class_samplers && k < nclasses; k++)
        mfb_sampler_free(&st->class_samplers[k]);
    free(st->class_samplers);
    free(st->first);
    free(st->passes);
    free(st->warm);
    mfb_stoprule_free(&st->target);
    mfb_sampler_free(&st->sampler);
}

/* --trace: the next window of the trace into the parameter array, each call placed with its own
 * size and alignments (the sampler's placement rules); returns the bytes of the window. */
static uint64_t trace_fill(struct mfb_run *r, struct rounds *st, size_t n)
{
    struct mfb_trace *t = r->modes.trace;
    const struct mfb_dist *d = r->config.dist;
    uint64_t bytes = 0;
    for (size_t i = 0; i < n; i++) {
        const struct mfb_trace_call *c = &t->c[t->next];
        t->next = t->next + 1 == t->n ? 0 : t->next + 1;
        struct mfb_shape shape = {.src_align = d->src_align.n ? mfb_table_find(&d->src_align, c->src_align) : MFB_SHAPE_DRAW,
                                  .dst_align = d->dst_align.n ? mfb_table_find(&d->dst_align, c->dst_align) : MFB_SHAPE_DRAW,
                                  .overlap = MFB_SHAPE_DRAW, .mismatch = MFB_SHAPE_DRAW};
        mfb_sampler_place(&st->sampler, c->size, &shape, &st->params[i]);
        bytes += c->size;
    }
    /* the windows of the study's other processes: this one replays every K-th (see begin) */
    long k = r->config.study->processes;
    if (k > 1 && r->config.study->process_index >= 0)
        t->next = (size_t)((t->next + (unsigned long long)(k - 1) * n) % t->n);
    return bytes;
}

/* --trace: the timed passes visit the calls in the order of the trace. */
static void in_order(struct mfb_pass *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        p[i].stride = 1;
        p[i].offset = 0;
    }
}

/* --by-class: a sampler per class (each its own stream, derived from the params stream), and a
 * copy of the first array: class batches overwrite the parameter array, and warm-up rounds
 * replay the first one. */
static int begin_classes(struct mfb_run *r, struct rounds *st, struct mfb_err *err)
{
    const struct mfb_classes *cl = &r->modes.by_class.classes;
    if (!r->modes.by_class.on)
        return 0;
    size_t n = mfb_calls_per_pass(&r->procedure.cal);
    st->class_samplers = calloc((size_t)cl->n + 1, sizeof *st->class_samplers);
    st->first = malloc(n * sizeof *st->first);
    if (!st->class_samplers || !st->first) {
        release(st, 0);
        return mfb_fail(err, "out of memory preparing the size classes");
    }
    memcpy(st->first, st->params, n * sizeof *st->first);
    for (int k = 0; k < cl->n; k++)
        if (mfb_sampler_init(&st->class_samplers[k], &cl->c[k].dist, &r->runtime.ws->space, r->config.study->align_mode,
                             mfb_class_seed(r->config.seed, MFB_STREAM_PARAMS, k + 1), err) < 0) {
            release(st, k + 1);
            return -1;
        }
    return 0;
}

static int begin(struct mfb_run *r, struct rounds *st, struct mfb_err *err)
{
    *st = (struct rounds){0};
    /* Round 0 replays the verified parameters (the same stream from its start); later rounds
     * continue the stream. */
    if (mfb_sampler_init(&st->sampler, r->config.dist, &r->runtime.ws->space, r->config.study->align_mode,
                         mfb_stream_seed(r->config.seed, MFB_STREAM_PARAMS), err) < 0)
        return -1;
    st->params = mfb_run_params(r);
    if (r->modes.trace) {
        /* Process p of a study of K replays windows p, p + K, p + 2K, ... (mod K: --target-ci
         * may run more): each process samples the whole trace, start-up and work alike, so the
         * processes are alike and together replay all of it. Started each at the beginning, a
         * process that times fewer windows than the trace holds would replay only its start.
         * Round 0 and the warm-up replay the process's first window. */
        long k = r->config.study->processes, p = r->config.study->process_index;
        size_t n = mfb_calls_per_pass(&r->procedure.cal);
        r->modes.trace->next = p > 0 && k > 1 ? (size_t)((unsigned long long)(p % k) * n % r->modes.trace->n) : 0;
        trace_fill(r, st, n);
    } else {
        mfb_sampler_fill(&st->sampler, st->params, mfb_workset_params(r->runtime.ws));
    }
    /* A pass may use only the first calls_per_pass records. */
    st->pass_bytes = pass_bytes(st->params, mfb_calls_per_pass(&r->procedure.cal));
    /* --threads: one order for every thread (the team's seed), so all time the same variant */
    mfb_rng_seed(&st->order_rng, mfb_stream_seed(team_of(r) ? team_of(r)->seed : r->config.seed, MFB_STREAM_ORDER));
    mfb_rng_seed(&st->shift_rng, mfb_stream_seed(r->config.seed, MFB_STREAM_SHIFT));
    /* Room for the most passes any batch takes (a size class may take more than the whole), plus
     * the priming pass. */
    uint32_t most = r->procedure.cal.passes;
    for (int k = 0; r->modes.by_class.on && k < r->modes.by_class.classes.n; k++)
        most = r->modes.by_class.shape[k].passes > most ? r->modes.by_class.shape[k].passes : most;
    st->passes = calloc((size_t)most + 1, sizeof *st->passes);
    st->warm = malloc(sizeof *st->warm);
    if (!st->passes || !st->warm) {
        release(st, 0);
        return mfb_fail(err, "out of memory preparing the rounds");
    }
    if (begin_classes(r, st, err) < 0)
        return -1;
    for (int i = 0; i < r->config.nvars; i++)
        st->order[i] = i;
    st->warming = mfb_warmup_begin(st->warm, &r->procedure.warmup, r->config.study);
    st->start_ns = st->last_progress_ns = st->last_check_ns = mfb_mono_ns();
    if (team_of(r) && r->runtime.thread == 0) /* every thread's batch times count from one origin */
        team_of(r)->origin_tick = mfb_timer_begin(r->runtime.timer);
    return 0;
}

/* Balanced order: a fresh random permutation on even rounds, its reverse on odd ones, so over
 * each pair every variant's mean position is the same (ABBA for two variants). */
static void next_order(struct rounds *st, uint32_t round, int n)
{
    int *o = st->order;
    if (round % 2 == 0) {
        for (int i = n - 1; i > 0; i--) {
            int j = (int)mfb_rng_below(&st->order_rng, (uint64_t)i + 1);
            int t = o[i];
            o[i] = o[j];
            o[j] = t;
        }
    } else {
        for (int i = 0, j = n - 1; i < j; i++, j--) {
            int t = o[i];
            o[i] = o[j];
            o[j] = t;
        }
    }
}

/* One batch's place in a round: its variant and position, its size class and shape. */
struct slot {
    int vi, pos, cls;
    uint8_t calls_log2;
    uint32_t passes;
    uint64_t pass_bytes;
};

/* One timed batch of the slot's variant on the calls now in the parameter array, kept with the
 * run's batches (or, alone, with thread 0's alone batches); *ticks is its time. */
static int time_batch(struct mfb_run *r, struct rounds *st, const struct slot *sl, bool alone, uint64_t *ticks,
                      struct mfb_err *err)
{
    double ns_per_tick = r->runtime.timer->ns_per_tick;
    const struct mfb_run_variant *rv = &r->config.vars[sl->vi];
    const struct mfb_variant *v = rv->v;
    /* --code-rotation round: this round's placement of the variant's code */
    struct mfb_variant placed;
    if (r->config.layout.rotation == MFB_ROTATE_ROUND && rv->code_placement >= 0) {
        placed = mfb_run_variant_at(rv, mfb_layout_placement_at(&r->config.layout, sl->vi, rv->extra, r->res.rounds));
        v = &placed;
    }
    struct mfb_batch_result res;
    mfb_passes_draw(&st->shift_rng, st->passes, sl->passes + 1, r->runtime.ws->space.page_units);
    /* The timed passes follow the trace; the priming pass (the last) keeps an order of its own,
     * so the predictors have not seen the window's sequence before it is timed. */
    if (r->modes.trace)
        in_order(st->passes, sl->passes);
    /* Priming: an untimed pass of the same variant over the same calls in an order of its own
     * (the last drawn pass), so the state the previous variant left (predictors, uop cache,
     * L1) is this variant's own when the timed passes start, without replaying their order. */
    if (!r->config.study->no_prime)
        mfb_run_batch_now(r, v, sl->calls_log2, 1, st->passes + sl->passes, &res);
    /* the timed passes' large-call lines out of every cache, before the barrier so that the
     * threads' timed passes still start together */
    mfb_run_evict(r, sl->calls_log2, sl->passes, st->passes);
    /* --threads: every thread's timed passes start together, each thread primed */
    if (team_of(r) && !alone && mfb_team_wait(r->runtime.team, MFB_WAIT_SPIN) < 0)
        return mfb_fail(err, MFB_TEAM_STOPPED);
    /* --counters: read just outside the timed batch, so the reads' own cost is not timed;
     * the counts include the loop and the timer reads, the same for every variant (the
     * noop's counts are that part) */
    struct mfb_counts c0, c1;
    bool ok0 = r->runtime.counters.active && mfb_counters_read(&r->runtime.counters, &c0);
    mfb_run_batch_now(r, v, sl->calls_log2, sl->passes, st->passes, &res);
    bool ok1 = r->runtime.counters.active && mfb_counters_read(&r->runtime.counters, &c1);
    if (!st->have_first) {
        /* with several threads, thread 0's origin (written before the barrier this batch passed) */
        st->first_tick = team_of(r) ? team_of(r)->origin_tick : res.begin;
        st->have_first = true;
    }
    *ticks = res.ticks;
    /* another thread's clock may read a little behind the origin thread 0 took */
    uint64_t since = res.begin > st->first_tick ? res.begin - st->first_tick : 0;
    struct mfb_sample smp = {
        .variant = (uint16_t)sl->vi, .position = (uint16_t)sl->pos, .round = r->res.rounds,
        .calls = (uint32_t)(((uint64_t)1 << sl->calls_log2) * sl->passes), .warmup = st->warming,
        .cpu = (int16_t)(res.cpu >= 0 && r->runtime.timer->end_cpu_trusted ? res.cpu : sched_getcpu()),
        .bytes = sl->pass_bytes * sl->passes,
        .ticks = res.ticks, .ns = (double)res.ticks * ns_per_tick,
        .t_start_ns = (uint64_t)((double)since * ns_per_tick), .size_class = (uint16_t)sl->cls,
        .thread = (int16_t)(team_of(r) ? r->runtime.thread : -1), .alone = (int8_t)(team_of(r) ? alone : -1)};
    mfb_counters_delta(&r->runtime.counters, ok0, &c0, ok1, &c1, smp.counters);
    struct mfb_samples *keep = alone ? &team_of(r)->alone_samples : &r->res.samples;
    if (mfb_samples_push(keep, &smp) < 0)
        return mfb_fail(err, "out of memory storing samples (%zu batches kept)", r->res.samples.n);
    return 0;
}

/* --threads: thread 0 times the slot alone, between two barriers: every thread's batch beside it
 * has ended before, and no thread starts its next one until it has ended. The others sleep. */
static int alone_batch(struct mfb_run *r, struct rounds *st, const struct slot *sl, struct mfb_err *err)
{
    uint64_t ticks;
    if (r->runtime.thread == 0) /* the others read it only after this barrier, and are past reading the last one */
        r->runtime.team->abandon = *st->stop != 0;
    if (mfb_team_wait(r->runtime.team, MFB_WAIT_SPIN) < 0)
        return mfb_fail(err, MFB_TEAM_STOPPED);
    if (r->runtime.team->abandon)
        return ROUND_ABANDONED;
    if (r->runtime.thread == 0 && time_batch(r, st, sl, true, &ticks, err) < 0)
        return -1;
    if (mfb_team_wait(r->runtime.team, r->runtime.thread == 0 ? MFB_WAIT_SPIN : MFB_WAIT_SLEEP) < 0)
        return mfb_fail(err, MFB_TEAM_STOPPED);
    return 0;
}

/* Every variant once, in the round's order, on the calls now in the parameter array (the whole
 * distribution's, or size class `cls`'s with its own shape); adds their ticks to *total. With
 * several threads, thread 0 also times each variant alone: after its batch beside the others on
 * even rounds, before it on odd ones, so neither kind always follows the other. 0, -1 with err,
 * or ROUND_ABANDONED: one thread sees the stop before each batch, a team at each alone batch. */
static int time_batches(struct mfb_run *r, struct rounds *st, int cls, uint8_t calls_log2, uint32_t passes,
                        uint64_t pass_bytes, double *total, struct mfb_err *err)
{
    bool alone = team_of(r) != NULL, alone_first = r->res.rounds % 2 == 1;
    for (int pos = 0; pos < r->config.nvars; pos++) {
        struct slot sl = {.vi = st->order[pos], .pos = pos, .cls = cls, .calls_log2 = calls_log2, .passes = passes,
                          .pass_bytes = pass_bytes};
        uint64_t ticks;
        int rc;
        if (!alone && *st->stop)
            return ROUND_ABANDONED;
        if (alone && alone_first && (rc = alone_batch(r, st, &sl, err)) != 0)
            return rc;
        if (time_batch(r, st, &sl, false, &ticks, err) < 0)
            return -1;
        *total += (double)ticks;
        if (alone && !alone_first && (rc = alone_batch(r, st, &sl, err)) != 0)
            return rc;
    }
    return 0;
}

/* Times every variant once on the round's calls and keeps each batch; *total is the round's
 * total ticks (the warm-up rule compares them). */
static int time_round(struct mfb_run *r, struct rounds *st, double *total, struct mfb_err *err)
{
    uint32_t round = r->res.rounds;
    /* Warm-up rounds replay the first array; measured rounds draw fresh calls. */
    if (round > 0 && !st->warming)
        st->pass_bytes = r->modes.trace ? trace_fill(r, st, mfb_calls_per_pass(&r->procedure.cal))
                                  : mfb_sampler_fill(&st->sampler, st->params, mfb_calls_per_pass(&r->procedure.cal));
    else if (round > 0 && st->first) /* --by-class: the class batches of the last round overwrote it */
        memcpy(st->params, st->first, mfb_calls_per_pass(&r->procedure.cal) * sizeof *st->params);
    next_order(st, round, r->config.nvars);
    r->runtime.activity->round = round;
    *total = 0;
    /* A sweep times its points only: the union of their sizes is for verification and calibration. */
    int rc = r->modes.sweep ? 0 : time_batches(r, st, 0, r->procedure.cal.calls_log2, r->procedure.cal.passes,
                                               st->pass_bytes, total, err);
    /* --by-class: every class, in the same order of variants, on fresh calls of its own. */
    for (int k = 0; rc == 0 && r->modes.by_class.on && k < r->modes.by_class.classes.n; k++) {
        const struct mfb_class_shape *sh = &r->modes.by_class.shape[k];
        uint64_t bytes = mfb_sampler_fill(&st->class_samplers[k], st->params, (size_t)1 << sh->calls_log2);
        rc = time_batches(r, st, k + 1, sh->calls_log2, sh->passes, bytes, total, err);
    }
    if (rc != 0)
        return rc;
    r->res.rounds++;
    return 0;
}

static uint32_t measured_rounds(const struct mfb_run *r)
{
    return r->res.rounds - r->procedure.warmup.rounds;
}

/* --target-ci, at most every TARGET_CHECK_NS (and once more when interrupted). */
static int check_target(struct mfb_run *r, struct rounds *st, uint64_t now, bool interrupted,
                        struct mfb_err *err)
{
    if (st->warming || r->config.study->target_ci <= 0 || measured_rounds(r) < TARGET_MIN_ROUNDS)
        return 0;
    if (now - st->last_check_ns <= TARGET_CHECK_NS && !interrupted)
        return 0;
    st->last_check_ns = now;
    return mfb_stoprule_check(&st->target, r, err);
}

/* Batches the run keeps for each of thread 0's batches beside the others: one per thread, and
 * thread 0's alone batch. */
static size_t kept_per_batch(const struct mfb_run *r)
{
    return team_of(r) ? (size_t)team_of(r)->n + 1 : 1;
}

static enum mfb_stop_reason stop_reason(const struct mfb_run *r, const struct rounds *st, double elapsed,
                                        bool interrupted)
{
    const struct mfb_study *s = r->config.study;
    if (interrupted)
        return MFB_STOP_INTERRUPTED;
    if (r->procedure.stop.target_reached)
        return MFB_STOP_TARGET_CI;
    /* Another round would keep more batches than the bound (even in the warm-up: a fixed one may
     * be long). */
    size_t classes = r->modes.by_class.on ? (size_t)r->modes.by_class.classes.n : 0;
    size_t per_round = (size_t)r->config.nvars * ((r->modes.sweep ? 0 : 1) + classes);
    if ((r->res.samples.n + per_round) * kept_per_batch(r) > (size_t)s->max_batches)
        return MFB_STOP_BATCHES;
    if (st->warming)
        return MFB_STOP_NONE;
    if (s->rounds && measured_rounds(r) >= (uint32_t)s->rounds)
        return MFB_STOP_ROUNDS;
    if (s->time_s > 0 && elapsed >= s->time_s && measured_rounds(r) >= 2)
        return MFB_STOP_TIME;
    return MFB_STOP_NONE;
}

static void progress(const struct mfb_run *r, double elapsed, bool final)
{
    if (r->config.study->quiet || !isatty(STDERR_FILENO))
        return;
    if (r->config.study->time_s > 0)
        fprintf(stderr, "\r[%5.1f / %.0f s] round %u", elapsed, r->config.study->time_s, r->res.rounds);
    else
        fprintf(stderr, "\r[%5.1f s] round %u / %ld", elapsed, r->res.rounds,
                r->config.study->rounds + (long)r->procedure.warmup.rounds);
    if (final)
        fprintf(stderr, "\n");
    fflush(stderr);
}

/* After each round: the warm-up rule, the stop rules, progress. */
static int after_round(struct mfb_run *r, struct rounds *st, double total, bool interrupted, struct mfb_err *err)
{
    uint64_t now = mfb_mono_ns();
    double elapsed = elapsed_s(st, now);
    if (st->warming && mfb_warmup_round(st->warm, &r->procedure.warmup, r->res.rounds - 1, total, elapsed,
                                        r->runtime.warn))
        st->warming = false;
    if (check_target(r, st, now, interrupted, err) < 0)
        return -1;
    r->procedure.stop.reason = stop_reason(r, st, elapsed, interrupted);
    if (now - st->last_progress_ns > PROGRESS_NS) {
        progress(r, elapsed, false);
        st->last_progress_ns = now;
    }
    return 0;
}

/* ended: when the last round ended, so the rounds' time leaves out the placement check run after
 * them (the stage after_rounds_s has it: the two add up to the process's time, docs/cost.md). */
static int finish(struct mfb_run *r, struct rounds *st, uint64_t ended, struct mfb_err *err)
{
    double elapsed = elapsed_s(st, ended);
    if (st->warming) { /* stopped during the warm-up: every round so far was warm-up */
        r->procedure.warmup.rounds = r->res.rounds;
        r->procedure.warmup.seconds = elapsed;
    }
    if (r->config.study->target_ci > 0 && !r->procedure.stop.target_reached && measured_rounds(r) >= TARGET_MIN_ROUNDS) {
        if (mfb_stoprule_check(&st->target, r, err) < 0)
            return -1;
        mfb_warn(r->runtime.warn, MFB_W_TARGET_CI, "stopped by %s before every interval reached +-%.2f %%",
                 mfb_stop_reason_name(r->procedure.stop.reason), r->config.study->target_ci);
    }
    if (r->procedure.stop.reason == MFB_STOP_BATCHES)
        mfb_warn(r->runtime.warn, MFB_W_MAX_BATCHES,
                 "stopped after %zu batches, the bound on what a run keeps (--max-batches %ld): "
                 "%u rounds measured", r->res.samples.n * kept_per_batch(r), r->config.study->max_batches,
                 measured_rounds(r));
    r->res.rounds_s = elapsed;
    progress(r, elapsed, true);
    struct mfb_rng rng;
    mfb_rng_seed(&rng, mfb_stream_seed(r->config.seed, MFB_STREAM_OVERHEAD));
    return mfb_calibrate_overhead(r, &rng, err);
}

/* --threads: at the end of every round thread 0 tells the others whether the warm-up goes on and
 * whether to stop, so every thread runs the same rounds. */
static int share_round(struct mfb_run *r, struct rounds *st, int rc, struct mfb_err *err)
{
    struct mfb_team *t = team_of(r);
    if (rc < 0) {
        mfb_team_fail(t);
        return rc;
    }
    if (r->runtime.thread == 0) {
        t->stop_reason = (int)r->procedure.stop.reason;
        t->warming = st->warming;
    }
    if (mfb_team_wait(t, MFB_WAIT_SPIN) < 0)
        return mfb_fail(err, MFB_TEAM_STOPPED);
    if (r->runtime.thread > 0) {
        r->procedure.stop.reason = (enum mfb_stop_reason)t->stop_reason;
        st->warming = t->warming;
    }
    return 0;
}

int mfb_run_rounds(struct mfb_run *r, volatile sig_atomic_t *stop, struct mfb_err *err)
{
    struct rounds st;
    if (begin(r, &st, err) < 0)
        return -1;
    int rc = 0;
    r->procedure.stop.reason = MFB_STOP_NONE;
    r->runtime.activity->phase = MFB_PHASE_TIMING;
    /* for the guard's line: the largest call any batch may hold (set once, not per call: timed) */
    r->runtime.activity->size = mfb_table_max(&r->config.dist->size);
    st.stop = stop;
    while (rc == 0 && r->procedure.stop.reason == MFB_STOP_NONE) {
        double total;
        size_t kept = r->res.samples.n, kept_alone = team_of(r) ? team_of(r)->alone_samples.n : 0;
        rc = time_round(r, &st, &total, err);
        if (rc == ROUND_ABANDONED) {
            r->res.samples.n = kept;
            if (team_of(r) && r->runtime.thread == 0)
                team_of(r)->alone_samples.n = kept_alone;
            rc = 0;
            r->procedure.stop.reason = MFB_STOP_INTERRUPTED; /* thread 0's; share_round hands it on */
        } else if (rc == 0 && r->runtime.thread == 0) {
            rc = after_round(r, &st, total, *stop != 0, err);
        }
        if (team_of(r))
            rc = share_round(r, &st, rc, err);
    }
    uint64_t after = mfb_mono_ns();
    /* where the windows' lines are as the last round left them, outside every timed batch, before
     * the harness's own batches move anything */
    if (rc == 0 && r->runtime.thread == 0)
        mfb_residency_check(&r->res.placement_check, r->runtime.ws, r->runtime.timer, r->procedure.cal.calls_log2,
                            mfb_stream_seed(r->config.seed, MFB_STREAM_CHECK));
    /* the harness overhead is thread 0's: the others' batches are about interference */
    if (rc == 0 && r->runtime.thread == 0)
        rc = finish(r, &st, after, err);
    r->res.stage_s[MFB_STAGE_OVERHEAD] = (double)(mfb_mono_ns() - after) / 1e9;
    r->runtime.activity->phase = MFB_PHASE_IDLE;
    release(&st, r->modes.by_class.classes.n);
    return rc;
}
