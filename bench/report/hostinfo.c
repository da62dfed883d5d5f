#include "report/hostinfo.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <stdbool.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "base/parse.h"
#include "machine/midr.h"

/* The first line of a file, or NULL when it cannot be read (not every kernel, container or
 * VM exposes every knob; "null" in the output means exactly that). */
static char *slurp_line(const char *path, char *buf, size_t n)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *ok = fgets(buf, (int)n, f);
    fclose(f);
    if (!ok)
        return NULL;
    buf[strcspn(buf, "\n")] = '\0';
    return buf;
}

/* A file's first line into t (unknown when it cannot be read). */
static void read_file_text(struct mfb_host_text *t, const char *path)
{
    t->known = slurp_line(path, t->text, sizeof t->text) != NULL;
    if (!t->known)
        t->text[0] = '\0';
}

/* "always [madvise] never" -> "madvise" */
static const char *bracketed(char *s)
{
    char *a = strchr(s, '['), *b = a ? strchr(a, ']') : NULL;
    if (!a || !b)
        return s;
    *b = '\0';
    return a + 1;
}

static char *cpuinfo_field(const char *key, char *buf, size_t n)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return NULL;
    char line[8192];
    char *res = NULL;
    size_t k = strlen(key);
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, key, k) == 0 && (line[k] == '\t' || line[k] == ' ' || line[k] == ':')) {
            char *colon = strchr(line, ':');
            if (!colon)
                continue;
            colon++;
            while (*colon == ' ')
                colon++;
            colon[strcspn(colon, "\n")] = '\0';
            snprintf(buf, n, "%s", colon);
            res = buf;
            break;
        }
    }
    fclose(f);
    return res;
}

void mfb_cpu_model(char *buf, size_t n)
{
    /* AArch64: MIDR_EL1 names the CPU (machine/midr.h); /proc/cpuinfo there has numbers only, and
     * under qemu-user it is the host's. */
    struct mfb_midr m;
    if (mfb_midr_read(&m)) {
        mfb_midr_name(&m, buf, n);
        return;
    }
    if (!cpuinfo_field("model name", buf, n) && !cpuinfo_field("CPU part", buf, n))
        snprintf(buf, n, "unknown");
}

/* The flags of mfb_host_flag_names the CPU has ("flags" on x86, "Features" on Arm). */
static uint32_t read_flags(void)
{
    char *flags = malloc(16384);
    uint32_t have = 0;
#if defined(__aarch64__)
    /* Arm's line only: under qemu-user /proc/cpuinfo is the x86 host's, whose flags are not this CPU's */
    bool found = flags && cpuinfo_field("Features", flags, 16384);
#else
    bool found = flags && (cpuinfo_field("flags", flags, 16384) || cpuinfo_field("Features", flags, 16384));
#endif
    if (found) {
        for (int i = 0; i < MFB_HOST_FLAGS; i++) {
            const char *name = mfb_host_flag_names[i];
            size_t k = strlen(name);
            for (char *p = strstr(flags, name); p; p = strstr(p + 1, name))
                if ((p == flags || p[-1] == ' ') && (p[k] == ' ' || p[k] == '\0')) {
                    have |= 1u << i;
                    break;
                }
        }
    }
    free(flags);
    return have;
}

/* Busy share of a CPU over `ms` from /proc/stat (user+nice+system+irq+softirq+steal over all). */
static double cpu_busy(int cpu, int ms)
{
    unsigned long long a[2][8] = {{0}};
    for (int pass = 0; pass < 2; pass++) {
        FILE *f = fopen("/proc/stat", "r");
        if (!f)
            return -1;
        char line[512], want[32];
        snprintf(want, sizeof want, "cpu%d ", cpu);
        while (fgets(line, sizeof line, f))
            if (!strncmp(line, want, strlen(want))) {
                sscanf(line + strlen(want), "%llu %llu %llu %llu %llu %llu %llu %llu", &a[pass][0], &a[pass][1],
                       &a[pass][2], &a[pass][3], &a[pass][4], &a[pass][5], &a[pass][6], &a[pass][7]);
                break;
            }
        fclose(f);
        if (pass == 0) {
            struct timespec ts = {0, (long)ms * 1000000L};
            nanosleep(&ts, NULL);
        }
    }
    unsigned long long total = 0, idle = 0;
    for (int i = 0; i < 8; i++)
        total += a[1][i] - a[0][i];
    idle = (a[1][3] - a[0][3]) + (a[1][4] - a[0][4]);
    return total ? (double)(total - idle) / (double)total : 0;
}

/* Whether this process may count cycles with perf_event_open: recorded for the reader. */
static void check_perf(struct mfb_host *h)
{
    struct perf_event_attr pe;
    memset(&pe, 0, sizeof pe);
    pe.type = PERF_TYPE_HARDWARE;
    pe.size = sizeof pe;
    pe.config = PERF_COUNT_HW_CPU_CYCLES;
    pe.disabled = 1;
    pe.exclude_kernel = 1;
    pe.exclude_hv = 1;
    long fd = syscall(SYS_perf_event_open, &pe, 0, -1, -1, 0);
    h->perf_cycles = fd >= 0;
    h->perf_error.known = fd < 0;
    snprintf(h->perf_error.text, sizeof h->perf_error.text, "%s", fd >= 0 ? "" : strerror(errno));
    if (fd >= 0)
        close((int)fd);
}

/* CPU numbers the topology lists are read up to (the kernel's default CPU_SETSIZE). */
#define MAX_CPUS 1024

static void check_environment(struct mfb_host *host, int cpu, struct mfb_warnings *w)
{
    char buf[512], path[256];
    int c = cpu < 0 ? 0 : cpu;
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor", c);
    if (slurp_line(path, buf, sizeof buf) && strcmp(buf, "performance") != 0)
        mfb_warn(w, MFB_W_GOVERNOR, "CPU %d frequency governor is '%s'", c, buf);
    if (slurp_line("/sys/devices/system/cpu/cpufreq/boost", buf, sizeof buf) && !strcmp(buf, "1"))
        mfb_warn(w, MFB_W_BOOST, "frequency boost is on");
    if (slurp_line("/sys/devices/system/cpu/intel_pstate/no_turbo", buf, sizeof buf) && !strcmp(buf, "0"))
        mfb_warn(w, MFB_W_BOOST, "Turbo Boost is on");
    if (slurp_line("/sys/devices/system/cpu/smt/active", buf, sizeof buf) && !strcmp(buf, "1"))
        mfb_warn(w, MFB_W_SMT, "SMT is active");
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", c);
    if (slurp_line(path, buf, sizeof buf)) {
        host->have_siblings = true;
        bool listed[MAX_CPUS] = {0};
        if (mfb_parse_cpu_list(buf, listed, MAX_CPUS) < 0)
            mfb_warn(w, MFB_W_SMT, "SMT siblings unknown (%s: cannot read the CPU list '%s')", path, buf);
        for (int s = 0; s < MAX_CPUS; s++) {
            if (!listed[s] || s == c)
                continue;
            double busy = cpu_busy(s, 200);
            if (host->nsiblings < MFB_HOST_SIBLINGS) {
                host->sibling[host->nsiblings].cpu = s;
                host->sibling[host->nsiblings++].busy = busy;
            }
            if (busy > 0.1)
                mfb_warn(w, MFB_W_SMT_BUSY, "SMT sibling CPU %d of CPU %d was %.0f %% busy", s, c, 100 * busy);
        }
    }
    check_perf(host);
    if (cpu >= 0) {
        bool listed[MAX_CPUS] = {0};
        /* An empty file means no CPU is isolated. */
        bool isolated = slurp_line("/sys/devices/system/cpu/isolated", buf, sizeof buf) && buf[0] &&
                        mfb_parse_cpu_list(buf, listed, MAX_CPUS) == 0 && cpu < MAX_CPUS && listed[cpu];
        host->have_isolated = true;
        host->cpu_isolated = isolated;
        /* In a virtual machine the host schedules its own work on the vCPU whatever the guest
         * isolates: context, not something to fix here. */
        if (!isolated && host->cpu.flags >> MFB_HOST_FLAG_HYPERVISOR & 1)
            mfb_warn(w, MFB_W_VIRTUAL_CPU, "CPU %d is a virtual CPU (hypervisor flag)", cpu);
        else if (!isolated)
            mfb_warn(w, MFB_W_ISOLATION, "CPU %d is not isolated", cpu);
    }
    double load[3];
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    if (getloadavg(load, 3) == 3) {
        host->have_load = true;
        memcpy(host->load, load, sizeof load);
        if (ncpu > 0 && load[0] > 0.5 * (double)ncpu)
            mfb_warn(w, MFB_W_LOAD, "machine load is %.2f on %ld CPUs", load[0], ncpu);
    }
    if (slurp_line("/sys/kernel/mm/transparent_hugepage/enabled", buf, sizeof buf) &&
        !strcmp(bracketed(buf), "always"))
        mfb_warn(w, MFB_W_THP, "transparent hugepages are 'always'");
}

/* A /proc/cpuinfo field into t (unknown when the CPU has none). */
static void read_cpuinfo(struct mfb_host_text *t, const char *key)
{
    t->known = cpuinfo_field(key, t->text, sizeof t->text) != NULL;
}

void mfb_host_read(struct mfb_host *h, const struct mfb_caches *c, int cpu, struct mfb_warnings *w)
{
    char buf[512], path[256];
    *h = (struct mfb_host){.pinned_cpu = cpu, .caches = *c};
    struct utsname u;
    if ((h->have_uname = uname(&u) == 0)) {
        struct mfb_host_text *dst[] = {&h->hostname, &h->kernel, &h->kernel_version, &h->machine};
        const char *src[] = {u.nodename, u.release, u.version, u.machine};
        for (int i = 0; i < 4; i++) {
            dst[i]->known = true;
            snprintf(dst[i]->text, sizeof dst[i]->text, "%s", src[i]);
        }
    }
    mfb_cpu_model(h->cpu.model.text, sizeof h->cpu.model.text);
    h->cpu.model.known = true;
#if defined(__aarch64__)
    /* implementer and part from MIDR_EL1 (cpuinfo's own fields, in its format); the x86 fields are
     * not read, since under qemu-user the file is the host's */
    struct mfb_midr m;
    if (mfb_midr_read(&m)) {
        h->cpu.implementer.known = h->cpu.part.known = true;
        snprintf(h->cpu.implementer.text, sizeof h->cpu.implementer.text, "0x%02x", m.implementer);
        snprintf(h->cpu.part.text, sizeof h->cpu.part.text, "0x%03x", m.part);
    } else {
        read_cpuinfo(&h->cpu.implementer, "CPU implementer");
        read_cpuinfo(&h->cpu.part, "CPU part");
    }
#else
    read_cpuinfo(&h->cpu.vendor, "vendor_id");
    read_cpuinfo(&h->cpu.family, "cpu family");
    read_cpuinfo(&h->cpu.model_number, "model");
    read_cpuinfo(&h->cpu.stepping, "stepping");
    read_cpuinfo(&h->cpu.microcode, "microcode");
    read_cpuinfo(&h->cpu.implementer, "CPU implementer");
    read_cpuinfo(&h->cpu.part, "CPU part");
#endif
    h->cpu.flags = read_flags();
    h->cpu.online = sysconf(_SC_NPROCESSORS_ONLN);
    h->cpu.configured = sysconf(_SC_NPROCESSORS_CONF);
    int cc = cpu < 0 ? 0 : cpu;
    struct { struct mfb_host_text *t; const char *file; } fk[] = {
        {&h->frequency.governor, "scaling_governor"}, {&h->frequency.driver, "scaling_driver"},
        {&h->frequency.min_khz, "scaling_min_freq"}, {&h->frequency.max_khz, "scaling_max_freq"},
        {&h->frequency.cur_khz, "scaling_cur_freq"}, {&h->frequency.hw_max_khz, "cpuinfo_max_freq"}};
    for (size_t i = 0; i < sizeof fk / sizeof fk[0]; i++) {
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cpufreq/%s", cc, fk[i].file);
        read_file_text(fk[i].t, path);
    }
    read_file_text(&h->frequency.boost, "/sys/devices/system/cpu/cpufreq/boost");
    read_file_text(&h->frequency.intel_no_turbo, "/sys/devices/system/cpu/intel_pstate/no_turbo");
    if ((h->frequency.have_mhz = cpuinfo_field("cpu MHz", buf, sizeof buf) != NULL))
        h->frequency.cpuinfo_mhz = atof(buf);
    read_file_text(&h->smt_active, "/sys/devices/system/cpu/smt/active");
    read_file_text(&h->smt_control, "/sys/devices/system/cpu/smt/control");
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", cc);
    read_file_text(&h->smt_siblings_of_pinned_cpu, path);
    struct { struct mfb_host_text *t; const char *file; } thp[] = {
        {&h->thp_enabled, "/sys/kernel/mm/transparent_hugepage/enabled"},
        {&h->thp_defrag, "/sys/kernel/mm/transparent_hugepage/defrag"}};
    for (int i = 0; i < 2; i++)
        if ((thp[i].t->known = slurp_line(thp[i].file, buf, sizeof buf) != NULL))
            snprintf(thp[i].t->text, sizeof thp[i].t->text, "%.*s", MFB_HOST_TEXT - 1, bracketed(buf));
    if ((h->have_aslr = slurp_line("/proc/sys/kernel/randomize_va_space", buf, sizeof buf) != NULL))
        h->aslr = atoi(buf);
    read_file_text(&h->isolated_cpus, "/sys/devices/system/cpu/isolated");
    read_file_text(&h->nohz_full, "/sys/devices/system/cpu/nohz_full");
    if ((h->have_paranoid = slurp_line("/proc/sys/kernel/perf_event_paranoid", buf, sizeof buf) != NULL))
        h->perf_event_paranoid = atoi(buf);
    struct sysinfo si;
    if ((h->have_memory = sysinfo(&si) == 0))
        h->memory_bytes = (double)si.totalram * si.mem_unit;
    check_environment(h, cpu, w);
}
