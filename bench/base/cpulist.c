#include "base/cpulist.h"

#include "base/parse.h"

int mfb_cpu_list_parse(const char *cmd, const char *opt, const char *s, int max, struct mfb_cpu_list *out,
                       struct mfb_err *err)
{
    size_t got = 0;
    int repeated = -1;
    if (max > MFB_MAX_LISTED_CPUS)
        max = MFB_MAX_LISTED_CPUS;
    switch (mfb_parse_cpu_order(s, out->cpu, (size_t)max, &got, &repeated)) {
    case -1:
        return mfb_fail(err, "%s: %s: '%s' is not a CPU list such as 1,0 or 0-3", cmd, opt, s);
    case -2:
        return mfb_fail(err, "%s: %s: more than %d CPUs", cmd, opt, max);
    case -3:
        return mfb_fail(err, "%s: %s: CPU %d is listed twice (one thread per CPU)", cmd, opt, repeated);
    case -4:
        return mfb_fail(err, "%s: %s: '%s' names a CPU beyond any machine's (CPU numbers stay below %d)", cmd, opt, s,
                        MFB_CPU_NUMBER_LIMIT);
    default:
        break;
    }
    out->n = (int)got;
    return 0;
}
