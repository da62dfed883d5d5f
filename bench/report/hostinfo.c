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

static void add_file_string(cJSON *o, const char *key, const char *path)
{
    char buf[512];
    if (slurp_line(path, buf, sizeof buf))
        cJSON_AddStringToObject(o, key, buf);
    else
        cJSON_AddNullToObject(o, key);
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
    if (!cpuinfo_field("model name", buf, n) && !cpuinfo_field("CPU part", buf, n))
        snprintf(buf, n, "unknown");
}

/* Whether the host's CPU flags (as recorded by add_flags) include flag. */
static bool has_flag(const cJSON *host, const char *flag)
{
    const cJSON *f;
    cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(host, "cpu"), "flags"))
        if (cJSON_IsString(f) && !strcmp(f->valuestring, flag))
            return true;
    return false;
}

static void add_flags(cJSON *cpu)
{
    static const char *const interesting[] = {"sse2", "ssse3", "avx", "avx2", "avx512f", "avx512bw", "avx512vl",
                                              "erms", "fsrm", "fzrm", "fsrs", "rdtscp", "constant_tsc",
                                              "nonstop_tsc", "tsc_known_freq", "hypervisor", "asimd", "sve", NULL};
    char *flags = malloc(16384);
    cJSON *arr = cJSON_AddArrayToObject(cpu, "flags");
    if (!flags)
        return;
    if (cpuinfo_field("flags", flags, 16384) || cpuinfo_field("Features", flags, 16384)) {
        for (int i = 0; interesting[i]; i++) {
            size_t k = strlen(interesting[i]);
            for (char *p = strstr(flags, interesting[i]); p; p = strstr(p + 1, interesting[i]))
                if ((p == flags || p[-1] == ' ') && (p[k] == ' ' || p[k] == '\0')) {
                    cJSON_AddItemToArray(arr, cJSON_CreateString(interesting[i]));
                    break;
                }
        }
    }
    free(flags);
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

/* Whether this process may count cycles with perf_event_open: recorded for the reader. No run
 * uses counters yet, so their absence is not a warning. */
static void check_perf(cJSON *host)
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
    cJSON *p = cJSON_AddObjectToObject(host, "perf_counters");
    cJSON_AddBoolToObject(p, "cycles_available", fd >= 0);
    if (fd >= 0) {
        close((int)fd);
        cJSON_AddNullToObject(p, "error");
    } else {
        cJSON_AddStringToObject(p, "error", strerror(errno));
    }
}

/* CPU numbers the topology lists are read up to (the kernel's default CPU_SETSIZE). */
#define MAX_CPUS 1024

static void check_environment(cJSON *host, int cpu, struct mfb_warnings *w)
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
        cJSON *sib = cJSON_AddArrayToObject(host, "smt_sibling_busy");
        bool listed[MAX_CPUS] = {0};
        if (mfb_parse_cpu_list(buf, listed, MAX_CPUS) < 0)
            mfb_warn(w, MFB_W_SMT, "SMT siblings unknown (%s: cannot read the CPU list '%s')", path, buf);
        for (int s = 0; s < MAX_CPUS; s++) {
            if (!listed[s] || s == c)
                continue;
            double busy = cpu_busy(s, 200);
            cJSON *o = cJSON_CreateObject();
            cJSON_AddNumberToObject(o, "cpu", s);
            cJSON_AddNumberToObject(o, "busy", busy);
            cJSON_AddItemToArray(sib, o);
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
        cJSON_AddBoolToObject(host, "cpu_isolated", isolated);
        /* In a virtual machine the host schedules its own work on the vCPU whatever the guest
         * isolates: context, not something to fix here. */
        if (!isolated && has_flag(host, "hypervisor"))
            mfb_warn(w, MFB_W_VIRTUAL_CPU, "CPU %d is a virtual CPU (hypervisor flag)", cpu);
        else if (!isolated)
            mfb_warn(w, MFB_W_ISOLATION, "CPU %d is not isolated", cpu);
    }
    double load[3];
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    if (getloadavg(load, 3) == 3) {
        cJSON *l = cJSON_AddArrayToObject(host, "load_average");
        for (int i = 0; i < 3; i++)
            cJSON_AddItemToArray(l, cJSON_CreateNumber(load[i]));
        if (ncpu > 0 && load[0] > 0.5 * (double)ncpu)
            mfb_warn(w, MFB_W_LOAD, "machine load is %.2f on %ld CPUs", load[0], ncpu);
    }
    if (slurp_line("/sys/kernel/mm/transparent_hugepage/enabled", buf, sizeof buf) &&
        !strcmp(bracketed(buf), "always"))
        mfb_warn(w, MFB_W_THP, "transparent hugepages are 'always'");
}

cJSON *mfb_host_json(const struct mfb_caches *c, int cpu, struct mfb_warnings *w)
{
    cJSON *h = cJSON_CreateObject();
    char buf[512], path[256];
    struct utsname u;
    if (uname(&u) == 0) {
        cJSON_AddStringToObject(h, "hostname", u.nodename);
        cJSON_AddStringToObject(h, "kernel", u.release);
        cJSON_AddStringToObject(h, "kernel_version", u.version);
        cJSON_AddStringToObject(h, "machine", u.machine);
    }
    cJSON *cpuo = cJSON_AddObjectToObject(h, "cpu");
    mfb_cpu_model(buf, sizeof buf);
    cJSON_AddStringToObject(cpuo, "model", buf);
    const char *keys[][2] = {{"vendor_id", "vendor"}, {"cpu family", "family"}, {"model", "model_number"},
                             {"stepping", "stepping"}, {"microcode", "microcode"}, {"CPU implementer", "implementer"},
                             {"CPU part", "part"}};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (cpuinfo_field(keys[i][0], buf, sizeof buf))
            cJSON_AddStringToObject(cpuo, keys[i][1], buf);
    add_flags(cpuo);
    cJSON_AddNumberToObject(cpuo, "online", (double)sysconf(_SC_NPROCESSORS_ONLN));
    cJSON_AddNumberToObject(cpuo, "configured", (double)sysconf(_SC_NPROCESSORS_CONF));
    if (cpu >= 0)
        cJSON_AddNumberToObject(h, "pinned_cpu", cpu);
    else
        cJSON_AddNullToObject(h, "pinned_cpu");
    cJSON *caches = cJSON_AddObjectToObject(h, "caches");
    cJSON_AddNumberToObject(caches, "l1d", (double)c->l1d);
    cJSON_AddNumberToObject(caches, "l2", (double)c->l2);
    cJSON_AddNumberToObject(caches, "llc", (double)c->llc);
    cJSON_AddNumberToObject(caches, "line", (double)c->line);
    cJSON_AddStringToObject(caches, "source", mfb_cache_source_name(c->source));
    cJSON *fr = cJSON_AddObjectToObject(h, "frequency");
    int cc = cpu < 0 ? 0 : cpu;
    const char *fk[][2] = {{"scaling_governor", "governor"}, {"scaling_driver", "driver"},
                           {"scaling_min_freq", "min_khz"}, {"scaling_max_freq", "max_khz"},
                           {"scaling_cur_freq", "cur_khz"}, {"cpuinfo_max_freq", "hw_max_khz"}};
    for (size_t i = 0; i < sizeof fk / sizeof fk[0]; i++) {
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cpufreq/%s", cc, fk[i][0]);
        add_file_string(fr, fk[i][1], path);
    }
    add_file_string(fr, "boost", "/sys/devices/system/cpu/cpufreq/boost");
    add_file_string(fr, "intel_no_turbo", "/sys/devices/system/cpu/intel_pstate/no_turbo");
    if (cpuinfo_field("cpu MHz", buf, sizeof buf))
        cJSON_AddNumberToObject(fr, "cpuinfo_mhz", atof(buf));
    cJSON *smt = cJSON_AddObjectToObject(h, "smt");
    add_file_string(smt, "active", "/sys/devices/system/cpu/smt/active");
    add_file_string(smt, "control", "/sys/devices/system/cpu/smt/control");
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", cc);
    add_file_string(smt, "siblings_of_pinned_cpu", path);
    cJSON *thp = cJSON_AddObjectToObject(h, "transparent_hugepages");
    if (slurp_line("/sys/kernel/mm/transparent_hugepage/enabled", buf, sizeof buf))
        cJSON_AddStringToObject(thp, "enabled", bracketed(buf));
    else
        cJSON_AddNullToObject(thp, "enabled");
    if (slurp_line("/sys/kernel/mm/transparent_hugepage/defrag", buf, sizeof buf))
        cJSON_AddStringToObject(thp, "defrag", bracketed(buf));
    else
        cJSON_AddNullToObject(thp, "defrag");
    if (slurp_line("/proc/sys/kernel/randomize_va_space", buf, sizeof buf))
        cJSON_AddNumberToObject(h, "aslr", atoi(buf));
    else
        cJSON_AddNullToObject(h, "aslr");
    add_file_string(h, "isolated_cpus", "/sys/devices/system/cpu/isolated");
    add_file_string(h, "nohz_full", "/sys/devices/system/cpu/nohz_full");
    if (slurp_line("/proc/sys/kernel/perf_event_paranoid", buf, sizeof buf))
        cJSON_AddNumberToObject(h, "perf_event_paranoid", atoi(buf));
    else
        cJSON_AddNullToObject(h, "perf_event_paranoid");
    struct sysinfo si;
    if (sysinfo(&si) == 0)
        cJSON_AddNumberToObject(h, "memory_bytes", (double)si.totalram * si.mem_unit);
    check_environment(h, cpu, w);
    return h;
}
