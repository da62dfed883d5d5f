#include "orchestrate/cpus.h"

#include "study/options.h"

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

/* One CPU of option opt of command cmd: present, online, allowed. */
static int check_cpu(const char *cmd, const char *opt, int cpu, const cpu_set_t *allowed, struct mfb_err *err)
{
    char list[256];
    if (!in_sysfs_list("/sys/devices/system/cpu/present", cpu, list, sizeof list))
        return mfb_fail(err, "%s: %s: CPU %d does not exist on this machine (CPUs %s)", cmd, opt, cpu, list);
    if (!in_sysfs_list("/sys/devices/system/cpu/online", cpu, list, sizeof list))
        return mfb_fail(err, "%s: %s: CPU %d is offline (online: %s)", cmd, opt, cpu, list);
    if (cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, allowed))
        return mfb_fail(err, "%s: %s: CPU %d is not one this process may run on (its affinity, "
                             "e.g. taskset or a cgroup, excludes it)", cmd, opt, cpu);
    return 0;
}

/* A parsed CPU list of option opt of command cmd, in its order, each CPU checked, into out[0..*n)
 * (at most max of them). */
static int check_list(const char *cmd, const char *opt, const struct mfb_cpu_list *l, int *out, int max, int *n,
                      const cpu_set_t *allowed, struct mfb_err *err)
{
    if (l->n > max)
        return mfb_fail(err, "%s: %s: more than %d CPUs", cmd, opt, max);
    for (int i = 0; i < l->n; i++) {
        if (check_cpu(cmd, opt, l->cpu[i], allowed, err) < 0)
            return -1;
        out[i] = l->cpu[i];
    }
    *n = l->n;
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

int mfb_cpus_threads(const struct mfb_cpu_request *q, int default_cpu, int *cpus, int *n, struct mfb_err *err)
{
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0)
        return mfb_fail(err, "%s: cannot read the CPU affinity", q->cmd);
    if (q->list && q->list->n) {
        if (check_list(q->cmd, "--cpus", q->list, cpus, q->max, n, &allowed, err) < 0)
            return -1;
        if (q->threads && q->threads != *n)
            return mfb_fail(err, "%s: --threads %ld but --cpus lists %d CPU%s (one thread per CPU)", q->cmd,
                            q->threads, *n, *n == 1 ? "" : "s");
        if (q->cpu_given && q->cpu >= 0 && q->cpu != cpus[0])
            return mfb_fail(err, "%s: --cpu %d is not the first CPU of --cpus (%d), thread 0's: give one of them",
                            q->cmd, q->cpu, cpus[0]);
        return 0;
    }
    int want = q->threads ? (int)q->threads : 1, first = q->cpu_given ? q->cpu : default_cpu;
    if (q->cpu_given && first >= 0 && check_cpu(q->cmd, "--cpu", first, &allowed, err) < 0)
        return -1;
    if (want > q->max)
        return mfb_fail(err, "%s: --threads %d: at most %d", q->cmd, want, q->max);
    cpus[0] = first;
    *n = 1;
    /* thread 0 on the given CPU; the others on the other allowed CPUs, highest first (CPU 0,
     * which usually takes more interrupts, last) */
    for (int i = CPU_SETSIZE - 1; i >= 0 && *n < want; i--)
        if (CPU_ISSET(i, &allowed) && i != first)
            cpus[(*n)++] = i;
    if (*n < want)
        return mfb_fail(err, "%s: --threads %d: this process may run on %d CPU%s only (one thread per CPU)", q->cmd,
                        want, *n, *n == 1 ? "" : "s");
    if (want > 1 && first < 0)
        return mfb_fail(err, "%s: --threads: threads are pinned, and no CPU could be read", q->cmd);
    return 0;
}

static int plan_background(const struct mfb_study *c, const cpu_set_t *allowed, struct mfb_cpu_plan *p,
                           struct mfb_err *err)
{
    p->nbackground = 0;
    if (!c->background)
        return 0;
    if (c->background_cpus.n) {
        if (check_list("memfbench run", "--background-cpus", &c->background_cpus, p->background, MFB_MAX_BACKGROUND,
                       &p->nbackground, allowed, err) < 0)
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
                             "allowed CPU): time fewer threads%s", mfb_choice_name(MFB_SET_STRESSOR, c->background),
                        c->cpus.n ? ", or list fewer --cpus" : ", or list --cpus");
    return 0;
}

int mfb_cpus_plan(const struct mfb_study *c, int default_cpu, struct mfb_cpu_plan *p, struct mfb_err *err)
{
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0)
        return mfb_fail(err, "memfbench run: cannot read the CPU affinity");
    *p = (struct mfb_cpu_plan){0};
    struct mfb_cpu_request q = {.cmd = "memfbench run", .list = &c->cpus, .threads = c->threads, .cpu = c->cpu,
                                .cpu_given = c->cpu_given, .max = MFB_MAX_THREADS};
    if (mfb_cpus_threads(&q, default_cpu, p->cpus, &p->threads, err) < 0 || plan_background(c, &allowed, p, err) < 0)
        return -1;
    return 0;
}

int mfb_cpus_plan_study(struct mfb_study *c, struct mfb_cpu_plan *p, struct mfb_err *err)
{
    if (mfb_study_check(c, 1, err) < 0 || mfb_cpus_plan(c, mfb_cpus_last_allowed(), p, err) < 0)
        return -1;
    if (p->threads > 1 && mfb_study_check(c, p->threads, err) < 0)
        return -1;
    if (c->cpus.n)
        c->cpu = p->cpus[0];
    else if (!c->cpu_given)
        c->cpu = mfb_cpus_last_allowed();
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
