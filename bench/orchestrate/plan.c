#include "orchestrate/plan.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "base/meminfo.h"
#include "base/warn.h"

/* Default CPU: the last one this process may run on (CPU 0 usually takes more interrupts);
 * --cpus: its first. */
int mfb_plan_pin(const struct mfb_study *c, struct mfb_err *err)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return mfb_fail(err, "cannot read the CPU affinity");
    if (c->cpu < 0)
        return 0;
    if (c->cpu >= CPU_SETSIZE || !CPU_ISSET(c->cpu, &set))
        return mfb_fail(err, "--cpu: CPU %d is not one this process may run on", c->cpu);
    CPU_ZERO(&set);
    CPU_SET(c->cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0)
        return mfb_fail(err, "--cpu: cannot pin to CPU %d", c->cpu);
    return 0;
}

/* --threads: the team's CPUs and where they sit (recorded for one thread too); a note when two
 * timing threads share a core. */
int mfb_plan_team(struct mfb_run *r, const struct mfb_study *c, const struct mfb_cpu_plan *plan,
                  struct mfb_err *err)
{
    if (c->cpu < 0)
        return 0;
    if (!(r->runtime.team = calloc(1, sizeof *r->runtime.team)))
        return mfb_fail(err, "out of memory planning the timing threads");
    r->runtime.team->n = plan->threads;
    for (int k = 0; k < plan->threads; k++)
        mfb_cpus_place(k ? plan->cpus[k] : c->cpu, &r->runtime.team->place[k]);
    for (int a = 0; a < plan->threads; a++)
        for (int b = a + 1; b < plan->threads; b++)
            if (mfb_team_same_core(r->runtime.team, a, b))
                mfb_warn(r->runtime.warn, MFB_W_THREADS,
                         "threads %d and %d are SMT siblings (CPUs %d and %d share core %d)", a, b, plan->cpus[a],
                         plan->cpus[b], r->runtime.team->place[a].core);
    return 0;
}

/* --background: the stressor's CPUs and buffers. */
void mfb_plan_background(struct mfb_background *b, const struct mfb_study *c, const struct mfb_cpu_plan *plan,
                         const struct mfb_caches *caches)
{
    b->kind = c->background;
    b->n = plan->nbackground;
    memcpy(b->cpus, plan->background, (size_t)plan->nbackground * sizeof b->cpus[0]);
    b->buffer_bytes = c->background == MFB_STRESS_BANDWIDTH ? mfb_background_buffer(caches) : 0;
}

/* Every timing thread faults in a working set of its own, and every bandwidth stressor two
 * buffers: refused before any is allocated when together they exceed what the kernel says is
 * available, rather than meeting the OOM killer halfway. */
int mfb_plan_check_memory(const struct mfb_study *c, const struct mfb_cpu_plan *plan, const struct mfb_workset *ws,
                          const struct mfb_caches *caches, struct mfb_err *err)
{
    long long avail = mfb_mem_available();
    double mib = 1024.0 * 1024.0;
    double sets = (double)plan->threads * (double)ws->arena_size;
    double stress = c->background == MFB_STRESS_BANDWIDTH ? 2.0 * (double)plan->nbackground *
                                                            (double)mfb_background_buffer(caches) : 0;
    if (avail < 0 || sets + stress <= (double)avail)
        return 0;
    return mfb_fail(err, "%d working set%s of %.0f MiB%s need %.0f MiB, more than the %.0f MiB available "
                         "(MemAvailable). Fix: fewer --threads%s, or a distribution of smaller calls", plan->threads,
                    plan->threads == 1 ? "" : "s", (double)ws->arena_size / mib,
                    stress > 0 ? " and the bandwidth stressors' buffers" : "", (sets + stress) / mib, (double)avail / mib,
                    stress > 0 ? " or stressor CPUs" : "");
}
