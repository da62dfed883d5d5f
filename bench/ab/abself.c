#include "ab/abself.h"

#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "programs/run.h"
#include "programs/reply.h"
#include "programs/stop.h"

int mfb_ab_self_argv(const struct mfb_ab *ab, const char **argv, const char *source_option, const char *source,
                     bool with_libc, const char *const *variants, int n, char *cpu, size_t cpu_n)
{
    int k = 0;
    argv[k++] = "memfbench";
    argv[k++] = "run";
    argv[k++] = "-q";
    argv[k++] = "-f";
    argv[k++] = mfb_func_name(ab->func);
    if (source_option) {
        argv[k++] = source_option;
        argv[k++] = source;
    }
    if (with_libc) {
        argv[k++] = "-v";
        argv[k++] = "libc";
    }
    for (int i = 0; i < n; i++) {
        argv[k++] = "-v";
        argv[k++] = variants[i];
    }
    snprintf(cpu, cpu_n, "%d", ab->cpu);
    argv[k++] = "--cpu";
    argv[k++] = ab->cpu >= 0 ? cpu : "none";
    return k;
}

int mfb_ab_run_self(const struct mfb_ab *ab, const char *const *argv, const char *what, int *exit_status,
                    struct mfb_err *err)
{
    *exit_status = MFB_EXIT_FAIL;
    /* Its own group: a stop reaches every process of a --processes study at once. SIGTERM when ab
     * dies: memfbench run removes its temporaries on it. Its own watchdog ends variants that stop
     * returning; the kind's deadline (--deadline process=S) and the first word bound the rest. */
    struct mfb_prog p = {.kind = MFB_PROG_PROCESS, .who = "memfbench ab", .name = what, .argv = (char *const *)argv,
                         .self = true, .in = MFB_IO_NULL, .out = MFB_IO_NULL, .err = MFB_IO_CAPTURE, .reply = true,
                         .death_signal = SIGTERM, .deadlines = &ab->deadlines, .cpu = -1};
    struct mfb_prog_outcome o;
    if (mfb_prog_run(&p, &o, err) < 0)
        return -1;
    int rc = 0;
    struct mfb_reply r;
    struct mfb_err why = {{0}};
    if (o.end == MFB_PROG_STOPPED) {
        *exit_status = 128 + o.signal;
        rc = mfb_fail(err, "memfbench ab: interrupted by %s during %s; no file written", mfb_stop_signal_name(o.signal),
                      what);
    } else if (o.end != MFB_PROG_EXITED || mfb_reply_parse(o.reply, o.reply_len, &r, &why) < 0) {
        char how[400], last[400];
        mfb_prog_describe(&p, &o, how, sizeof how);
        mfb_prog_last_line(o.err, last, sizeof last);
        rc = mfb_fail(err, "memfbench run ended with %s%s%s", how, last[0] ? ": " : "", last); /* the caller names what */
    } else if (r.status != MFB_REPLY_OK) {
        rc = mfb_fail(err, "%s", r.message[0] ? r.message : "it refused without a message");
    }
    mfb_prog_outcome_free(&o);
    return rc;
}
