/* The host a run measured on, as one typed value: what the kernel and /proc, /sys report (CPU,
 * caches, frequency policy, SMT, transparent huge pages, ASLR, isolation, perf access, load) and
 * what the environment checks found. report/hostinfo.c reads it; this file writes it into a result
 * file and reads it back (a --processes parent writes process 0's host by the same serializer). */
#ifndef MFB_HOST_H
#define MFB_HOST_H

#include <cJSON.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/error.h"
#include "machine/cache.h"

/* A value read from a file or /proc/cpuinfo: its first line, or unknown (null in the file: not
 * every kernel, container or VM exposes every knob). Longer lines are cut. */
#define MFB_HOST_TEXT 160
struct mfb_host_text {
    bool known;
    char text[MFB_HOST_TEXT];
};

/* The CPU flags worth recording (copy strategies, the clock's invariance, a hypervisor), in the
 * order the file lists them. */
enum { MFB_HOST_FLAGS = 18, MFB_HOST_FLAG_HYPERVISOR = 15 };
extern const char *const mfb_host_flag_names[MFB_HOST_FLAGS];

/* SMT siblings of the pinned CPU whose load is sampled (a core has at most a few). */
enum { MFB_HOST_SIBLINGS = 16 };

struct mfb_host {
    bool have_uname;
    struct mfb_host_text hostname, kernel, kernel_version, machine;
    struct {
        struct mfb_host_text model; /* "unknown" when /proc/cpuinfo names none */
        struct mfb_host_text vendor, family, model_number, stepping, microcode, implementer, part;
        uint32_t flags;             /* bit i: mfb_host_flag_names[i] is set */
        long online, configured;
    } cpu;
    int pinned_cpu;                 /* -1: not pinned */
    struct mfb_caches caches;
    struct {
        struct mfb_host_text governor, driver, min_khz, max_khz, cur_khz, hw_max_khz, boost, intel_no_turbo;
        bool have_mhz;
        double cpuinfo_mhz;
    } frequency;
    struct mfb_host_text smt_active, smt_control, smt_siblings_of_pinned_cpu;
    struct mfb_host_text thp_enabled, thp_defrag; /* the bracketed choice: "always [madvise] never" -> madvise */
    bool have_aslr, have_paranoid, have_memory;
    int aslr, perf_event_paranoid;
    double memory_bytes;
    struct mfb_host_text isolated_cpus, nohz_full;
    /* the environment checks */
    bool have_siblings;             /* the pinned CPU's sibling list was read */
    int nsiblings;
    struct {
        int cpu;
        double busy;                /* its busy share over 200 ms */
    } sibling[MFB_HOST_SIBLINGS];
    bool perf_cycles;               /* perf_event_open may count cycles */
    struct mfb_host_text perf_error;
    bool have_isolated, cpu_isolated; /* pinned runs only */
    bool have_load;
    double load[3];
};

/* The host block of a result file. */
cJSON *mfb_host_json(const struct mfb_host *h);
/* The block read back (a child's file): 0, or -1 with the field in err. */
int mfb_host_from_json(const cJSON *o, struct mfb_host *h, struct mfb_err *err);

#endif
