/* A study once its command line is read: the modules wired together in the order that fails
 * fastest on bad input (output path, variants, distribution) before anything is measured; a
 * --processes parent runs its children instead of the rounds. */
#include <alloca.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "base/target.h"
#include "base/seeds.h"
#include "orchestrate/gitlabel.h"
#include "orchestrate/study_run.h"
#include "orchestrate/assemble.h"
#include "orchestrate/cpus.h"
#include "orchestrate/guard.h"
#include "orchestrate/plan.h"
#include "processes/processes.h"
#include "programs/reply.h"
#include "files/temporaries.h"
#include "programs/stop.h"
#include "machine/flush.h"
#include "machine/pagesize.h"
#include "measure/run.h"
#include "report/document.h"
#include "report/hostinfo.h"
#include "report/output.h"
#include "report/summary.h"

/* Everything after the command line, called below a random stack offset. */
/* Verification and calibration, the other timing threads and the stressors started, the rounds,
 * then every thread's batches into merged (NULL with one thread): 0, or -1 with err. */
static int measure(struct mfb_run *run, struct mfb_background *background, const struct mfb_cpu_plan *plan,
                   const struct mfb_caches *caches, struct mfb_samples *merged, struct mfb_err *err)
{
    const struct mfb_study *c = run->config.study;
    if (mfb_run_prepare(run, err) < 0 || (merged && mfb_team_start(run, c->counters, err) < 0))
        return -1;
    if (c->background) {
        mfb_plan_background(background, c, plan, caches);
        if (mfb_background_start(background, err) < 0)
            return -1;
        run->runtime.background = background;
    }
    run->res.before_rounds_s = (double)(mfb_mono_ns() - run->res.started_ns) / 1e9;
    int rc = mfb_run_rounds(run, mfb_stop_flag(), err);
    mfb_background_stop(background);
    return merged ? mfb_team_join(run, rc, merged, err) : rc;
}

/* SIGINT, SIGTERM and SIGHUP (the terminal closed) end the rounds as Ctrl-C does, keeping what was
 * measured (programs/stop.h); a variant call that never returns to see the request is ended by the
 * guard. A build without optimization says what that costs. */
static void install_signals(struct mfb_warnings *warn)
{
    mfb_stop_install();
    mfb_stop_on_request(mfb_guard_stop_requested);
    mfb_temp_sweep(); /* what a run killed outright left in $TMPDIR and the cache */
#ifndef __OPTIMIZE__
    mfb_warn(warn, MFB_W_BUILD, "memfbench was built without optimization");
#else
    (void)warn;
#endif
}

/* The result file (host: the context taken before the rounds) and the terminal
 * summary: the exit status, or -1 with the message in err when the file cannot be written. */
static int write_result(struct mfb_run *run, const struct mfb_host *host, struct mfb_output *out,
                        const struct mfb_samples *samples,
                        struct mfb_err *err)
{
    if (mfb_stop_signal() && run->res.rounds == 0) { /* the first round was dropped when the stop came */
        fprintf(stderr, "memfbench: interrupted before the first round ended; no result file\n");
        return MFB_EXIT_INTERRUPTED;
    }
    cJSON *doc = mfb_document(run, host);
    int rc = mfb_output_commit(out, doc, samples, err);
    cJSON_Delete(doc);
    if (rc < 0)
        return -1;
    if (!run->config.study->quiet)
        mfb_summary_print(stderr, run, run->config.study->output);
    if (!mfb_stop_signal())
        return MFB_EXIT_OK;
    fprintf(stderr, "memfbench: interrupted after %u rounds; %s holds every batch measured (status.complete "
                    "= false)\n", run->res.rounds, run->config.study->output);
    return MFB_EXIT_INTERRUPTED;
}

/* The buffers: windows planned from the caches and what the calls need, the memory checked
 * against what the machine has, the arena mapped and filled. */
static int set_up_workset(struct mfb_run *run, const struct mfb_cpu_plan *plan, const struct mfb_caches *caches,
                          struct mfb_err *err)
{
    const struct mfb_study *cfg = run->config.study;
    struct mfb_workset_need need = {.max_size = mfb_table_max(&run->config.dist->size),
                                    .align_period = mfb_dist_align_period(run->config.dist),
                                    .overlap = mfb_dist_overlaps(run->config.dist),
                                    .small_max = cfg->small_max, .sized = cfg->large_sized};
    if (mfb_page_size_get(&need.page, err) < 0 ||
        mfb_workset_plan(run->runtime.ws, cfg->func, cfg->placement, caches, &need, err) < 0 ||
        mfb_plan_check_memory(cfg, plan, run->runtime.ws, caches, err) < 0)
        return -1;
    /* the build has a flush instruction, and this CPU or kernel refused it (machine/flush.c) */
    const struct mfb_flush *flush = mfb_flush_caps();
    if (run->runtime.ws->space.large.used && run->runtime.ws->large_scheme == MFB_LARGE_SIZED && !need.sized &&
        mfb_target_user_flush() && flush->why_not)
        mfb_warn(run->runtime.warn, MFB_W_LARGE_WINDOW, "no user-mode cache flush (%s): large calls' lines are kept "
                 "out of the LLC by a window of 4 x LLC per buffer instead of flushed before each batch",
                 flush->why_not);
    return mfb_workset_alloc(run->runtime.ws, mfb_stream_seed(run->config.seed, MFB_STREAM_ARENA), err);
}

/* A process that measures: pinned, its timing threads placed, its caches, timer, counters and
 * buffers set up, and the host described (its checks before the rounds, so the run's own load
 * does not read as another program's). 0, or -1 with err. */
static int set_up_process(struct mfb_run *run, const struct mfb_cpu_plan *plan, const struct mfb_caches *probed,
                          struct mfb_caches *caches, struct mfb_timer *timer, struct mfb_host *host, struct mfb_err *err)
{
    const struct mfb_study *cfg = run->config.study;
    if (mfb_plan_pin(cfg, err) < 0 || mfb_plan_team(run, cfg, plan, err) < 0)
        return -1;
    mfb_assemble_caches(caches, cfg, probed, run->runtime.warn);
    if (mfb_assemble_instruments(run, timer, cfg, err) < 0 || set_up_workset(run, plan, caches, err) < 0)
        return -1;
    mfb_assemble_workset_warnings(run->runtime.ws, caches, run->runtime.warn);
    mfb_host_read(host, caches, cfg->cpu, run->runtime.warn);
    return 0;
}

/* The answer to a memfbench that started this run as its own child (programs/reply.h): what it
 * was to write, and how it ended in one line. */
static void study_reply(const struct mfb_study *cfg, int status, const struct mfb_err *err)
{
    if (!mfb_reply_wanted())
        return;
    if (cfg)
        mfb_reply_field("output", cfg->output);
    enum mfb_reply_status st = status == MFB_EXIT_OK ? MFB_REPLY_OK : status >= 128 ? MFB_REPLY_INTERRUPTED
                                                                                     : MFB_REPLY_FAILED;
    char line[sizeof err->msg + 32];
    if (status != MFB_EXIT_OK && !err->msg[0])
        snprintf(line, sizeof line, "%s", st == MFB_REPLY_INTERRUPTED ? "interrupted" : "failed without a message");
    else
        snprintf(line, sizeof line, "%s", err->msg);
    mfb_reply_close(st, line);
}

int mfb_study_refuse(const char *line)
{
    fprintf(stderr, "%s\n", line);
    mfb_reply_open();
    struct mfb_err err;
    snprintf(err.msg, sizeof err.msg, "%s", line);
    study_reply(NULL, MFB_EXIT_USAGE, &err);
    return MFB_EXIT_USAGE;
}

static __attribute__((noinline)) int run_study(const struct mfb_study *cfg_in, const struct mfb_cpu_plan *plan,
                                               const struct mfb_layout *layout)
{
    struct mfb_study cfg = *cfg_in;
    struct mfb_err err = {{0}};
    int rc;
    /* a child of a --processes study leaves it to its parent, whose config the merged file echoes:
     * three git commands in every process cost 15 ms of each (Intel VM, family 6 model 167) */
    if (cfg.label.source == MFB_LABEL_NONE && cfg.process_index < 0)
        mfb_label_default(&cfg.label, cfg.variants, cfg.nvariants);
    struct mfb_warnings warn = {.quiet = cfg.quiet, .silenced = cfg.quiet_warnings};
    struct mfb_output out;
    struct mfb_dist dist = {0};
    struct mfb_workset ws = {0};
    struct mfb_timer timer;
    struct mfb_caches caches;
    struct mfb_activity activity = {.phase = MFB_PHASE_IDLE};
    struct mfb_sweep *sweep = NULL;
    struct mfb_trace trace = {0};
    struct mfb_background background = {0};
    struct mfb_samples merged = {0}; /* --threads: every thread's batches */
    struct mfb_run run = {.config = {.study = &cfg, .dist = &dist, .layout = *layout},
                          .runtime = {.ws = &ws, .timer = &timer, .warn = &warn, .activity = &activity}};
    int status = MFB_EXIT_FAIL;
    run.res.started_ns = mfb_mono_ns();
    /* A child writes into the temporary its parent made; everyone else into a new temporary. */
    install_signals(&warn); /* before the temporary exists, so a stop never leaves it behind */
    if (cfg.process_index >= 0)
        rc = mfb_output_open_direct(&out, cfg.output, &err);
    else
        rc = mfb_output_open(&out, cfg.output, &err);
    if (rc < 0) {
        fprintf(stderr, "memfbench: %s\n", err.msg);
        mfb_warnings_free(&warn);
        return MFB_EXIT_FAIL;
    }
    bool parent = cfg.processes > 1 && cfg.process_index < 0;
    /* Every process resolves the configuration under the guard: a plugin's constructors run inside
     * dlopen, in a parent too, and a crash there is named like any other. A parent removes it once
     * the configuration is resolved (its children have their own guards; it forwards a stop). */
    mfb_guard_install(&activity, out.tmp, cfg.watchdog_s); /* a child's file is its parent's to remove */
    activity.phase = MFB_PHASE_PREPARING; /* until the variants run: a stop ends the set-up at once */
    if (mfb_stop_signal())
        mfb_guard_stop_requested(mfb_stop_signal()); /* the signal came before the guard was there to hear it */
    run.config.seed = cfg.seed;
    struct mfb_caches probed;
    if (mfb_assemble_config(&run, out.f == stdout ? NULL : out.path, &dist, &trace, &sweep, &probed, &err) < 0) {
        status = MFB_EXIT_USAGE;
        goto fail;
    }
    if (cfg.process_index < 0 && !cfg.quiet)
        mfb_summary_print_builds(stderr, &run);
    if (parent) {
        mfb_guard_remove();
        /* the children resolve their own; the parent keeps nothing of a trace's size */
        mfb_trace_free(&trace);
        mfb_dist_free(&dist);
        status = mfb_run_processes(&cfg, &run, &out, run.config.seed, &err);
        if (status == MFB_EXIT_FAIL)
            goto fail;
        goto done;
    }
    struct mfb_host host;
    if (set_up_process(&run, plan, &probed, &caches, &timer, &host, &err) < 0)
        goto fail;
    activity.phase = MFB_PHASE_IDLE;
    bool team = run.runtime.team && run.runtime.team->n > 1;
    if (measure(&run, &background, plan, &caches, team ? &merged : NULL, &err) < 0)
        goto fail;
    mfb_residency_warn(&run.res.placement_check, &warn, caches.l1d, mfb_cache_source_name(caches.source));
    if ((status = write_result(&run, &host, &out, team ? &merged : &run.res.samples, &err)) < 0) {
        status = MFB_EXIT_FAIL;
        goto fail;
    }
    goto done;
fail:
    fprintf(stderr, "memfbench: %s\n", err.msg);
done:
    /* the other threads first: they run thread 0's code, data and pressure block */
    mfb_background_stop(&background);
    mfb_team_free(run.runtime.team);
    mfb_guard_remove();
    mfb_output_abort(&out);
    mfb_counters_close(&run.runtime.counters);
    mfb_pressure_free(&run.runtime.pressure);
    free(run.runtime.team);
    mfb_samples_free(&merged);
    mfb_run_free(&run);
    mfb_workset_free(&ws);
    mfb_dist_free(&dist);
    free(sweep);
    mfb_trace_free(&trace);
    mfb_warnings_free(&warn);
    /* a stop ends every command alike: 128 + the signal */
    if (status != MFB_EXIT_OK && mfb_stop_signal())
        status = mfb_stop_exit_status();
    study_reply(&cfg, status, &err);
    return status;
}

int mfb_study_execute(const struct mfb_study *cfg, const struct mfb_cpu_plan *plan)
{
    mfb_reply_open(); /* before anything can fail: a parent that started it hears why */
    /* ASLR moves the stack by whole pages: a random offset below one page moves the low bits of
     * every stack address too, differently in every process (--processes). */
    struct mfb_layout layout;
    mfb_layout_draw(&layout, cfg->seed, cfg->code_placement_seed_given ? &cfg->code_placement_seed : NULL,
                    cfg->process_index, cfg->code_rotation);
    volatile char *shift = alloca(layout.stack_offset + 1);
    shift[0] = 0;
    return run_study(cfg, plan, &layout);
}
