#include "report/summary.h"

#include <math.h>
#include <stdlib.h>

#include "base/quantile.h"
#include "config.h"
#include "report/hostinfo.h"

struct stats {
    double median, q1, q3, bpn, paired;
    size_t n;
};

/* Median over measured rounds of this variant's batch time over the baseline's in the same
 * round: the pairing cancels the round-to-round change of the drawn calls and machine drift. */
static double paired_ratio(const struct mfb_run *r, int vi, double *buf)
{
    size_t k = 0, nv = (size_t)r->nvars;
    for (size_t i = 0; i + nv <= r->res.samples.n; i += nv) {
        const struct mfb_sample *row = &r->res.samples.s[i];
        if (row->warmup)
            continue;
        double t0 = 0, tv = 0;
        for (size_t j = 0; j < nv; j++) {
            if (row[j].variant == 0)
                t0 = (double)row[j].ticks;
            if (row[j].variant == vi)
                tv = (double)row[j].ticks;
        }
        if (t0 > 0)
            buf[k++] = tv / t0;
    }
    return mfb_quantile_median(buf, k);
}

static struct stats variant_stats(const struct mfb_run *r, int vi, double *ns, double *bpn)
{
    struct stats s = {0};
    for (size_t i = 0; i < r->res.samples.n; i++) {
        const struct mfb_sample *x = &r->res.samples.s[i];
        if (x->variant != vi || x->warmup)
            continue;
        double t = (double)x->ticks * r->timer->ns_per_tick;
        ns[s.n] = t / x->calls;
        bpn[s.n] = t > 0 ? (double)x->bytes / t : 0;
        s.n++;
    }
    mfb_quantile_sort(ns, s.n);
    s.median = mfb_quantile_of_sorted(ns, s.n, 0.5);
    s.q1 = mfb_quantile_of_sorted(ns, s.n, 0.25);
    s.q3 = mfb_quantile_of_sorted(ns, s.n, 0.75);
    s.bpn = mfb_quantile_median(bpn, s.n);
    s.paired = paired_ratio(r, vi, ns);
    return s;
}

void mfb_summary_print(FILE *out, const struct mfb_run *r, const char *output_path)
{
    double *ns = malloc((r->res.samples.n + 1) * sizeof *ns), *bpn = malloc((r->res.samples.n + 1) * sizeof *bpn);
    if (!ns || !bpn) {
        free(ns);
        free(bpn);
        return;
    }
    char model[256];
    mfb_cpu_model(model, sizeof model);
    fprintf(out, "\nmemfbench: %s on %s | %s | clock %s\n", mfb_func_name(r->study->func), r->dist->name, model,
            r->timer->name);
    fprintf(out, "  %u rounds (%u warm-up) in %.1f s, stop: %s; batch = %u calls x %u passes; mean %.1f B/call\n",
            r->res.rounds, r->warmup.rounds, r->res.rounds_s, mfb_stop_reason_name(r->stop.reason),
            mfb_calls_per_pass(&r->cal), r->cal.passes, r->selfcheck.mean_realized);
    fprintf(out, "  %-15s %10s %21s %9s %9s\n", "variant", "ns/call", "IQR", "bytes/ns", "ratio");
    for (int v = 0; v < r->nvars; v++) {
        struct stats s = variant_stats(r, v, ns, bpn);
        fprintf(out, "  %-15s %10.3f   [%8.3f, %8.3f] %9.2f %9.3f\n", r->vars[v].v->name, s.median, s.q1, s.q3,
                s.bpn, s.paired);
    }
    fprintf(out, "  ns/call and bytes/ns: medians over measured batches. ratio: median over rounds of the batch "
                 "time over '%s' in the same round (below 1: faster).\n  Intervals and verdicts: ",
            r->vars[0].v->name);
    mfb_summary_analysis_command(out, output_path);
    if (r->study->processes == 1)
        fprintf(out, "  One process: these figures cover this process's code and data layout only, not a re-run; "
                     "verdicts need --processes K (default %d).\n", MFB_DEFAULT_PROCESSES);
    free(ns);
    free(bpn);
}

/* The interpreter found at configure time has the analysis stack; PYTHONPATH lets the command
 * work from any folder. */
void mfb_summary_analysis_command(FILE *out, const char *result_path)
{
    fprintf(out, "PYTHONPATH=%s %s -m analysis summarize %s\n", MFB_SOURCE_ROOT, MFB_ANALYSIS_PYTHON, result_path);
}
