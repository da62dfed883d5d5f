/* The --background stressors: one pinned thread per CPU, started before the rounds and stopped
 * after them; their work is counted so the file shows the neighbour was really busy. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "machine/background.h"
#include "machine/timer.h"

/* The bandwidth stressor copies this much per memcpy call between its checks of the stop flag:
 * large enough that the call is a streaming copy, small enough to stop within a millisecond. */
#define STRESS_CHUNK (1u << 20)
/* Each buffer holds at least this, and twice the LLC, so the copies stream from memory. */
#define STRESS_MIN_BUFFER (64u << 20)
#define STRESS_MAX_BUFFER (1ull << 30)
/* The spin stressor's adds between its checks of the stop flag. */
#define SPIN_ADDS 4096

struct mfb_stress_thread {
    pthread_t tid;
    bool started;
    struct mfb_background *b;
    int cpu;
    uint8_t *buf;                 /* bandwidth: source then destination */
    _Atomic int ready;            /* 1 running, -1 failed */
    uint64_t loops, bytes;
    char why[160];
};

void mfb_async_signals(sigset_t *set)
{
    sigemptyset(set);
    const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGALRM, SIGPIPE, SIGQUIT, SIGUSR1, SIGUSR2};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaddset(set, sigs[i]);
}

size_t mfb_background_buffer(const struct mfb_caches *c)
{
    uint64_t b = 2 * (uint64_t)c->llc;
    if (b < STRESS_MIN_BUFFER)
        b = STRESS_MIN_BUFFER;
    if (b > STRESS_MAX_BUFFER)
        b = STRESS_MAX_BUFFER;
    return (size_t)(b / STRESS_CHUNK * STRESS_CHUNK);
}

static void bandwidth(struct mfb_stress_thread *t)
{
    size_t n = t->b->buffer_bytes;
    uint8_t *src = t->buf, *dst = t->buf + n;
    while (!atomic_load_explicit(&t->b->stop, memory_order_relaxed))
        for (size_t off = 0; off < n && !atomic_load_explicit(&t->b->stop, memory_order_relaxed); off += STRESS_CHUNK) {
            memcpy(dst + off, src + off, STRESS_CHUNK);
            /* the copy must happen: the compiler may not drop a copy into memory nobody reads */
            __asm__ volatile("" : : "r"(dst + off) : "memory");
            t->bytes += STRESS_CHUNK;
            t->loops++;
        }
}

static void spin(struct mfb_stress_thread *t)
{
    uint64_t x = 1;
    while (!atomic_load_explicit(&t->b->stop, memory_order_relaxed)) {
        for (int i = 0; i < SPIN_ADDS; i++) {
            x += (uint64_t)i;
            __asm__ volatile("" : "+r"(x)); /* keeps every add, each waiting for the previous */
        }
        t->loops++;
    }
}

static void *stress_main(void *arg)
{
    struct mfb_stress_thread *t = arg;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(t->cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) {
        snprintf(t->why, sizeof t->why, "--background: cannot pin a stressor to CPU %d: %s", t->cpu, strerror(errno));
        atomic_store(&t->ready, -1);
        return NULL;
    }
    if (t->b->kind == MFB_STRESS_BANDWIDTH) {
        /* mapped and faulted from the stressor's CPU; 2 buffers */
        void *p = mmap(NULL, 2 * t->b->buffer_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
                       -1, 0);
        if (p == MAP_FAILED) {
            snprintf(t->why, sizeof t->why, "--background bandwidth: cannot map 2 x %zu bytes on CPU %d: %s",
                     t->b->buffer_bytes, t->cpu, strerror(errno));
            atomic_store(&t->ready, -1);
            return NULL;
        }
        t->buf = p;
        memset(t->buf, 0x5a, t->b->buffer_bytes); /* a source of real pages, not the zero page */
    }
    atomic_store(&t->ready, 1);
    if (t->b->kind == MFB_STRESS_BANDWIDTH)
        bandwidth(t);
    else
        spin(t);
    return NULL;
}

int mfb_background_start(struct mfb_background *b, struct mfb_err *err)
{
    atomic_store(&b->stop, false);
    if (!(b->threads = calloc((size_t)b->n, sizeof *b->threads)))
        return mfb_fail(err, "out of memory starting --background");
    /* the stressors take no asynchronous signal: Ctrl-C stays the rounds' */
    sigset_t all, old;
    mfb_async_signals(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    int rc = 0;
    for (int i = 0; i < b->n && rc == 0; i++) {
        struct mfb_stress_thread *t = &b->threads[i];
        *t = (struct mfb_stress_thread){.b = b, .cpu = b->cpus[i]};
        int e = pthread_create(&t->tid, NULL, stress_main, t);
        if (e != 0)
            rc = mfb_fail(err, "--background: cannot start a stressor thread: %s", strerror(e));
        t->started = e == 0;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    struct timespec nap = {0, 1000000};
    for (int i = 0; i < b->n && rc == 0; i++) {
        struct mfb_stress_thread *t = &b->threads[i];
        int ready = 0;
        while (t->started && (ready = atomic_load(&t->ready)) == 0)
            nanosleep(&nap, NULL);
        if (t->started && ready < 0)
            rc = mfb_fail(err, "%s", t->why);
    }
    b->start_ns = mfb_mono_ns();
    if (rc < 0)
        mfb_background_stop(b);
    return rc;
}

void mfb_background_stop(struct mfb_background *b)
{
    if (!b->threads)
        return;
    atomic_store(&b->stop, true);
    b->seconds = (double)(mfb_mono_ns() - b->start_ns) / 1e9;
    b->loops = b->bytes = 0;
    for (int i = 0; i < b->n; i++) {
        struct mfb_stress_thread *t = &b->threads[i];
        if (t->started)
            pthread_join(t->tid, NULL);
        b->loops += t->loops;
        b->bytes += t->bytes;
        if (t->buf)
            munmap(t->buf, 2 * b->buffer_bytes);
    }
    free(b->threads);
    b->threads = NULL;
}
