#include "machine/flush.h"

#include <pthread.h>

#include "base/target.h"

#if defined(__x86_64__)
#include <cpuid.h>
#elif defined(__aarch64__)
#include <setjmp.h>
#include <signal.h>
#include <stddef.h>
#endif

/* The line every x86-64 and most Arm cores have, where nothing better is known. */
#define COMMON_LINE 64u

/* CTR_EL0.DminLine can say at most 2 KiB (the architecture's largest cache writeback granule);
 * a value outside 16 B .. 2 KiB is not a data-cache line, and nothing is flushed by it. */
#define MIN_LINE 16u
#define MAX_LINE 2048u

#if defined(__aarch64__)
static sigjmp_buf trapped;

static void on_sigill(int sig)
{
    (void)sig;
    siglongjmp(trapped, 1);
}

/* Whether `dc civac` runs at EL0: Linux sets SCTLR_EL1.UCI on every core, and where an erratum
 * makes it clear the bit (ARM64_WORKAROUND_CLEAN_CACHE) it traps each user cache maintenance
 * instruction and performs it itself, so on Linux this holds; a kernel that did neither would
 * send SIGILL, which is caught here once, so such a system falls back instead of crashing. */
static bool civac_runs(void)
{
    volatile uint64_t probe = 0;
    struct sigaction sa = {.sa_handler = on_sigill}, old;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGILL, &sa, &old) != 0)
        return false;
    bool ok = false;
    if (!sigsetjmp(trapped, 1)) {
        __asm__ volatile("dc civac, %0\n\tdsb ish" ::"r"(&probe) : "memory");
        ok = true;
    }
    sigaction(SIGILL, &old, NULL);
    return ok;
}
#endif

static struct mfb_flush detect(void)
{
    struct mfb_flush f = {.line = COMMON_LINE};
#if defined(__x86_64__)
    /* CPUID.1:EBX[15:8] is the line clflush acts on, in 8-byte units; clflush is in every
     * x86-64 CPU and never traps in user mode. */
    unsigned a, b, c, d;
    f.allowed = true;
    f.insn = MFB_FLUSH_CLFLUSH;
    f.insn_source = "every x86-64 CPU (CPUID.7.0 names no CLFLUSHOPT)";
    if (__get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & (1u << 23))) {
        f.insn = MFB_FLUSH_CLFLUSHOPT;
        f.insn_source = "CPUID.(EAX=7,ECX=0):EBX[23] CLFLUSHOPT";
    }
    if (__get_cpuid(1, &a, &b, &c, &d) && ((b >> 8) & 0xff)) {
        f.line = ((b >> 8) & 0xff) * 8;
        f.line_source = "CPUID.1 CLFLUSH line size";
    } else {
        f.line_source = "assumed (CPUID names no CLFLUSH line size)";
    }
#elif defined(__aarch64__)
    /* CTR_EL0.DminLine (bits 19:16): log2 of the smallest data-cache line of the cores, in 4-byte
     * words. Linux lets EL0 read CTR_EL0 (SCTLR_EL1.UCT), and where the cores' lines differ it
     * traps the read and returns the smallest one, the safe stride for flushing by address. */
    uint64_t ctr;
    __asm__ volatile("mrs %0, ctr_el0" : "=r"(ctr));
    uint32_t line = 4u << ((ctr >> 16) & 0xf);
    f.line = line;
    f.line_source = "CTR_EL0.DminLine";
    if (line < MIN_LINE || line > MAX_LINE) {
        f.line = COMMON_LINE;
        f.why_not = "CTR_EL0.DminLine names no data-cache line between 16 B and 2 KiB";
    } else if (!civac_runs()) {
        f.why_not = "dc civac traps in user mode (SCTLR_EL1.UCI clear, not emulated by the kernel)";
    } else {
        f.allowed = true;
        f.insn = MFB_FLUSH_DC_CIVAC;
        f.insn_source = "every AArch64 core (run once here, SIGILL caught)";
    }
#else
    f.line_source = "assumed (no user-mode flush on this architecture)";
    f.why_not = "no user-mode cache flush on this architecture";
#endif
    if (!mfb_target_user_flush())
        f.allowed = false;
    if (!f.allowed) {
        f.insn = MFB_FLUSH_NONE;
        f.insn_source = f.why_not;
    }
    return f;
}

const char *mfb_flush_insn_name(enum mfb_flush_insn i)
{
    static const char *const names[] = {[MFB_FLUSH_NONE] = "none", [MFB_FLUSH_CLFLUSH] = "clflush",
                                        [MFB_FLUSH_CLFLUSHOPT] = "clflushopt", [MFB_FLUSH_DC_CIVAC] = "dc civac"};
    return names[i];
}

static struct mfb_flush caps;
static pthread_once_t caps_once = PTHREAD_ONCE_INIT;

static void read_caps(void)
{
    caps = detect();
}

const struct mfb_flush *mfb_flush_caps(void)
{
    pthread_once(&caps_once, read_caps);
    return &caps;
}
