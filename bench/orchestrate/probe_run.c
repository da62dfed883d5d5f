/* memfbench probe once its command line is read: the CPUs resolved and pinned, the clock, the
 * sizes planned against the caches and the memory, the pages chosen (huge pages where they can be
 * had, else a warning), the latency and bandwidth curves, the levels, the file. */
#include "orchestrate/probe_run.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/rng.h"
#include "orchestrate/cpus.h"
#include "probe/file.h"
#include "probe/plan.h"
#include "probe/summary.h"
#include "probe/sweeps.h"
#include "report/hostinfo.h"
#include "report/output.h"
#include "files/temporaries.h"
#include "programs/stop.h"


/* The CPUs: latency's, and the bandwidth threads' (the first of which is latency's CPU), resolved
 * and checked as memfbench run's timing threads are (orchestrate/cpus.c). */
static int resolve_cpus(struct mfb_probe_config *c, const struct mfb_probe_given_args *a, struct mfb_err *err)
{
    struct mfb_cpu_request q = {.cmd = "memfbench probe", .list = &a->cpus, .threads = a->threads_given ? c->threads : 0,
                                .cpu = c->cpu, .cpu_given = a->cpu_given, .max = MFB_PROBE_MAX_THREADS};
    int n = 0;
    if (mfb_cpus_threads(&q, mfb_cpus_last_allowed(), c->cpus, &n, err) < 0)
        return -1;
    c->threads = n;
    c->cpu = c->cpus[0];
    return 0;
}

static int pin(int cpu, struct mfb_err *err)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0)
        return mfb_fail(err, "cannot pin to CPU %d: %s", cpu, strerror(errno));
    return 0;
}

/* Bandwidth on 4 KiB pages, as memfbench run's buffers and most heaps, unless huge pages were
 * asked for by name; hugetlb pages only where each thread's share can be mapped in whole pages. */
static enum mfb_pages bandwidth_pages(const struct mfb_probe_config *cfg, struct mfb_probe_result *res)
{
    enum mfb_pages pages = cfg->huge == MFB_HUGE_THP || cfg->huge == MFB_HUGE_HUGETLB ? res->huge : MFB_PAGES_4K;
    if (pages != MFB_PAGES_HUGETLB || !cfg->bandwidth)
        return pages;
    size_t hp = res->huge_page_size, share = cfg->max_size / (size_t)cfg->threads;
    size_t need = (size_t)cfg->threads * ((share + hp - 1) / hp) * hp;
    char why[256];
    if (!*mfb_pages_unavailable(MFB_PAGES_HUGETLB, need, why, sizeof why))
        return pages;
    mfb_warn(&res->warn, MFB_W_HUGE_PAGES, "bandwidth: %s: measured on 4 KiB pages", why);
    return MFB_PAGES_4K;
}

int mfb_probe_execute(struct mfb_probe_config *cfg, const struct mfb_probe_given_args *a)
{
    double t_start = mfb_probe_now_s();
    struct mfb_err err = {{0}};
    int rc;
    if (resolve_cpus(cfg, a, &err) < 0) {
        fprintf(stderr, "%s\n", err.msg);
        return MFB_EXIT_USAGE;
    }
    if (!a->seed_given)
        cfg->seed = mfb_seed_fresh();
    struct mfb_probe_result res = {.levels_curve = -1, .bw_levels_curve = -1};
    res.warn.quiet = cfg->quiet;
    struct mfb_output out;
    struct mfb_timer timer;
    struct mfb_host host;
    int status = MFB_EXIT_FAIL;
    /* SIGINT, SIGTERM, SIGHUP end the curves and keep what was measured (programs/stop.h); taken
     * before the output's temporary exists, so a stop never leaves it behind */
    mfb_stop_install();
    mfb_temp_sweep();
    if (mfb_output_open(&out, cfg->output, &err) < 0) {
        fprintf(stderr, "memfbench probe: %s\n", err.msg);
        return MFB_EXIT_FAIL;
    }
    if (pin(cfg->cpu, &err) < 0 || mfb_timer_init(&timer, cfg->clock, 0, &err) < 0)
        goto fail;
    mfb_cache_detect(&res.caches, cfg->cpu);
    mfb_probe_plan_sizes(cfg, (struct mfb_probe_given){a->max_given, a->steps_given, a->repeats_given}, &res.caches, &res.warn);
    if (mfb_probe_check_memory(cfg, &err) < 0)
        goto fail;
    res.vector = mfb_vector_best();
    res.huge_page_size = mfb_pages_huge_size();
    res.huge = mfb_probe_huge_mode(cfg->huge, cfg->max_size, res.huge_why, sizeof res.huge_why);
    if (res.huge_why[0] && cfg->huge != MFB_HUGE_OFF)
        mfb_warn(&res.warn, MFB_W_HUGE_PAGES, "%s: latency is measured on 4 KiB pages only", res.huge_why);
    res.bw_pages = bandwidth_pages(cfg, &res);
    /* the stages: the core clock, each latency curve, each bandwidth kernel, the levels */
    bool tty = isatty(STDERR_FILENO);
    struct mfb_probe_progress pg = {.point_lines = !cfg->quiet && tty, .stage_lines = !cfg->quiet && !tty, .t0 = t_start};
    pg.nstages = 2 + (cfg->latency ? 3 + (res.huge != MFB_PAGES_4K) : 0);
    for (int k = 0; cfg->bandwidth && k < MFB_STREAM_KERNEL_COUNT; k++)
        pg.nstages += mfb_stream_kernel((enum mfb_stream_kernel)k, res.vector) != NULL;
    mfb_probe_stage(&pg, "core clock and host");
    mfb_core_clock_measure(&res.clock, &timer);
    /* the host block and its checks (load, governor) before measuring: the probe's own load
     * must not read as another program's */
    mfb_host_read(&host, &res.caches, cfg->cpu, &res.warn);
    struct mfb_probe_run run = {.cfg = cfg, .timer = &timer, .stop = mfb_stop_flag(), .line = res.caches.line};
    if (cfg->latency && mfb_probe_latency_curves(&run, &res, &pg, &err) < 0)
        goto fail;
    if (cfg->bandwidth && !mfb_stop_signal() && (pin(cfg->cpus[0], &err) < 0 || mfb_probe_bandwidth_curves(&run, &res, &pg, &err) < 0))
        goto fail;
    res.interrupted = mfb_stop_signal() != 0;
    mfb_probe_stage(&pg, "levels, cross-check, file");
    mfb_probe_find_levels(&res);
    cJSON *doc = mfb_probe_document(cfg, &res, &timer, &host);
    rc = mfb_output_commit(&out, doc, NULL, &err);
    cJSON_Delete(doc);
    if (rc < 0)
        goto fail;
    if (!cfg->quiet) {
        mfb_probe_summary_print(stderr, cfg, &res);
        fprintf(stderr, "written: %s (%.0f s)\n", cfg->output, mfb_probe_now_s() - t_start);
    }
    if (res.interrupted)
        fprintf(stderr, "memfbench probe: interrupted; %s holds the points measured (status.complete = false)\n",
                cfg->output);
    status = res.interrupted ? mfb_stop_exit_status() : MFB_EXIT_OK;
    goto done;
fail:
    fprintf(stderr, "memfbench probe: %s\n", err.msg);
done:
    mfb_output_abort(&out);
    mfb_probe_result_free(&res);
    return status;
}
