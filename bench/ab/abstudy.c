#include "ab/abstudy.h"

#include <stdio.h>
#include <string.h>

#include "base/warn.h"
#include "machine/cache.h"
#include "ab/abfile.h"
#include "orchestrate/analysis.h"
#include "report/hostinfo.h"
#include "programs/stop.h"
#include "report/output.h"

/* A refusal or failure on stderr as one line, whatever names it quotes: a program, a folder or a
 * file whose name holds a newline (or another control character but a tab) is shown with it
 * escaped as C writes it (\n, \x1b), so the message stays the one line a caller reads. */
static void say(const char *prefix, const char *msg)
{
    fputs(prefix, stderr);
    for (const unsigned char *c = (const unsigned char *)msg; *c; c++) {
        if (*c == '\n')
            fputs("\\n", stderr);
        else if (*c == '\r')
            fputs("\\r", stderr);
        else if (*c < 0x20 || *c == 0x7f)
            fprintf(stderr, "\\x%02x", *c);
        else
            fputc(*c, stderr);
    }
    fputc('\n', stderr);
}

/* The checks before anything runs, cheapest first; each refusal one line, exit 2. The variants
 * are checked (in a child) before one is loaded here, where a constructor could end ab. */
static int prepare(struct mfb_ab *ab, const struct mfb_ab_request *rq, struct mfb_output *out, int *exit_status,
                   struct mfb_err *err)
{
    *exit_status = MFB_EXIT_USAGE;
    mfb_ab_libraries(ab);
    if (mfb_ab_check_program(ab, rq->program[0], err) < 0 ||
        mfb_ab_check_builtins(ab, rq->variants, rq->nvariants, err) < 0 ||
        (rq->predict_from && mfb_ab_check_recording(ab, rq->predict_from, rq->output, err) < 0) ||
        mfb_ab_check_outputs(ab, rq->variants, rq->nvariants, rq->output, err) < 0)
        return -1;
    if (mfb_ab_workspace(ab, rq->output, err) < 0 || mfb_ab_verify(ab, rq->variants, rq->nvariants, err) < 0) {
        *exit_status = mfb_stop_signal() ? mfb_stop_exit_status() : MFB_EXIT_FAIL;
        return -1;
    }
    if (mfb_ab_arms(ab, rq->variants, rq->nvariants, err) < 0 || mfb_output_open(out, rq->output, err) < 0)
        return -1;
    return 0;
}

int mfb_ab_study(struct mfb_ab *ab, const struct mfb_ab_request *rq)
{
    struct mfb_err err = {{0}};
    struct mfb_output out = {0};
    /* from here a stop request (SIGINT, SIGTERM, SIGHUP) ends ab within a second, with the program
     * or the replay it runs and everything they started */
    mfb_stop_install();
    int status;
    if (prepare(ab, rq, &out, &status, &err) < 0) {
        say("", err.msg);
        mfb_output_abort(&out);
        mfb_ab_free(ab);
        return status;
    }
    if (mfb_ab_run_all(ab, rq->program, rq->quiet, &status, &err) < 0 ||
        (rq->predict_from && mfb_ab_replay(ab, rq->variants, rq->nvariants, rq->quiet, &status, &err) < 0)) {
        say("", err.msg);
        mfb_output_abort(&out);
        goto done;
    }
    status = MFB_EXIT_FAIL;
    struct mfb_caches caches;
    mfb_cache_detect(&caches, ab->cpu);
    struct mfb_warnings warn = {.quiet = true};
    struct mfb_host host;
    mfb_host_read(&host, &caches, ab->cpu, &warn);
    cJSON *doc = mfb_ab_document(ab, rq->program, rq->nprogram, rq->command, rq->ncommand, mfb_host_json(&host));
    mfb_warnings_free(&warn);
    int rc = mfb_stop_signal() ? mfb_fail(&err, "interrupted by %s; no file written",
                                          mfb_stop_signal_name(mfb_stop_signal()))
                               : mfb_output_commit(&out, doc, NULL, &err);
    cJSON_Delete(doc);
    mfb_output_abort(&out); /* after a commit: nothing left to remove, only the path to free */
    if (rc < 0) {
        say("memfbench ab: ", err.msg);
        mfb_ab_unlink_replays(ab); /* replays without their result are a partial output */
        status = mfb_stop_signal() ? mfb_stop_exit_status() : MFB_EXIT_FAIL;
        goto done;
    }
    /* the replays into place only now: a kill before leaves temporaries only, which the next run
     * in this folder sweeps */
    if (mfb_ab_settle_replays(ab, &err) < 0) {
        say("", err.msg);
        goto done;
    }
    status = MFB_EXIT_OK;
    if (!rq->quiet && strcmp(rq->output, "-") != 0) {
        mfb_ab_free(ab);
        char *args[] = {"analyze", "ab", (char *)rq->output, NULL};
        fflush(NULL);
        return mfb_analysis_exec(3, args); /* returns only when the analysis cannot run */
    }
done:
    mfb_ab_unlink_replays(ab); /* the temporaries of replays not put in place, if any */
    mfb_ab_free(ab);
    return status;
}
