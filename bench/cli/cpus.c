#include "cli/cpus.h"

#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/parse.h"

/* A sysfs file's first line, without its newline; false when it cannot be read. */
static bool read_line(const char *path, char *buf, size_t n)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    bool ok = fgets(buf, (int)n, f) != NULL;
    fclose(f);
    if (ok)
        buf[strcspn(buf, "\n")] = '\0';
    return ok;
}

/* Whether cpu is in the sysfs CPU list at path; true when the file cannot be read (nothing to
 * contradict sched_getaffinity, which is checked anyway). A CPU beyond what the list is read up
 * to is in no list. */
static bool in_sysfs_list(const char *path, int cpu, char *list, size_t n)
{
    enum { LISTABLE = 4 * CPU_SETSIZE };
    bool listed[LISTABLE] = {0};
    if (!read_line(path, list, n) || mfb_parse_cpu_list(list, listed, LISTABLE) < 0)
        return true;
    return cpu < LISTABLE && listed[cpu];
}

/* One CPU of option opt: present, online, allowed. */
static int check_cpu(const char *opt, int cpu, const cpu_set_t *allowed, struct mfb_err *err)
{
    char list[256];
    if (!in_sysfs_list("/sys/devices/system/cpu/present", cpu, list, sizeof list))
        return mfb_fail(err, "memfbench run: %s: CPU %d does not exist on this machine (CPUs %s)", opt, cpu, list);
    if (!in_sysfs_list("/sys/devices/system/cpu/online", cpu, list, sizeof list))
        return mfb_fail(err, "memfbench run: %s: CPU %d is offline (online: %s)", opt, cpu, list);
    if (cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, allowed))
        return mfb_fail(err, "memfbench run: %s: CPU %d is not one this process may run on (its affinity, "
                             "e.g. taskset or a cgroup, excludes it)", opt, cpu);
    return 0;
}

/* A CPU list of option opt, in its order, each CPU checked. */
static int parse_list(const char *opt, const char *s, int *out, int max, int *n, const cpu_set_t *allowed,
                      struct mfb_err *err)
{
    size_t got = 0;
    int repeated = -1;
    switch (mfb_parse_cpu_order(s, out, (size_t)max, &got, &repeated)) {
    case -1:
        return mfb_fail(err, "memfbench run: %s: '%s' is not a CPU list such as 1,0 or 0-3", opt, s);
    case -2:
        return mfb_fail(err, "memfbench run: %s: more than %d CPUs", opt, max);
    case -3:
        return mfb_fail(err, "memfbench run: %s: CPU %d is listed twice (one thread per CPU)", opt, repeated);
    case -4:
        return mfb_fail(err, "memfbench run: %s: '%s' names a CPU beyond any machine's (CPU numbers stay below %d)",
                        opt, s, MFB_CPU_NUMBER_LIMIT);
    default:
        break;
    }
    for (size_t i = 0; i < got; i++)
        if (check_cpu(opt, out[i], allowed, err) < 0)
            return -1;
    *n = (int)got;
    return 0;
}

static bool listed(const int *cpus, int n, int cpu)
{
    for (int i = 0; i < n; i++)
        if (cpus[i] == cpu)
            return true;
    return false;
}

int mfb_cpus_last_allowed(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return -1;
    for (int i = CPU_SETSIZE - 1; i >= 0; i--)
        if (CPU_ISSET(i, &set))
            return i;
    return -1;
}

static int plan_threads(const struct mfb_study *c, int first, const cpu_set_t *allowed, struct mfb_cpu_plan *p,
                        struct mfb_err *err)
{
    if (c->cpus) {
        if (parse_list("--cpus", c->cpus, p->cpus, MFB_MAX_THREADS, &p->threads, allowed, err) < 0)
            return -1;
        if (c->threads && c->threads != p->threads)
            return mfb_fail(err, "memfbench run: --threads %ld but --cpus lists %d CPU%s (one thread per CPU)",
                            c->threads, p->threads, p->threads == 1 ? "" : "s");
        if (c->cpu_given && c->cpu >= 0 && c->cpu != p->cpus[0])
            return mfb_fail(err, "memfbench run: --cpu %d is not the first CPU of --cpus (%d), thread 0's: give one "
                                 "of them", c->cpu, p->cpus[0]);
        return 0;
    }
    p->threads = c->threads ? (int)c->threads : 1;
    if (c->cpu_given && first >= 0 && check_cpu("--cpu", first, allowed, err) < 0)
        return -1;
    p->cpus[0] = first;
    int n = 1;
    /* thread 0 on the run's CPU; the others on the other allowed CPUs, highest first (CPU 0,
     * which usually takes more interrupts, last) */
    for (int i = CPU_SETSIZE - 1; i >= 0 && n < p->threads; i--)
        if (CPU_ISSET(i, allowed) && i != first)
            p->cpus[n++] = i;
    if (n < p->threads)
        return mfb_fail(err, "memfbench run: --threads %d: this process may run on %d CPU%s only (one thread per "
                             "CPU)", p->threads, n, n == 1 ? "" : "s");
    return 0;
}

static int plan_background(const struct mfb_study *c, const cpu_set_t *allowed, struct mfb_cpu_plan *p,
                           struct mfb_err *err)
{
    p->nbackground = 0;
    if (!c->background)
        return 0;
    if (c->background_cpus) {
        if (parse_list("--background-cpus", c->background_cpus, p->background, MFB_MAX_BACKGROUND, &p->nbackground,
                       allowed, err) < 0)
            return -1;
        for (int i = 0; i < p->nbackground; i++)
            if (listed(p->cpus, p->threads, p->background[i]))
                return mfb_fail(err, "memfbench run: --background-cpus: CPU %d is a timing thread's: a stressor "
                                     "needs a CPU of its own", p->background[i]);
        return 0;
    }
    for (int i = 0; i < CPU_SETSIZE && p->nbackground < MFB_MAX_BACKGROUND; i++)
        if (CPU_ISSET(i, allowed) && !listed(p->cpus, p->threads, i))
            p->background[p->nbackground++] = i;
    if (p->nbackground == 0)
        return mfb_fail(err, "memfbench run: --background %s: no CPU is left for it (the timing threads use every "
                             "allowed CPU): time fewer threads%s", mfb_stressor_name(c->background),
                        c->cpus ? ", or list fewer --cpus" : ", or list --cpus");
    return 0;
}

int mfb_cpus_plan(const struct mfb_study *c, int default_cpu, struct mfb_cpu_plan *p, struct mfb_err *err)
{
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0)
        return mfb_fail(err, "memfbench run: cannot read the CPU affinity");
    *p = (struct mfb_cpu_plan){0};
    int first = c->cpu_given ? c->cpu : default_cpu;
    if (plan_threads(c, first, &allowed, p, err) < 0 || plan_background(c, &allowed, p, err) < 0)
        return -1;
    if (p->threads > 1 && p->cpus[0] < 0)
        return mfb_fail(err, "memfbench run: --threads: timing threads are pinned, and no CPU could be read");
    return 0;
}

void mfb_cpus_place(int cpu, struct mfb_thread_place *out)
{
    char path[128], buf[64];
    *out = (struct mfb_thread_place){.cpu = cpu, .core = -1, .package = -1};
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/core_id", cpu);
    if (read_line(path, buf, sizeof buf))
        out->core = atoi(buf);
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/physical_package_id", cpu);
    if (read_line(path, buf, sizeof buf))
        out->package = atoi(buf);
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", cpu);
    if (!read_line(path, out->siblings, sizeof out->siblings))
        out->siblings[0] = '\0';
}
