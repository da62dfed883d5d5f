/* --threads N: N timing threads, each pinned to its CPU, each replaying the distribution with its
 * own buffers and calls (its own working set and seed), all timing the same variant at the same
 * time. Thread 0 is the run's own (struct mfb_run); the others are copies of it made after the
 * preparation, so every thread times the batch shape calibrated once. Thread 0 decides the
 * warm-up and when to stop, and the others follow at the end of every round.
 *
 * Every timed batch starts together: each thread primes its own batch, then waits at a spinning
 * barrier, so the batches overlap from their first call (a sleeping barrier would wake threads
 * tens of microseconds apart, a large part of a batch). With N > 1, thread 0 also times each
 * variant alone once per round while the others sleep: the paired reference its slowdown beside
 * the other threads (interference) is measured against, in the same round. */
#ifndef MFB_TEAM_H
#define MFB_TEAM_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/error.h"
#include "measure/samples.h"
#include "study/study.h"


/* Where a timing thread runs, from sysfs (-1, "": unknown). */
struct mfb_thread_place {
    int cpu;
    int core, package;
    char siblings[64]; /* thread_siblings_list: the CPUs of its core */
};

/* How a thread waits at the barrier. */
enum mfb_team_wait_mode {
    MFB_WAIT_SPIN,  /* before a batch timed together: every thread leaves within a few cycles */
    MFB_WAIT_SLEEP  /* while thread 0 times alone: its neighbours leave the core nearly idle */
};

struct mfb_member;

struct mfb_team {
    int n;                                        /* timing threads */
    struct mfb_thread_place place[MFB_MAX_THREADS];
    uint64_t seed;                                /* the run's master seed: one variant order for all */
    uint64_t origin_tick;                         /* every thread's t_start_ns counts from here: thread 0
                                                   * takes it as its rounds begin, the others read it
                                                   * after the first barrier */
    /* the barrier: the last thread to arrive starts the next generation */
    _Atomic uint32_t arrived, generation;
    _Atomic bool failed;                          /* a thread stopped with an error: everyone stops */
    _Atomic bool go;                              /* every thread is set up and origin_tick is taken */
    /* thread 0's decisions after each round, read by the others after the round's barrier */
    int stop_reason;
    bool warming;
    /* thread 0's stop request, written before the first barrier of each alone batch and read by
     * every thread after it: the one point where all threads abandon a round together */
    bool abandon;
    struct mfb_samples alone_samples;             /* thread 0's batches timed alone */
    struct mfb_member *members;                   /* threads 1..n-1 */
};

/* What a thread's error says when another thread's failure stopped it. */
#define MFB_TEAM_STOPPED "a timing thread stopped with an error"

/* Waits until every thread has arrived; -1 when a thread failed (then nobody waits again). */
int mfb_team_wait(struct mfb_team *t, enum mfb_team_wait_mode mode);
/* A thread stops with an error: the others leave their next wait with -1. */
void mfb_team_fail(struct mfb_team *t);
/* Whether two threads share a core (SMT siblings). */
bool mfb_team_same_core(const struct mfb_team *t, int a, int b);

#endif
