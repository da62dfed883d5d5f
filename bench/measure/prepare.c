/* mfb_run_prepare: everything before the rounds, in the order that fails fastest: the sampler
 * self-check, the calls, the correctness check of every variant on those calls, then the batch
 * shape and its linearity. */
#include <math.h>
#include <stdlib.h>

#include "base/seeds.h"
#include "impl/verify.h"
#include "measure/calibrate.h"
#include "measure/run.h"
#include "workload/sampler.h"
#include "workload/shapes.h"

/* Draws of the self-check: enough that a table row of probability 1e-3 expects 1000 calls. */
#define SELFCHECK_DRAWS (1u << 20)
#define SELFCHECK_CHUNK 4096u
/* The other processes of a --processes study run the same sampler on the same tables, which the
 * first process checked in full: they check a sixteenth (a row of probability 1e-3 still expects
 * 64 calls), so the check cost about 5 ms there instead of 85 (Zen 5 VM, fleet memcpy); with the
 * self-check's row table, 3 ms instead of 43 (Intel VM, family 6 model 167). */
#define SELFCHECK_LATER_DRAWS (SELFCHECK_DRAWS / 16)

/* The self-check of a size class: its calls are a few of the whole's, so fewer draws give each
 * of its rows as many expected calls. */
#define CLASS_SELFCHECK_DRAWS (1u << 18)
/* A class's batch holds at least this many calls (a class of large calls gets fewer than the
 * whole's so its batch processes about the whole's bytes): 64 calls keep the clock's overhead
 * (tens of ns) below 0.1 % of a batch of 2 KiB copies. */
#define MIN_CLASS_CALLS 64

/* Draws `draws` calls of d from its own seed and checks them against d's tables. */
static int selfcheck_of(struct mfb_run *r, const struct mfb_dist *d, uint32_t draws, uint64_t seed,
                        struct mfb_selfcheck *out, struct mfb_err *err)
{
    struct mfb_sampler s;
    struct mfb_selfcheck_acc acc;
    struct mfb_call *buf = malloc(SELFCHECK_CHUNK * sizeof *buf);
    if (!buf)
        return mfb_fail(err, "out of memory for the sampler self-check");
    if (mfb_sampler_init(&s, d, &r->runtime.ws->space, r->config.study->align_mode, seed, err) < 0) {
        free(buf);
        return -1;
    }
    if (mfb_selfcheck_begin(&acc, d, r->config.study->align_mode, r->runtime.ws->space.roles) < 0) {
        free(buf);
        mfb_sampler_free(&s);
        return mfb_fail(err, "out of memory for the sampler self-check");
    }
    for (uint32_t done = 0; done < draws; done += SELFCHECK_CHUNK) {
        mfb_sampler_fill(&s, buf, SELFCHECK_CHUNK);
        mfb_selfcheck_add(&acc, buf, SELFCHECK_CHUNK);
    }
    free(buf);
    mfb_sampler_free(&s);
    return mfb_selfcheck_finish(&acc, out, err);
}

static int selfcheck(struct mfb_run *r, struct mfb_err *err)
{
    uint32_t draws = r->config.study->process_index <= 0 ? SELFCHECK_DRAWS : SELFCHECK_LATER_DRAWS;
    return selfcheck_of(r, r->config.dist, draws, mfb_stream_seed(r->config.seed, MFB_STREAM_SELFCHECK),
                        &r->procedure.selfcheck, err);
}

/* A sweep point's batch: about SWEEP_BATCH_BYTES, at least SWEEP_MIN_CALLS calls (a 16 MiB copy
 * lasts milliseconds, so the clock's overhead is nothing beside 4 of them), and no more calls than
 * a point of SWEEP_MEAN_FLOOR bytes gets: tiny sizes would otherwise ask for 256K calls a batch. */
#define SWEEP_BATCH_BYTES (256u << 10)
#define SWEEP_MIN_CALLS 4
#define SWEEP_MEAN_FLOOR 128.0

static void sweep_shape(const struct mfb_run *r, const struct mfb_size_class *c, struct mfb_class_shape *sh)
{
    uint64_t calls = (uint64_t)((double)SWEEP_BATCH_BYTES / fmax(c->mean_size, SWEEP_MEAN_FLOOR));
    if (calls < SWEEP_MIN_CALLS)
        calls = SWEEP_MIN_CALLS;
    uint8_t lg = r->runtime.ws->params_log2;
    while (lg > 0 && (1ull << lg) > calls)
        lg--;
    sh->calls_log2 = lg;
    sh->passes = (uint32_t)(calls >> lg) ? (uint32_t)(calls >> lg) : 1;
}

/* --by-class or a sweep: the classes (a sweep's points were made with its distribution), each
 * one's batch shape and self-check (after the whole's calibration, whose shape a class scales). */
static int prepare_classes(struct mfb_run *r, struct mfb_err *err)
{
    struct mfb_by_class *bc = &r->modes.by_class;
    if (r->modes.sweep) {
        if (!(bc->shape = calloc((size_t)bc->classes.n, sizeof *bc->shape)))
            return mfb_fail(err, "out of memory for %d sweep points", bc->classes.n);
        for (int k = 0; k < bc->classes.n; k++) {
            sweep_shape(r, &bc->classes.c[k], &bc->shape[k]);
            if (selfcheck_of(r, &bc->classes.c[k].dist, CLASS_SELFCHECK_DRAWS,
                             mfb_class_seed(r->config.seed, MFB_STREAM_SELFCHECK,
                                            k + 1), &bc->shape[k].selfcheck, err) < 0)
                return -1;
        }
        return 0;
    }
    if (!r->config.study->by_class)
        return 0;
    bc->on = true;
    if (r->config.study->class_edges.nedges) {
        bc->classes = r->config.study->class_edges; /* the edges only: the study holds no classes */
    } else {
        mfb_classes_default_edges(&bc->classes, r->runtime.ws->space.by_size ? r->runtime.ws->space.threshold
                                                                       : MFB_DEFAULT_SMALL_MAX);
    }
    if (mfb_classes_split(&bc->classes, r->config.dist, err) < 0)
        return -1;
    if (!(bc->shape = calloc((size_t)bc->classes.n + 1, sizeof *bc->shape)))
        return mfb_fail(err, "out of memory for %d size classes", bc->classes.n);
    double whole_mean = mfb_table_mean(&r->config.dist->size);
    uint64_t whole_calls = (uint64_t)mfb_calls_per_pass(&r->procedure.cal) * r->procedure.cal.passes;
    for (int k = 0; k < bc->classes.n; k++) {
        const struct mfb_size_class *c = &bc->classes.c[k];
        struct mfb_class_shape *sh = &bc->shape[k];
        uint64_t calls = whole_calls;
        if (c->mean_size > whole_mean)
            calls = (uint64_t)((double)whole_calls * whole_mean / c->mean_size);
        if (calls < MIN_CLASS_CALLS)
            calls = MIN_CLASS_CALLS;
        if (calls > whole_calls)
            calls = whole_calls;
        uint8_t lg = r->procedure.cal.calls_log2;
        while (lg > 0 && (1ull << lg) > calls)
            lg--;
        sh->calls_log2 = lg;
        sh->passes = (uint32_t)(calls >> lg) ? (uint32_t)(calls >> lg) : 1;
        if (selfcheck_of(r, &c->dist, CLASS_SELFCHECK_DRAWS, mfb_class_seed(r->config.seed, MFB_STREAM_SELFCHECK,
                                                                            k + 1),
                         &sh->selfcheck, err) < 0)
            return -1;
    }
    return 0;
}

/* The first parameter array: the calls every variant is verified on, and round 0 replays. */
static int draw_params(struct mfb_run *r, struct mfb_err *err)
{
    struct mfb_sampler s;
    if (mfb_sampler_init(&s, r->config.dist, &r->runtime.ws->space, r->config.study->align_mode,
                         mfb_stream_seed(r->config.seed, MFB_STREAM_PARAMS), err) < 0)
        return -1;
    mfb_sampler_fill(&s, mfb_run_params(r), mfb_workset_params(r->runtime.ws));
    mfb_sampler_free(&s);
    return 0;
}

/* Every call shape of the distribution (workload/shapes.h), checked for one variant. The first
 * process of a study (or the only one) checks them all; the others run the same code (copies
 * at other placements are compiled from the same source) and check their first calls only. */
static int verify_shapes(struct mfb_run *r, struct mfb_verify *ver, const struct mfb_shapes *sh,
                         const struct mfb_variant *v, struct mfb_err *err)
{
    struct mfb_sampler s;
    if (mfb_sampler_init(&s, r->config.dist, &r->runtime.ws->space, r->config.study->align_mode,
                         mfb_stream_seed(r->config.seed, MFB_STREAM_VERIFY), err) < 0)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < sh->n && rc == 0; i++) {
        struct mfb_call c;
        mfb_shapes_call(sh, &s, i, &c);
        rc = mfb_verify_placed(ver, v, &c, err);
    }
    mfb_sampler_free(&s);
    return rc;
}

/* Calls each other code placement of a built-in is checked on under rotation. */
#define PLACED_CHECK_CALLS 64
/* The first array's large calls (over 1 MiB) are checked in order while their sizes add up to
 * this (the first always): each costs the reference's copy, the variant's and a compare of both
 * buffers, and every large size is checked anyway with the shapes (under their own byte bound).
 * A count alone (16) checked a trace of four 64 MiB calls on 1 GiB per variant, most of a
 * --trace run's set-up. */
#define ARRAY_LARGE_CHECK_BYTES (64ull << 20)
#define LARGE_CALL_BYTES (1ull << 20)

/* The calls of the first array a variant is checked on, into out (room for n): every small call
 * and the large ones within ARRAY_LARGE_CHECK_BYTES. Returns how many. */
static size_t array_checked(const struct mfb_call *in, size_t n, struct mfb_call *out)
{
    size_t k = 0;
    uint64_t large = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t size = in[i].size & MFB_SIZE_MASK;
        if (size > LARGE_CALL_BYTES && large > 0 && large + size > ARRAY_LARGE_CHECK_BYTES)
            continue;
        large += size > LARGE_CALL_BYTES ? size : 0;
        out[k++] = in[i];
    }
    return k;
}

static int verify_variants(struct mfb_run *r, struct mfb_err *err)
{
    struct mfb_verify ver;
    struct mfb_shapes sh = {0};
    bool all_shapes = r->config.study->process_index <= 0;
    if (mfb_verify_init(&ver, mfb_table_max(&r->config.dist->size), mfb_stream_seed(r->config.seed, MFB_STREAM_VERIFY),
                        r->runtime.activity, err) < 0)
        return -1;
    struct mfb_call *checked = malloc(mfb_workset_params(r->runtime.ws) * sizeof *checked);
    if (!checked) {
        mfb_verify_free(&ver);
        return mfb_fail(err, "out of memory listing the calls to verify");
    }
    size_t nchecked = array_checked(mfb_run_params(r), mfb_workset_params(r->runtime.ws), checked);
    int rc = all_shapes ? mfb_shapes_init(&sh, r->config.dist, mfb_stream_seed(r->config.seed, MFB_STREAM_VERIFY),
                                          err) : 0;
    r->runtime.activity->phase = MFB_PHASE_VERIFYING;
    for (int i = 0; i < r->config.nvars && rc == 0; i++) {
        uint64_t before = ver.checked;
        rc = mfb_verify_calls(&ver, r->config.vars[i].v, checked, nchecked, err);
        if (rc == 0 && all_shapes)
            rc = verify_shapes(r, &ver, &sh, r->config.vars[i].v, err);
        /* --code-rotation round: every other placement's code is timed too; compiled from the same
         * source, each is checked on the first calls */
        bool rotates = r->config.layout.rotation == MFB_ROTATE_ROUND && r->config.vars[i].code_placement >= 0;
        for (unsigned p = 0; rc == 0 && rotates && p < MFB_CODE_PLACEMENTS; p++) {
            struct mfb_variant placed = mfb_run_variant_at(&r->config.vars[i], p);
            rc = mfb_verify_calls(&ver, &placed, checked, nchecked < PLACED_CHECK_CALLS ? nchecked : PLACED_CHECK_CALLS,
                                  err);
        }
        r->config.vars[i].verified_calls = ver.checked - before;
        mfb_variant_codeinfo(r->config.vars[i].v, &r->config.vars[i].code);
    }
    r->runtime.activity->phase = MFB_PHASE_IDLE;
    r->procedure.verified_shapes = sh.n;
    r->procedure.verified_sizes = sh.nsizes;
    r->procedure.support_sizes = sh.support;
    r->procedure.sizes_in_support = sh.in_support;
    if (sh.n > 0 && sh.nsizes < sh.in_support)
        mfb_warn(r->runtime.warn, MFB_W_VERIFICATION,
                 "verification checked %zu of the %llu sizes the distribution can draw "
                 "(every size up to %d, then each wide range's ends, powers of two and neighbours and an even "
                 "spread; sizes above %d thinned to a %llu MiB bound)", sh.nsizes, (unsigned long long)sh.in_support,
                 MFB_SHAPES_SMALL, MFB_SHAPES_SMALL, MFB_SHAPES_MAX_BYTES >> 20);
    mfb_shapes_free(&sh);
    mfb_verify_free(&ver);
    free(checked);
    return rc;
}

/* Seconds since *t, which moves on to now: one stage's share. */
static double lap(uint64_t *t)
{
    uint64_t now = mfb_mono_ns(), then = *t;
    *t = now;
    return (double)(now - then) / 1e9;
}

int mfb_run_prepare(struct mfb_run *r, struct mfb_err *err)
{
    uint64_t t0 = mfb_mono_ns(), t = t0;
    double *stage = r->res.stage_s;
    if (selfcheck(r, err) < 0 || draw_params(r, err) < 0)
        return -1;
    stage[MFB_STAGE_SELFCHECK] = lap(&t);
    if (verify_variants(r, err) < 0)
        return -1;
    stage[MFB_STAGE_VERIFY] = lap(&t);
    /* a given clock rate is checked over everything since the timer was set up (machine/timer.h),
     * before the batch calibration records anything in ns */
    mfb_timer_settle(r->runtime.timer);
    struct mfb_rng rng;
    mfb_rng_seed(&rng, mfb_stream_seed(r->config.seed, MFB_STREAM_CALIBRATE));
    r->runtime.activity->phase = MFB_PHASE_CALIBRATING;
    r->runtime.activity->size = mfb_table_max(&r->config.dist->size); /* for the guard's line, as the rounds */
    mfb_calibrate_batch(r, &rng);
    int rc = mfb_calibrate_linearity(r, &rng, err);
    r->runtime.activity->phase = MFB_PHASE_IDLE;
    stage[MFB_STAGE_CALIBRATE] = lap(&t);
    if (rc < 0 || prepare_classes(r, err) < 0)
        return -1;
    stage[MFB_STAGE_CLASSES] = lap(&t);
    r->res.prepare_s = (double)(mfb_mono_ns() - t0) / 1e9;
    return 0;
}
