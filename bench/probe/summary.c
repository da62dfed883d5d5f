#include "probe/summary.h"

#include <math.h>
#include <string.h>

/* "48 KiB", "2.0 MiB", "1.19 GiB": sizes as a reader compares them with a data sheet. */
static const char *human(size_t bytes, char *buf, size_t n)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024 && u < 4) {
        v /= 1024;
        u++;
    }
    if (u == 0 || fabs(v - round(v)) < 0.005)
        snprintf(buf, n, "%.0f %s", v, units[u]);
    else
        snprintf(buf, n, "%.*f %s", v < 10 ? 2 : 1, v, units[u]);
    return buf;
}

static void print_levels(FILE *out, const struct mfb_probe_result *r)
{
    const struct mfb_lat_curve *c = &r->lat[r->levels_curve];
    const char *names[] = {"L1d", "L2"};
    size_t sys[] = {r->caches.l1d, r->caches.l2};
    double ghz = r->clock.known ? r->clock.ghz : 0;
    fprintf(out, "levels found in the %s chain on %s pages (sizes reported by %s):\n", mfb_chase_name(c->chase),
            mfb_pages_name(c->pages), mfb_cache_source_name(r->caches.source));
    fprintf(out, "  %-8s %12s %26s %12s %10s %8s\n", "level", "reported", "latency rises between", "estimate",
            "ns/load", "cycles");
    for (int i = 0; i < r->levels.nplateaus; i++) {
        const struct mfb_plateau *p = &r->levels.plateaus[i];
        char a[32], b[32], e[32], s[32], range[64], cyc[32];
        const struct mfb_boundary *bd = i < r->levels.nboundaries ? &r->levels.boundaries[i] : NULL;
        /* the first two are the L1d and the L2; a third rise may be the LLC's or the TLB's reach
         * (docs/probe.md), so later levels are numbered */
        char numbered[24];
        snprintf(numbered, sizeof numbered, "level %d", i + 1);
        const char *name = i < 2 ? names[i] : numbered;
        /* the last plateau is memory only if the curve went past the reported LLC */
        if (i == r->levels.nplateaus - 1 && !bd && i > 0 && c->points[c->npoints - 1].size > r->caches.llc)
            name = "memory";
        snprintf(range, sizeof range, "%s and %s", bd ? human(bd->below, a, sizeof a) : "-",
                 bd ? human(bd->above, b, sizeof b) : "-");
        snprintf(cyc, sizeof cyc, ghz > 0 ? "%.1f" : "-", p->ns * ghz);
        fprintf(out, "  %-8s %12s %26s %12s %10.2f %8s\n", name, i < 2 ? human(sys[i], s, sizeof s) : "-",
                bd ? range : "-", bd ? human((size_t)bd->estimate, e, sizeof e) : "-", p->ns, cyc);
    }
}

/* The curve's median at the point nearest (in log size) to bytes. */
static double at_size(const struct mfb_bw_curve *c, size_t bytes, size_t *where)
{
    double best = INFINITY, v = NAN;
    for (size_t k = 0; k < c->npoints; k++) {
        double d = fabs(log2((double)c->points[k].size / (double)bytes));
        if (d < best) {
            double lo, hi;
            best = d;
            mfb_probe_point_stats(&c->points[k], &v, &lo, &hi);
            *where = c->points[k].size;
        }
    }
    return v;
}

static void print_bandwidth(FILE *out, const struct mfb_probe_config *cfg, const struct mfb_probe_result *r)
{
    if (r->nbw == 0 || r->bw[0].npoints == 0)
        return;
    /* One size well inside each level (half of it: found, else reported), and the largest. */
    const struct mfb_caches *c = r->found ? &r->caches_found : &r->caches;
    size_t want[] = {c->l1d / 2, c->l2 / 2, c->llc / 2, r->bw[0].points[r->bw[0].npoints - 1].size};
    const char *label[] = {"L1d/2", "L2/2", "LLC/2", "largest"};
    fprintf(out, "bandwidth, GB/s (bytes moved once; %s, %d thread%s, %s pages):\n", mfb_vector_name(r->vector),
            cfg->threads, cfg->threads > 1 ? "s" : "", mfb_pages_name(r->bw_pages));
    fprintf(out, "  %-8s %10s", "size", "");
    for (int i = 0; i < r->nbw; i++)
        fprintf(out, " %10s", mfb_stream_kernel_name(r->bw[i].kernel));
    fprintf(out, "\n");
    for (int s = 0; s < 4; s++) {
        size_t where = 0;
        char h[32];
        at_size(&r->bw[0], want[s], &where);
        fprintf(out, "  %-8s %10s", label[s], human(where, h, sizeof h));
        for (int i = 0; i < r->nbw; i++) {
            size_t w2 = 0;
            double v = at_size(&r->bw[i], where, &w2);
            if (w2 == where && isfinite(v))
                fprintf(out, " %10.1f", v);
            else
                fprintf(out, " %10s", "-");
        }
        fprintf(out, "\n");
    }
}

void mfb_probe_summary_print(FILE *out, const struct mfb_probe_config *cfg, const struct mfb_probe_result *r)
{
    if (r->clock.known)
        fprintf(out, "core clock %.2f GHz (%.2f-%.2f, dependent adds)\n", r->clock.ghz, r->clock.ghz_min, r->clock.ghz_max);
    if (r->levels_curve >= 0)
        print_levels(out, r);
    else if (cfg->latency)
        fprintf(out, "levels: no latency curve to find them in\n");
    if (r->bw_levels_curve >= 0 && r->bw_levels.nboundaries > 0) {
        fprintf(out, "read bandwidth drops past:");
        for (int i = 0; i < r->bw_levels.nboundaries; i++) {
            char h[32];
            fprintf(out, " %s", human((size_t)r->bw_levels.boundaries[i].estimate, h, sizeof h));
        }
        fprintf(out, "\n");
    }
    if (r->found) {
        char a[32], b[32], e[32];
        fprintf(out, "caches found (run --cache-from): L1d %s, L2 %s, LLC %s (LLC from %s)\n",
                human(r->caches_found.l1d, a, sizeof a), human(r->caches_found.l2, b, sizeof b),
                human(r->caches_found.llc, e, sizeof e), r->llc_from);
    } else if (cfg->latency) {
        fprintf(out, "caches found: none (fewer than three levels in the latency curve, or interrupted): --cache-from refuses this file\n");
    }
    if (cfg->bandwidth)
        print_bandwidth(out, cfg, r);
}
