#include "programs/study_child.h"

#include <signal.h>
#include <stdio.h>

#include "base/error.h"
#include "programs/reply.h"
#include "programs/run.h"

int mfb_study_child_run(const char *who, const char *what, const char *nothing, char **argv,
                        const struct mfb_deadlines *deadlines)
{
    /* its verdict on the reply channel, so a study that fails or is stopped is said in the
     * command's one line, not in two */
    struct mfb_prog p = {.kind = MFB_PROG_PROCESS, .who = who, .name = "a study", .argv = argv, .self = true,
                         .in = MFB_IO_NULL, .out = MFB_IO_INHERIT, .err = MFB_IO_CAPTURE, .reply = true,
                         .death_signal = SIGTERM, .deadlines = deadlines, .cpu = -1};
    struct mfb_prog_outcome o;
    struct mfb_err err = {{0}};
    struct mfb_reply reply;
    if (mfb_prog_run(&p, &o, &err) < 0) {
        fprintf(stderr, "%s\n", err.msg);
        mfb_prog_outcome_free(&o);
        return MFB_EXIT_FAIL;
    }
    int status;
    if (o.end == MFB_PROG_STOPPED) {
        status = 128 + o.signal;
    } else if (o.end != MFB_PROG_EXITED || mfb_reply_parse(o.reply, o.reply_len, &reply, &err) < 0) {
        /* past its deadline, killed, never started, no reply: how it ended is the cause (its own last
         * line, "interrupted", would only repeat it); a failure, not an interrupt, whatever it exited */
        char how[400], last[400] = "";
        mfb_prog_describe(&p, &o, how, sizeof how);
        if (o.end == MFB_PROG_EXITED || o.end == MFB_PROG_NO_REPLY)
            mfb_prog_last_line(o.err, last, sizeof last);
        fprintf(stderr, "%s: %s: %s%s%s; %s\n", who, what, how, last[0] ? ": " : "", last, nothing);
        status = MFB_EXIT_FAIL;
    } else if (reply.status != MFB_REPLY_OK) {
        fprintf(stderr, "%s: %s failed: %s; %s\n", who, what, reply.message[0] ? reply.message : "no message",
                nothing);
        status = o.status ? o.status : MFB_EXIT_FAIL;
    } else {
        if (o.err_len) /* what a quiet study still said */
            fwrite(o.err, 1, o.err_len, stderr);
        status = 0;
    }
    mfb_prog_outcome_free(&o);
    return status;
}
