/* The timing threads beside thread 0: made from the prepared run, started before the rounds,
 * joined after them (declared in measure/run.h; the barrier they meet at: measure/team.c). */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/seeds.h"
#include "machine/background.h"
#include "measure/run.h"
#include "measure/team.h"

struct mfb_member {
    pthread_t tid;
    bool started;
    struct mfb_run run;            /* a copy of thread 0's prepared run, with its own parts below */
    struct mfb_workset ws;
    struct mfb_activity activity;  /* the guard watches thread 0's only */
    struct mfb_trace trace;        /* --trace: the same calls, a cursor of its own */
    enum mfb_counters_mode counters;
    _Atomic int ready;             /* 1 set up, -1 failed */
    int rc;
    struct mfb_err err;
};

static void *member_main(void *arg)
{
    struct mfb_member *m = arg;
    struct mfb_run *r = &m->run;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(r->runtime.team->place[r->runtime.thread].cpu, &set);
    /* pinned before the buffers are touched, so they are faulted in from this CPU (its node) */
    if (sched_setaffinity(0, sizeof set, &set) != 0) {
        mfb_fail(&m->err, "--cpus: thread %d cannot be pinned to CPU %d: %s", r->runtime.thread,
                 r->runtime.team->place[r->runtime.thread].cpu, strerror(errno));
        goto failed;
    }
    if (mfb_workset_alloc(&m->ws, mfb_stream_seed(r->config.seed, MFB_STREAM_ARENA), &m->err) < 0)
        goto failed;
    /* perf_event counts the thread that opens it */
    mfb_counters_open(&r->runtime.counters, m->counters);
    atomic_store_explicit(&m->ready, 1, memory_order_release);
    struct timespec nap = {0, 1000000};
    while (!atomic_load_explicit(&r->runtime.team->go, memory_order_acquire)) {
        if (atomic_load_explicit(&r->runtime.team->failed, memory_order_acquire))
            return NULL;
        nanosleep(&nap, NULL);
    }
    /* thread 0 reads the interrupt flag and tells the others at the end of each round */
    volatile sig_atomic_t never = 0;
    m->rc = mfb_run_rounds(r, &never, &m->err);
    if (m->rc < 0)
        mfb_team_fail(r->runtime.team);
    return NULL;
failed:
    m->rc = -1;
    atomic_store_explicit(&m->ready, -1, memory_order_release);
    mfb_team_fail(r->runtime.team);
    return NULL;
}

/* Thread k's run: thread 0's prepared run (variants, batch shape, classes, pressure block) with a
 * seed, working set, samples, counters and activity of its own. */
static void make_member(struct mfb_member *m, const struct mfb_run *r0, int k, enum mfb_counters_mode counters)
{
    m->run = *r0;
    m->run.runtime.thread = k;
    m->run.config.seed = mfb_thread_seed(r0->config.seed, k);
    m->run.res = (struct mfb_results){0};
    m->run.runtime.counters = (struct mfb_counters){0};
    m->ws = *r0->runtime.ws;
    m->ws.arena = NULL;
    m->run.runtime.ws = &m->ws;
    m->activity = (struct mfb_activity){.phase = MFB_PHASE_IDLE};
    m->run.runtime.activity = &m->activity;
    if (r0->modes.trace) {
        m->trace = *r0->modes.trace;
        m->run.modes.trace = &m->trace;
    }
    m->counters = counters;
}

int mfb_team_start(struct mfb_run *r, enum mfb_counters_mode counters, struct mfb_err *err)
{
    struct mfb_team *t = r->runtime.team;
    r->runtime.thread = 0;
    t->seed = r->config.seed;
    if (!(t->members = calloc((size_t)t->n, sizeof *t->members)))
        return mfb_fail(err, "out of memory starting %d timing threads", t->n);
    /* Ctrl-C and the like go to thread 0, which ends the rounds for everyone; a fault stays the
     * faulting thread's, so the guard names the variant (a blocked fault kills without a word). */
    sigset_t all, old;
    mfb_async_signals(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    for (int k = 1; k < t->n; k++) {
        struct mfb_member *m = &t->members[k];
        make_member(m, r, k, counters);
        int e = pthread_create(&m->tid, NULL, member_main, m);
        if (e != 0) {
            mfb_team_fail(t);
            pthread_sigmask(SIG_SETMASK, &old, NULL);
            return mfb_fail(err, "--threads: cannot start timing thread %d: %s", k, strerror(e));
        }
        m->started = true;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    /* The rounds begin once every thread has its buffers: none is faulting pages in while the
     * others time. */
    for (int k = 1; k < t->n; k++) {
        struct mfb_member *m = &t->members[k];
        int ready;
        struct timespec nap = {0, 1000000};
        while ((ready = atomic_load_explicit(&m->ready, memory_order_acquire)) == 0)
            nanosleep(&nap, NULL);
        if (ready < 0) {
            *err = m->err;
            return -1;
        }
    }
    atomic_store_explicit(&t->go, true, memory_order_release);
    return 0;
}

/* The rows of src, each marked with its thread, appended to dst. */
static int append(struct mfb_samples *dst, const struct mfb_samples *src, int thread, int8_t alone,
                  struct mfb_err *err)
{
    for (size_t i = 0; i < src->n; i++) {
        struct mfb_sample x = src->s[i];
        x.thread = (int16_t)thread;
        x.alone = alone;
        if (mfb_samples_push(dst, &x) < 0)
            return mfb_fail(err, "out of memory merging the threads' batches (%zu kept)", dst->n);
    }
    return 0;
}

int mfb_team_join(struct mfb_run *r, int rc, struct mfb_samples *all, struct mfb_err *err)
{
    struct mfb_team *t = r->runtime.team;
    if (rc < 0)
        mfb_team_fail(t);
    /* A thread that was only told to stop says so; the thread that failed names the cause. */
    bool told = rc < 0 && !strcmp(err->msg, MFB_TEAM_STOPPED);
    for (int k = 1; t->members && k < t->n; k++) {
        struct mfb_member *m = &t->members[k];
        if (m->started)
            pthread_join(m->tid, NULL);
        m->started = false;
        if (m->rc < 0 && (rc == 0 || told) && strcmp(m->err.msg, MFB_TEAM_STOPPED) != 0) {
            *err = m->err;
            rc = -1;
            told = false;
        }
    }
    /* thread 0's batches beside the others first, in the order they ran, as in a one-thread
     * file; then its alone batches; then each other thread's */
    if (rc == 0 && all) {
        rc = append(all, &r->res.samples, 0, 0, err);
        if (rc == 0)
            rc = append(all, &t->alone_samples, 0, 1, err);
        for (int k = 1; rc == 0 && k < t->n; k++)
            rc = append(all, &t->members[k].run.res.samples, k, 0, err);
    }
    return rc;
}

void mfb_team_free(struct mfb_team *t)
{
    if (!t)
        return;
    mfb_team_fail(t); /* threads still waiting (thread 0 failed before joining) leave */
    for (int k = 1; t->members && k < t->n; k++) {
        struct mfb_member *m = &t->members[k];
        if (m->started)
            pthread_join(m->tid, NULL);
        mfb_counters_close(&m->run.runtime.counters);
        mfb_samples_free(&m->run.res.samples);
        mfb_workset_free(&m->ws);
    }
    free(t->members);
    t->members = NULL;
    mfb_samples_free(&t->alone_samples);
}
