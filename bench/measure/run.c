/* The run's shared pieces: the names of its closed sets as the result file writes them, timing
 * one batch of the run's shape, and freeing what the rounds kept. */
#include "measure/run.h"

#include <stdlib.h>
#include <string.h>

#include "impl/plugin.h"
#include "measure/evict.h"

const char *mfb_batch_rule_text(enum mfb_batch_rule r)
{
    static const char *const text[] = {
        [MFB_BATCH_TARGET] = "passes until a batch processes 256 KiB at the distribution's mean size, rounded up "
                             "to a power of two; slowest variant under 1 ms",
        [MFB_BATCH_CAPPED] = "capped so the slowest variant's batch stays under 1 ms; libc's batch is below "
                             "its target time",
        [MFB_BATCH_FASTEST_WINS] = "libc's target wins: the slowest variant's batch exceeds 1 ms",
        [MFB_BATCH_LONG_CALLS] = "long calls: the slowest variant's pass over the parameter array exceeds 1 ms, "
                                 "so batches hold fewer calls",
        [MFB_BATCH_GIVEN] = "passes per batch given (--batch-passes; with --processes, the first process's "
                            "calibration is given to the others)",
    };
    return text[r];
}

const char *mfb_warmup_mode_name(enum mfb_warmup_mode m)
{
    static const char *const names[] = {[MFB_WARMUP_DETECTED] = "detected", [MFB_WARMUP_FIXED] = "fixed"};
    return names[m];
}

const char *mfb_stop_reason_name(enum mfb_stop_reason r)
{
    static const char *const names[] = {[MFB_STOP_NONE] = "none",           [MFB_STOP_TIME] = "time",
                                        [MFB_STOP_ROUNDS] = "rounds",       [MFB_STOP_TARGET_CI] = "target_ci",
                                        [MFB_STOP_INTERRUPTED] = "interrupted",
                                        [MFB_STOP_PROCESSES] = "processes",
                                        [MFB_STOP_BATCHES] = "batches"};
    return names[r];
}

int mfb_stop_reason_parse(const char *s, enum mfb_stop_reason *out)
{
    for (int r = MFB_STOP_NONE; r <= MFB_STOP_BATCHES; r++)
        if (!strcmp(s, mfb_stop_reason_name((enum mfb_stop_reason)r))) {
            *out = (enum mfb_stop_reason)r;
            return 0;
        }
    return -1;
}

struct mfb_call *mfb_run_params(const struct mfb_run *r)
{
    return (struct mfb_call *)(r->runtime.ws->arena + r->runtime.ws->params_off);
}

void mfb_run_time_batch(struct mfb_run *r, const struct mfb_variant *v, size_t npasses,
                        const struct mfb_pass *passes, struct mfb_batch_result *res)
{
    mfb_run_time_batch_shaped(r, v, r->procedure.cal.calls_log2, npasses, passes, res);
}

static struct mfb_batch batch_of(const struct mfb_run *r, const struct mfb_variant *v, uint8_t calls_log2,
                                 size_t npasses, const struct mfb_pass *passes)
{
    return (struct mfb_batch){.variant = v, .base = r->runtime.ws->arena, .calls = mfb_run_params(r),
                              .calls_log2 = calls_log2, .pages_mask = r->runtime.ws->space.large.pages_mask,
                              .flip_lead = (uint32_t)r->config.study->flip_lead,
                              .passes = passes, .reps = npasses, .timer = r->runtime.timer,
                              .latency = r->config.study->latency, .pressure = r->runtime.pressure.fn};
}

static void run_batch(const struct mfb_run *r, const struct mfb_batch *b, struct mfb_batch_result *res)
{
    struct mfb_activity *a = r->runtime.activity;
    a->variant = b->variant->name;
    a->origin = b->variant->description;
    a->beat++;
    mfb_kernel_placements[mfb_layout_kernel_at(&r->config.layout, r->res.rounds)](b, res);
}

void mfb_run_evict(struct mfb_run *r, uint8_t calls_log2, size_t npasses, const struct mfb_pass *passes)
{
    if (r->runtime.ws->large_scheme != MFB_LARGE_EVICTED || !r->runtime.ws->space.large.used)
        return;
    struct mfb_batch b = batch_of(r, NULL, calls_log2, npasses, passes); /* spans need no variant */
    uint64_t t0 = mfb_mono_ns();
    r->res.evicted_lines += mfb_evict_batch(&b, r->runtime.ws->space.roles);
    r->res.evict_s += (double)(mfb_mono_ns() - t0) / 1e9;
}

void mfb_run_batch_now(struct mfb_run *r, const struct mfb_variant *v, uint8_t calls_log2, size_t npasses,
                       const struct mfb_pass *passes, struct mfb_batch_result *res)
{
    struct mfb_batch b = batch_of(r, v, calls_log2, npasses, passes);
    run_batch(r, &b, res);
}

void mfb_run_time_batch_shaped(struct mfb_run *r, const struct mfb_variant *v, uint8_t calls_log2,
                               size_t npasses, const struct mfb_pass *passes, struct mfb_batch_result *res)
{
    mfb_run_evict(r, calls_log2, npasses, passes);
    mfb_run_batch_now(r, v, calls_log2, npasses, passes, res);
}

void mfb_run_free(struct mfb_run *r)
{
    for (int i = 0; i < r->config.nvars; i++) {
        mfb_plugin_unload(&r->config.vars[i].own, r->config.vars[i].plugin);
        if (r->config.vars[i].owns_source)
            mfb_source_free(r->config.vars[i].source);
    }
    mfb_samples_free(&r->res.samples);
    mfb_classes_free(&r->modes.by_class.classes);
    free(r->modes.by_class.shape);
}
