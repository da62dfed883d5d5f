#include "probe/probe.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/quantile.h"

const char *mfb_huge_request_name(enum mfb_huge_request h)
{
    static const char *const names[] = {
        [MFB_HUGE_AUTO] = "auto", [MFB_HUGE_OFF] = "off", [MFB_HUGE_THP] = "thp", [MFB_HUGE_HUGETLB] = "hugetlb"};
    return names[h];
}

void mfb_probe_point_stats(const struct mfb_probe_point *p, double *median, double *min, double *max)
{
    double v[MFB_PROBE_MAX_REPEATS];
    unsigned n = p->nrep;
    memcpy(v, p->rep, n * sizeof *v);
    mfb_quantile_sort(v, n);
    *median = mfb_quantile_of_sorted(v, n, 0.5);
    *min = n ? v[0] : NAN;
    *max = n ? v[n - 1] : NAN;
}

const char *mfb_probe_human(double bytes, char *buf, size_t n)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = bytes;
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

size_t mfb_probe_sizes(size_t min, size_t max, unsigned steps, size_t align, size_t *out, size_t cap)
{
    size_t n = 0, last = 0;
    for (unsigned k = 0;; k++) {
        double s = (double)min * exp2((double)k / steps);
        if (s > (double)max * (1 + 1e-9))
            break;
        size_t v = (size_t)llround(s / (double)align) * align;
        if (v < align)
            v = align;
        if (v == last)
            continue;
        if (out && n < cap)
            out[n] = v;
        n++;
        last = v;
    }
    return n;
}

enum mfb_pages mfb_probe_huge_mode(enum mfb_huge_request h, size_t size, char *why, size_t n)
{
    char w[256];
    why[0] = '\0';
    switch (h) {
    case MFB_HUGE_OFF:
        return MFB_PAGES_4K;
    case MFB_HUGE_THP:
        if (*mfb_pages_unavailable(MFB_PAGES_THP, size, w, sizeof w)) {
            snprintf(why, n, "--huge thp: %s", w);
            return MFB_PAGES_4K;
        }
        return MFB_PAGES_THP;
    case MFB_HUGE_HUGETLB:
        if (*mfb_pages_unavailable(MFB_PAGES_HUGETLB, size, w, sizeof w)) {
            snprintf(why, n, "--huge hugetlb: %s", w);
            return MFB_PAGES_4K;
        }
        return MFB_PAGES_HUGETLB;
    case MFB_HUGE_AUTO:
    case MFB_HUGE_COUNT:
        break;
    }
    char w2[256];
    if (!*mfb_pages_unavailable(MFB_PAGES_HUGETLB, size, w, sizeof w))
        return MFB_PAGES_HUGETLB;
    if (!*mfb_pages_unavailable(MFB_PAGES_THP, size, w2, sizeof w2))
        return MFB_PAGES_THP;
    snprintf(why, n, "--huge auto: no huge pages: %s; %s", w, w2);
    return MFB_PAGES_4K;
}
