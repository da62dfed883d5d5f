#include "base/warn.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *mfb_severity_name(enum mfb_severity s)
{
    static const char *const names[] = {[MFB_SEV_WARNING] = "warning", [MFB_SEV_NOTE] = "note"};
    return names[s];
}

#define W MFB_SEV_WARNING
#define N MFB_SEV_NOTE
/* The table: one row per kind. The consequence says what the finding does to the numbers, the fix
 * what makes it go away (the option or the command); a note's "fix" says why nothing needs doing. */
static const struct mfb_warning_kind table[MFB_W_COUNT] = {
    [MFB_W_BATCH] = {"batch", W, "the timer's own cost or the interrupts a long batch collects weigh in every batch, "
                     "which widens the intervals", "set the batch length with --batch-passes N (aim for 10 us to 1 ms "
                     "per batch)"},
    [MFB_W_BOOST] = {"boost", W, "the clock speed follows temperature and load, so times drift within and between "
                     "runs", "echo 0 > /sys/devices/system/cpu/cpufreq/boost (Intel: echo 1 > "
                     "/sys/devices/system/cpu/intel_pstate/no_turbo)"},
    [MFB_W_BUILD] = {"build", W, "the harness loop costs more than in a release build, which blurs small calls' times",
                     "meson setup --buildtype=release"},
    [MFB_W_CACHES] = {"caches", W, "the small and large windows are planned for assumed sizes, so small calls may not "
                      "stay in L1d and large calls may hit a cache", "measure them once with `memfbench probe -o "
                      "probe.json` and run with --cache-from probe.json, or give them with --cache L1D:L2:LLC"},
    [MFB_W_CLOCK] = {"clock", W, "ticks are not a fixed time, so times in ns follow the CPU's frequency",
                     "run on a CPU with an invariant TSC, or use --clock monotonic"},
    [MFB_W_COUNTERS] = {"counters", W, "the file has no counter columns", "allow perf events (sysctl "
                        "kernel.perf_event_paranoid=1; a VM must expose its PMU) or use --counters auto"},
    [MFB_W_COUNTERS_ABSENT] = {"counters_absent", N, "batches are timed, not counted", "expected with --counters "
                               "auto where perf events are not allowed; the times are unaffected"},
    [MFB_W_GOVERNOR] = {"governor", W, "the frequency follows load, so times drift within and between runs",
                        "cpupower frequency-set -g performance (or pyperf system tune)"},
    [MFB_W_HUGE_PAGES] = {"huge_pages", W, "part of the measurement is on 4 KiB pages, whose TLB costs differ from "
                          "huge pages'", "reserve huge pages (echo N > /proc/sys/vm/nr_hugepages) or choose "
                          "--huge thp or --huge off"},
    [MFB_W_ISOLATION] = {"isolation", W, "the scheduler may run other tasks on the CPU, which adds slow outliers",
                         "boot with isolcpus=CPU nohz_full=CPU for the CPU named, or use cset shield"},
    [MFB_W_LARGE_WINDOW] = {"large_window", W, "large calls may find their lines still cached and be timed faster "
                            "than from memory (the placement check measures it)", "give the LLC one core really sees "
                            "with --cache (a CCX's or CCD's L3, not the socket's)"},
    [MFB_W_LINEARITY] = {"linearity", W, "per-call times depend on the batch length, so the batch shape chosen moves "
                         "the ratios", "re-run on a quiet machine; if it recurs, fix the length with --batch-passes N "
                         "and compare only runs of one length"},
    [MFB_W_LOAD] = {"load", W, "other work competes for the caches and memory bandwidth, which slows and spreads the "
                    "times", "run on an idle machine"},
    [MFB_W_LONG_CALLS] = {"long_calls", W, "each sample is one call's time, with the timer's overhead and resolution "
                          "in it", "expected for distributions of very large calls; read differences smaller than "
                          "the timer's overhead (in the file's timer block) as noise"},
    [MFB_W_MAX_BATCHES] = {"max_batches", W, "the run stopped early, and fewer rounds give wider intervals",
                           "raise --max-batches or lower --time"},
    [MFB_W_MEMORY] = {"memory", W, "the probe's largest size is smaller than asked, so the level beyond the LLC may "
                      "not show", "free memory, or give --max-size"},
    [MFB_W_OVERLAP] = {"overlap", N, "the calls are replayed without overlap", "the function forbids overlap; replay "
                       "the distribution with -f memmove to time it"},
    [MFB_W_PLACEMENT_CHECK] = {"placement_check", W, "calls are timed with their data in another level than "
                               "planned, so the result describes another placement", "re-run with the machine quiet; "
                               "if it recurs, give the real sizes with --cache L1D:L2:LLC or --cache-from PROBE_FILE "
                               "(large calls: --large-window sized)"},
    [MFB_W_SMALL_MAX] = {"small_max", W, "calls above the bound go to the large window and are timed from memory, "
                         "not from L1d", "if the L1d named is wrong, give the real sizes with --cache L1D:L2:LLC; "
                         "else lower the bound with --small-max B to one that fits"},
    [MFB_W_SMT] = {"smt", W, "a busy sibling thread shares the core's caches and ports",
                   "echo off > /sys/devices/system/cpu/smt/control, or keep the sibling idle"},
    [MFB_W_SMT_BUSY] = {"smt_busy", W, "the sibling competes for the core's ports and caches, which slows and spreads "
                        "the times", "keep the sibling CPU idle, or disable SMT"},
    [MFB_W_SOURCE_ALIGNMENT] = {"source_alignment", W, "its code is aligned so that every code placement puts it "
                                "at the same offset into a 64-byte line: the verdict averages page offsets only, not "
                                "the offsets within a line that move a verdict most",
                                "drop the alignment (-falign-functions=32 or 64, an aligned attribute) from the "
                                "variant's flags or code"},
    [MFB_W_TARGET_CI] = {"target_ci", W, "some intervals are wider than asked", "raise --time or --processes, or "
                         "accept the width the file states"},
    [MFB_W_THP] = {"thp", W, "large buffers may or may not get huge pages from run to run, which moves TLB costs",
                   "echo madvise > /sys/kernel/mm/transparent_hugepage/enabled"},
    [MFB_W_THREADS] = {"threads", N, "they compete for the core's ports and its L1/L2", "chosen with --cpus; give "
                       "CPUs of distinct cores to measure threads that do not share one"},
    [MFB_W_VERIFICATION] = {"verification", W, "a variant wrong only at a size not checked would be timed",
                            "test new code over every size it can be called with before trusting its times"},
    [MFB_W_VIRTUAL_CPU] = {"virtual_cpu", N, "the host may run other work on it, which adds outliers",
                           "isolating it in the guest would not change that; the between-process intervals "
                           "include it"},
    [MFB_W_WARMUP] = {"warmup", W, "the machine may be drifting, so early and late rounds differ",
                      "re-run on a quiet machine, or flag the warm-up with --warmup-rounds N"},
};
#undef W
#undef N

const struct mfb_warning_kind *mfb_warning_kind(enum mfb_warning w)
{
    return &table[w];
}

static int code_index(const char *code, size_t len)
{
    for (int i = 0; i < MFB_W_COUNT; i++)
        if (strlen(table[i].code) == len && !strncmp(table[i].code, code, len))
            return i;
    return -1;
}

int mfb_warning_mask(const char *list, uint64_t *mask, char *bad, size_t bad_cap)
{
    _Static_assert(MFB_W_COUNT <= 64, "a --quiet-warnings mask holds one bit per kind");
    *mask = 0;
    if (!strcmp(list, "all")) {
        *mask = (1ull << MFB_W_COUNT) - 1;
        return 0;
    }
    for (const char *p = list;;) {
        size_t len = strcspn(p, ",");
        int i = code_index(p, len);
        if (i < 0) {
            snprintf(bad, bad_cap, "%.*s", (int)(len > 64 ? 64 : len), p);
            return -1;
        }
        *mask |= 1ull << i;
        if (!p[len])
            return 0;
        p += len + 1;
    }
}

int mfb_warning_of_code(const char *code)
{
    return code_index(code, strlen(code));
}

bool mfb_warning_silenced(uint64_t mask, const char *code)
{
    int i = code_index(code, strlen(code));
    return i >= 0 && (mask >> i & 1);
}

void mfb_warning_line(enum mfb_warning kind, const char *found, char *buf, size_t n)
{
    const struct mfb_warning_kind *k = &table[kind];
    if (k->severity == MFB_SEV_WARNING)
        snprintf(buf, n, "%s: %s. Fix: %s", found, k->consequence, k->fix);
    else
        snprintf(buf, n, "%s: %s; %s", found, k->consequence, k->fix);
}

void mfb_warn(struct mfb_warnings *w, enum mfb_warning kind, const char *fmt, ...)
{
    const struct mfb_warning_kind *k = &table[kind];
    char found[768], buf[1536];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(found, sizeof found, fmt, ap);
    va_end(ap);
    mfb_warning_line(kind, found, buf, sizeof buf);
    /* The same message once, however often its cause is met: repeated, it would fill every
     * output. */
    for (int i = 0; i < w->n; i++)
        if (w->kind[i] == kind && !strcmp(w->msg[i], buf))
            return;
    if (!w->quiet && k->severity == MFB_SEV_WARNING && !(w->silenced >> kind & 1))
        fprintf(stderr, "memfbench: warning: %s\n", buf);
    /* Out of memory or past the list, the warning is still printed; only the file misses it. */
    mfb_warnings_add(w, kind, buf, 0);
}

int mfb_warnings_add(struct mfb_warnings *w, enum mfb_warning kind, const char *msg, int processes)
{
    char *copy = w->n < MFB_MAX_WARNINGS ? strdup(msg) : NULL;
    if (!copy)
        return -1;
    w->msg[w->n] = copy;
    w->kind[w->n] = kind;
    w->processes[w->n] = processes;
    w->n++;
    return 0;
}

void mfb_warnings_free(struct mfb_warnings *w)
{
    for (int i = 0; i < w->n; i++)
        free(w->msg[i]);
    w->n = 0;
}
