#include "machine/counters.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "machine/timer.h"

const char *mfb_counter_name(enum mfb_counter k)
{
    static const char *const names[] = {[MFB_COUNTER_CYCLES] = "cycles", [MFB_COUNTER_INSTRUCTIONS] = "instructions",
                                        [MFB_COUNTER_BRANCH_MISSES] = "branch_misses",
                                        [MFB_COUNTER_L1D_MISSES] = "l1d_misses"};
    return names[k];
}

/* The perf_event attributes of each counter. */
static void attr_of(enum mfb_counter k, struct perf_event_attr *a)
{
    memset(a, 0, sizeof *a);
    a->size = sizeof *a;
    a->type = PERF_TYPE_HARDWARE;
    switch (k) {
    case MFB_COUNTER_CYCLES:
        a->config = PERF_COUNT_HW_CPU_CYCLES;
        break;
    case MFB_COUNTER_INSTRUCTIONS:
        a->config = PERF_COUNT_HW_INSTRUCTIONS;
        break;
    case MFB_COUNTER_BRANCH_MISSES:
        a->config = PERF_COUNT_HW_BRANCH_MISSES;
        break;
    case MFB_COUNTER_L1D_MISSES:
    case MFB_COUNTER_COUNT:
        a->type = PERF_TYPE_HW_CACHE;
        a->config = PERF_COUNT_HW_CACHE_L1D | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
                    ((uint64_t)PERF_COUNT_HW_CACHE_RESULT_MISS << 16);
        break;
    }
    /* The code under test and the loop, not the kernel's work on their behalf (page faults are
     * done before timing), and readable without privileges where perf_event_paranoid <= 2. */
    a->exclude_kernel = 1;
    a->exclude_hv = 1;
    /* with the group's enabled and running times: a group the kernel multiplexed with other
     * perf users, or never scheduled (a core of another PMU type), counted only part of a batch */
    a->read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
}

static int open_event(struct perf_event_attr *a, int group)
{
    return (int)syscall(SYS_perf_event_open, a, 0 /* this thread */, -1 /* any CPU */, group, 0);
}

void mfb_counters_open(struct mfb_counters *c, enum mfb_counters_mode mode)
{
    memset(c, 0, sizeof *c);
    c->mode = mode;
    c->source = "none";
    for (int k = 0; k < MFB_COUNTER_COUNT; k++)
        c->fd[k] = -1;
    if (mode == MFB_COUNTERS_OFF)
        return;
    if (mode == MFB_COUNTERS_FAKE) {
        c->active = true;
        c->source = "fake";
        for (int k = 0; k < MFB_COUNTER_COUNT; k++)
            c->have[k] = true;
        return;
    }
    struct perf_event_attr a;
    attr_of(MFB_COUNTER_CYCLES, &a);
    int leader = open_event(&a, -1);
    if (leader < 0) {
        int e = errno;
        snprintf(c->why, sizeof c->why, "perf_event_open(cycles): %s%s", strerror(e),
                 e == ENOENT || e == EOPNOTSUPP ? " (no hardware PMU here; VMs often have none)"
                 : e == EACCES || e == EPERM ? " (see /proc/sys/kernel/perf_event_paranoid)" : "");
        return;
    }
    c->fd[MFB_COUNTER_CYCLES] = leader;
    c->have[MFB_COUNTER_CYCLES] = true;
    c->order[c->nopen++] = MFB_COUNTER_CYCLES;
    for (int k = MFB_COUNTER_CYCLES + 1; k < MFB_COUNTER_COUNT; k++) {
        attr_of((enum mfb_counter)k, &a);
        int fd = open_event(&a, leader);
        if (fd < 0)
            continue; /* a PMU without this event: the others are still counted */
        c->fd[k] = fd;
        c->have[k] = true;
        c->order[c->nopen++] = (enum mfb_counter)k;
    }
    c->active = true;
    c->source = "perf_event_open";
}

bool mfb_counters_read(const struct mfb_counters *c, struct mfb_counts *out)
{
    memset(out, 0, sizeof *out);
    if (!c->active)
        return false;
    if (c->mode == MFB_COUNTERS_FAKE) {
        double ns = (double)mfb_mono_ns();
        double cycles = ns * MFB_FAKE_CYCLES_PER_NS;
        out->v[MFB_COUNTER_CYCLES] = (uint64_t)cycles;
        out->v[MFB_COUNTER_INSTRUCTIONS] = (uint64_t)(cycles * MFB_FAKE_IPC);
        out->v[MFB_COUNTER_BRANCH_MISSES] = (uint64_t)(ns / 100);
        out->v[MFB_COUNTER_L1D_MISSES] = (uint64_t)(ns / 10);
        out->enabled = out->running = (uint64_t)ns;
        return true;
    }
    /* PERF_FORMAT_GROUP with both times: the number of members, time enabled, time running, then
     * each member's value in the order opened */
    uint64_t buf[3 + MFB_COUNTER_COUNT];
    ssize_t got = read(c->fd[MFB_COUNTER_CYCLES], buf, sizeof buf);
    if (got < (ssize_t)(3 * sizeof(uint64_t)) || buf[0] != (uint64_t)c->nopen ||
        got < (ssize_t)((3 + buf[0]) * sizeof(uint64_t)))
        return false;
    out->enabled = buf[1];
    out->running = buf[2];
    for (int i = 0; i < c->nopen; i++)
        out->v[c->order[i]] = buf[3 + i];
    return true;
}

void mfb_counters_delta(const struct mfb_counters *c, bool ok0, const struct mfb_counts *a, bool ok1,
                        const struct mfb_counts *b, int64_t d[MFB_COUNTER_COUNT])
{
    /* a batch counted only in part (multiplexed, or a read that failed) is not counted at all */
    bool whole = ok0 && ok1 && b->enabled - a->enabled == b->running - a->running;
    for (int k = 0; k < MFB_COUNTER_COUNT; k++)
        d[k] = whole && c->have[k] && b->v[k] >= a->v[k] ? (int64_t)(b->v[k] - a->v[k]) : -1;
}

void mfb_counters_close(struct mfb_counters *c)
{
    /* only what mfb_counters_open opened: a zeroed struct (a run that failed before opening)
     * holds no descriptor, and its zeros are not descriptor 0 */
    for (int i = 0; i < c->nopen; i++)
        close(c->fd[c->order[i]]);
    for (int k = 0; k < MFB_COUNTER_COUNT; k++)
        c->fd[k] = -1;
    c->nopen = 0;
    c->active = false;
}
