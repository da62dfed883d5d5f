#include "programs/kinds.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* GiB, for the memory bounds. */
#define GIB (1ull << 30)

static const struct mfb_prog_kind_info kinds[MFB_PROG_KINDS] = {
    /* A version query answers in milliseconds: a minute means it waits on something that will not come. */
    [MFB_PROG_TOOL] = {"tool", "a tool", 60, 0.3, 0},
    /* One compile of a memcpy source takes well under a second; five minutes allow a large
     * translation unit on a loaded machine. cc1 compiling one C file maps far less than 4 GiB,
     * while a source that includes /dev/zero grew cc1 to 6 GB in 90 s: the bound ends it with
     * the compiler's own out-of-memory line instead of the machine's swap. */
    [MFB_PROG_BUILD] = {"build", "a build step", 300, 0.3, 4 * GIB},
    /* The replay makes 200,000 calls (0.13 s on the development VMs): five minutes allow a variant
     * a thousand times slower. Its buffers are planned beyond the LLC, so no memory bound. */
    [MFB_PROG_TRAINING] = {"training", "the training", 300, 0.3, 0},
    /* callgrind runs 50-100 times slower than the machine: the default 20,000 calls take seconds,
     * --calls 16777216 an hour; half an hour bounds a replay that never ends. */
    [MFB_PROG_VALGRIND] = {"valgrind", "valgrind", 1800, 0.3, 0},
    /* A process of memfbench's own bounds itself (its watchdog ends a variant that stops returning;
     * its rounds end on time or count), so none by default; one that never starts reporting is
     * caught by the first-word bound (programs/run.h). Its own guard ends a call still under way
     * 0.75 s after a stop request, with a line naming it (orchestrate/guard.h): a second lets that
     * line, or what it measured, reach memfbench before the group is killed. */
    [MFB_PROG_PROCESS] = {"process", "a process", 0, 1.0, 0},
    /* The user's program runs as long as it runs (ab bounds its runs with --watchdog); 0.75 s to
     * end lets the recorder's exit handlers write what it counted. */
    [MFB_PROG_PROGRAM] = {"program", "the program", 0, 0.75, 0},
};

const struct mfb_prog_kind_info *mfb_prog_kind(enum mfb_prog_kind kind)
{
    return &kinds[kind];
}

int mfb_deadlines_parse(const char *arg, struct mfb_deadlines *d, struct mfb_err *err)
{
    const char *p = arg;
    if (!*p)
        return mfb_fail(err, "--deadline: empty (give KIND=SECONDS, e.g. build=60)");
    while (*p) {
        size_t len = strcspn(p, ",");
        const char *eq = memchr(p, '=', len);
        if (!eq)
            return mfb_fail(err, "--deadline: '%.*s' is not KIND=SECONDS (kinds: build, training, valgrind, process, "
                                 "program, tool)", (int)len, p);
        int k = -1;
        for (int i = 0; i < MFB_PROG_KINDS; i++)
            if ((size_t)(eq - p) == strlen(kinds[i].name) && !strncmp(p, kinds[i].name, (size_t)(eq - p)))
                k = i;
        if (k < 0)
            return mfb_fail(err, "--deadline: '%.*s' is not a kind of program (build, training, valgrind, process, "
                                 "program, tool)", (int)(eq - p), p);
        char value[32];
        size_t vlen = len - (size_t)(eq + 1 - p);
        if (vlen == 0 || vlen >= sizeof value)
            return mfb_fail(err, "--deadline: %s: '%.*s' is not a number of seconds or none", kinds[k].name,
                            (int)vlen, eq + 1);
        memcpy(value, eq + 1, vlen);
        value[vlen] = '\0';
        if (!strcmp(value, "none")) {
            d->s[k] = -1;
        } else {
            char *end;
            double s = strtod(value, &end);
            if (end == value || *end || !isfinite(s) || s <= 0 || s > 1e7)
                return mfb_fail(err, "--deadline: %s: '%s' is not a number of seconds from 0 to 1e7, or none",
                                kinds[k].name, value);
            d->s[k] = s;
        }
        p += len + (p[len] == ',');
        if (p[-1] == ',' && !*p)
            return mfb_fail(err, "--deadline: '%s' ends with a comma", arg);
    }
    return 0;
}

double mfb_deadline_of(const struct mfb_deadlines *d, enum mfb_prog_kind kind)
{
    double s = d ? d->s[kind] : 0;
    return s > 0 ? s : s < 0 ? 0 : kinds[kind].deadline_s;
}

void mfb_deadlines_format(const struct mfb_deadlines *d, char *out, unsigned cap)
{
    unsigned at = 0;
    out[0] = '\0';
    for (int k = 0; d && k < MFB_PROG_KINDS && at < cap; k++) {
        if (d->s[k] == 0)
            continue;
        int n = d->s[k] < 0 ? snprintf(out + at, cap - at, "%s%s=none", at ? "," : "", kinds[k].name)
                            : snprintf(out + at, cap - at, "%s%s=%g", at ? "," : "", kinds[k].name, d->s[k]);
        if (n < 0)
            break;
        at += (unsigned)n;
    }
}
