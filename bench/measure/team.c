/* The barrier every timing thread meets at, and where the threads run: the team's own
 * primitives, which know nothing of a run (the threads themselves: measure/members.c). */
#include "measure/team.h"

#include <time.h>

#include "base/parse.h"

/* A waiting neighbour of the alone batch polls this often: rarely enough to leave its core
 * idle, often enough that the next batch is not held up by more than a small part of itself. */
#define SLEEP_POLL_NS 20000

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield");
#endif
}

int mfb_team_wait(struct mfb_team *t, enum mfb_team_wait_mode mode)
{
    uint32_t gen = atomic_load_explicit(&t->generation, memory_order_acquire);
    if (atomic_load_explicit(&t->failed, memory_order_acquire))
        return -1;
    if (atomic_fetch_add_explicit(&t->arrived, 1, memory_order_acq_rel) + 1 == (uint32_t)t->n) {
        atomic_store_explicit(&t->arrived, 0, memory_order_relaxed);
        atomic_fetch_add_explicit(&t->generation, 1, memory_order_release);
        return 0;
    }
    struct timespec nap = {0, SLEEP_POLL_NS};
    while (atomic_load_explicit(&t->generation, memory_order_acquire) == gen) {
        if (atomic_load_explicit(&t->failed, memory_order_acquire))
            return -1;
        if (mode == MFB_WAIT_SLEEP)
            nanosleep(&nap, NULL);
        else
            cpu_relax();
    }
    return 0;
}

void mfb_team_fail(struct mfb_team *t)
{
    atomic_store_explicit(&t->failed, true, memory_order_release);
}

/* CPU numbers a sibling list is read up to (the kernel's default CPU_SETSIZE). */
enum { SIBLING_CPUS = 1024 };

bool mfb_team_same_core(const struct mfb_team *t, int a, int b)
{
    const struct mfb_thread_place *x = &t->place[a], *y = &t->place[b];
    /* thread_siblings_list names the core's CPUs directly; core_id is unique only within a
     * package, and some platforms number it oddly */
    bool listed[SIBLING_CPUS] = {0};
    if (x->siblings[0] && mfb_parse_cpu_list(x->siblings, listed, SIBLING_CPUS) == 0)
        return y->cpu >= 0 && y->cpu < SIBLING_CPUS && listed[y->cpu];
    return x->core >= 0 && x->core == y->core && x->package == y->package;
}

