#include "base/cpulist.h"

#include "base/parse.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

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

int mfb_cpu_arg_parse(const char *cmd, const char *s, bool allow_none, int *cpu, struct mfb_err *err)
{
    if (allow_none && !strcmp(s, "none")) {
        *cpu = -1;
        return 0;
    }
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno)
        return mfb_fail(err, "%s: --cpu: '%s' is not a whole number%s", cmd, s, allow_none ? " or none" : "");
    if (v < 0)
        return mfb_fail(err, "%s: --cpu: %ld is below the minimum 0", cmd, v);
    if (v >= CPU_SETSIZE)
        return mfb_fail(err, "%s: --cpu: at most %d", cmd, CPU_SETSIZE - 1);
    *cpu = (int)v;
    return 0;
}
