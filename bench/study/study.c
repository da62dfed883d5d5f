#include "study/study.h"

#include <string.h>

void mfb_study_defaults(struct mfb_study *s, const char *dist_dir)
{
    memset(s, 0, sizeof *s);
    s->func = MFB_MEMCPY;
    s->time_s = MFB_DEFAULT_TIME_S;
    s->warmup_rounds = -1;
    s->processes = MFB_DEFAULT_PROCESSES;
    s->max_batches = MFB_DEFAULT_MAX_BATCHES;
    s->watchdog_s = MFB_DEFAULT_WATCHDOG_S;
    s->process_index = -1;
    s->flip_lead = MFB_DEFAULT_FLIP_LEAD;
    s->cpu = -1;
    s->placement = MFB_PL_AUTO;
    s->code_rotation = MFB_ROTATE_PROCESS; /* round failed validation on the Zen 5 VM (methodology.md) */
    s->align_mode = MFB_ALIGN_EXACT;
    s->clock = MFB_CLOCK_AUTO;
    s->dist_dir = dist_dir;
}

void mfb_study_fit_processes(struct mfb_study *s)
{
    if (s->processes_given || s->time_s <= 0 || s->target_ci > 0 || s->process_index >= 0 ||
        s->time_s / (double)s->processes >= MFB_MIN_PROCESS_TIME_S)
        return;
    long fit = (long)(s->time_s / MFB_MIN_PROCESS_TIME_S);
    s->processes = fit >= 2 * MFB_CODE_PLACEMENTS ? fit / MFB_CODE_PLACEMENTS * MFB_CODE_PLACEMENTS : fit > 1 ? fit : 1;
    s->processes_fitted = true;
}

const char *mfb_study_processes_source(const struct mfb_study *s)
{
    return s->processes_given ? "given" : s->processes_fitted ? "default, fewer to fit --time" : "default";
}
