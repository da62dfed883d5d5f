#include "probe/bandwidth.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* The threads of one round start together: each says it is ready, then spins until the caller
 * says go (1) or abandon (-1, when a thread could not be started). A spin, not a barrier, so an
 * abandoned round ends without the threads that never came. */
struct start_gate {
    atomic_int ready;
    atomic_int go;
};

/* One thread's share of a point: its own buffers, its own passes, its own clock readings. */
struct worker {
    pthread_t tid;
    int cpu;
    struct mfb_region region;
    void *dst;
    const void *src;
    size_t bytes;      /* moved per pass */
    mfb_stream_fn fn;
    uint64_t passes;
    const struct mfb_timer *timer;
    struct start_gate *gate;
    uint64_t t0, t1;
    uint64_t folded;   /* what the reads returned: kept so the loads are kept */
};

static void passes_of(struct worker *w)
{
    int cpu;
    w->t0 = mfb_timer_begin(w->timer);
    for (uint64_t i = 0; i < w->passes; i++)
        w->folded += w->fn(w->dst, w->src, w->bytes);
    mfb_stream_fence(); /* non-temporal stores done before the clock stops */
    w->t1 = mfb_timer_end(w->timer, &cpu);
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    atomic_fetch_add(&w->gate->ready, 1);
    int go;
    while ((go = atomic_load(&w->gate->go)) == 0)
        ;
    if (go > 0)
        passes_of(w);
    return NULL;
}

/* One timed round of every worker's passes; thread 0 is the caller. Returns the time from the
 * earliest start to the latest end, in ns: the threads' aggregate rate is total bytes over it. */
static double round_ns(struct worker *ws, int n, struct mfb_err *err, int *failed)
{
    struct start_gate gate;
    atomic_init(&gate.ready, 0);
    atomic_init(&gate.go, 0);
    for (int i = 0; i < n; i++)
        ws[i].gate = &gate;
    int started = 1;
    for (int i = 1; i < n; i++) {
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(ws[i].cpu, &set);
        pthread_attr_setaffinity_np(&attr, sizeof set, &set);
        int rc = pthread_create(&ws[i].tid, &attr, worker_main, &ws[i]);
        pthread_attr_destroy(&attr);
        if (rc != 0) {
            *failed = 1;
            mfb_fail(err, "cannot start bandwidth thread %d: %s", i, strerror(rc));
            break;
        }
        started++;
    }
    while (atomic_load(&gate.ready) < started - 1)
        ;
    atomic_store(&gate.go, *failed ? -1 : 1);
    if (*failed) {
        for (int i = 1; i < started; i++)
            pthread_join(ws[i].tid, NULL);
        return 0;
    }
    passes_of(&ws[0]);
    for (int i = 1; i < n; i++)
        pthread_join(ws[i].tid, NULL);
    uint64_t lo = ws[0].t0, hi = ws[0].t1;
    for (int i = 1; i < n; i++) {
        lo = ws[i].t0 < lo ? ws[i].t0 : lo;
        hi = ws[i].t1 > hi ? ws[i].t1 : hi;
    }
    return (double)(hi - lo) * ws[0].timer->ns_per_tick;
}

static int measure_point(const struct mfb_probe_run *run, const struct mfb_bw_curve *c, struct mfb_probe_point *p,
                         struct mfb_err *err)
{
    const struct mfb_probe_config *cfg = run->cfg;
    int n = cfg->threads;
    struct worker *ws = calloc((size_t)n, sizeof *ws);
    if (!ws)
        return mfb_fail(err, "out of memory for %d bandwidth threads", n);
    bool copies = mfb_stream_kernel_copies(c->kernel);
    /* Each thread's footprint is the point's size over the threads, rounded to whole steps of
     * the kernels' unrolled loop (and for a copy, to two such halves). */
    size_t grain = copies ? 2 * MFB_STREAM_GRAIN : MFB_STREAM_GRAIN;
    size_t share = p->size / (size_t)n / grain * grain;
    if (share < grain)
        share = grain;
    int rc = 0;
    double huge = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        struct worker *w = &ws[i];
        w->cpu = cfg->cpus[i];
        w->timer = run->timer;
        w->fn = mfb_stream_kernel(c->kernel, c->vector);
        rc = mfb_region_map(&w->region, share, c->pages, err);
        if (rc < 0)
            break;
        huge += w->region.huge_fraction;
        char *b = w->region.buf;
        w->bytes = copies ? share / 2 : share;
        w->src = b;
        w->dst = copies ? b + share / 2 : b; /* mfb_region_map wrote every page: no zero page is read */
    }
    int failed = 0;
    /* Calibrate: passes doubling until one round takes bw_seconds / 4, so each repeat below
     * lasts about bw_seconds; the rounds on the way warm the caches and the pages. */
    for (uint64_t passes = 1; rc == 0 && !*run->stop; passes *= 2) {
        for (int i = 0; i < n; i++)
            ws[i].passes = passes;
        double ns = round_ns(ws, n, err, &failed);
        if (failed) {
            rc = -1;
            break;
        }
        if (ns >= cfg->bw_seconds * 0.25e9 || passes >= (UINT64_C(1) << 40)) {
            uint64_t want = (uint64_t)((double)passes * cfg->bw_seconds * 1e9 / (ns > 0 ? ns : 1)) + 1;
            for (int i = 0; i < n; i++)
                ws[i].passes = want;
            break;
        }
    }
    p->nrep = 0;
    p->huge_fraction = fmin(1.0, huge / n); /* a sum of n fractions can round past n */
    p->work = ws[0].passes * ws[0].bytes * (uint64_t)n;
    for (unsigned k = 0; rc == 0 && k < cfg->repeats && !*run->stop; k++) {
        double ns = round_ns(ws, n, err, &failed);
        if (failed) {
            rc = -1;
            break;
        }
        p->rep[p->nrep++] = (double)p->work / ns; /* bytes per ns = GB/s */
    }
    uint64_t folded = 0;
    for (int i = 0; i < n; i++) {
        folded += ws[i].folded;
        mfb_region_unmap(&ws[i].region);
    }
    __asm__ volatile("" : : "r"(folded)); /* the reads' results are used: the loads stay */
    free(ws);
    return rc;
}

int mfb_bandwidth_curve(const struct mfb_probe_run *run, struct mfb_bw_curve *c, void (*progress)(const struct mfb_bw_curve *, size_t, void *),
                        void *ctx, struct mfb_err *err)
{
    size_t done = 0;
    for (size_t i = 0; i < c->npoints && !*run->stop; i++) {
        if (progress)
            progress(c, i, ctx);
        if (measure_point(run, c, &c->points[i], err) < 0)
            return -1;
        if (c->points[i].nrep > 0)
            done = i + 1;
    }
    c->npoints = done;
    return 0;
}
