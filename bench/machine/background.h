/* --background NAME: a stressor on CPUs no timing thread uses, running from just before the
 * rounds to just after them, so the timed threads are measured beside a known neighbour. */
#ifndef MFB_BACKGROUND_H
#define MFB_BACKGROUND_H

#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "machine/cache.h"
#include "study/study.h"


/* The signals a helper thread (a stressor, a timing thread) blocks: those sent to the process
 * (interrupt, terminate, hang-up, the guard's watchdog alarm, a broken pipe), never the faults its
 * own code raises, which the guard must see in the thread that raised them. */
void mfb_async_signals(sigset_t *set);

struct mfb_stress_thread;

struct mfb_background {
    enum mfb_stressor kind;
    int n;
    int cpus[MFB_MAX_BACKGROUND];
    size_t buffer_bytes;            /* bandwidth: each of its two buffers, per thread */
    _Atomic bool stop;
    uint64_t start_ns;
    double seconds;                 /* from the stressors' start to their stop */
    uint64_t loops, bytes;          /* over every stressor thread */
    struct mfb_stress_thread *threads;
};

/* The buffer size of the bandwidth stressor for these caches: 2 x LLC, at least 64 MiB. */
size_t mfb_background_buffer(const struct mfb_caches *c);
/* Starts one stressor thread pinned to each of b->cpus (kind, n, cpus and buffer_bytes set);
 * returns once every one has its buffers and runs. */
int mfb_background_start(struct mfb_background *b, struct mfb_err *err);
/* Stops and joins them, and totals their work. */
void mfb_background_stop(struct mfb_background *b);

#endif
