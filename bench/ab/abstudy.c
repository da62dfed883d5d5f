#include "ab/abstudy.h"

#include <stdio.h>
#include <string.h>

#include "base/warn.h"
#include "machine/cache.h"
#include "ab/abfile.h"
#include "orchestrate/analysis.h"
#include "report/hostinfo.h"
#include "report/output.h"

int mfb_ab_study(struct mfb_ab *ab, const struct mfb_ab_request *rq)
{
    struct mfb_err err = {{0}};
    struct mfb_output out = {0};
    mfb_ab_libraries(ab);
    if (mfb_ab_check_program(ab, rq->program[0], &err) < 0 || mfb_ab_arms(ab, rq->variants, rq->nvariants, &err) < 0 ||
        (rq->predict_from && mfb_ab_check_recording(ab, rq->predict_from, rq->output, &err) < 0) ||
        mfb_ab_check_outputs(ab, rq->output, &err) < 0 || mfb_output_open(&out, rq->output, &err) < 0) {
        fprintf(stderr, "%s\n", err.msg);
        return MFB_EXIT_USAGE;
    }
    int status = MFB_EXIT_FAIL;
    if (mfb_ab_run_all(ab, rq->program, rq->quiet, &err) < 0) {
        fprintf(stderr, "%s\n", err.msg);
        mfb_output_abort(&out);
        goto done;
    }
    if (rq->predict_from && mfb_ab_replay(ab, rq->variants, rq->nvariants, rq->quiet, &err) < 0) {
        fprintf(stderr, "%s\n", err.msg);
        mfb_output_abort(&out);
        goto done;
    }
    struct mfb_caches caches;
    mfb_cache_detect(&caches, ab->cpu);
    struct mfb_warnings warn = {.quiet = true};
    struct mfb_host host;
    mfb_host_read(&host, &caches, ab->cpu, &warn);
    cJSON *doc = mfb_ab_document(ab, rq->program, rq->nprogram, rq->command, rq->ncommand, mfb_host_json(&host));
    mfb_warnings_free(&warn);
    int rc = mfb_output_commit(&out, doc, NULL, &err);
    cJSON_Delete(doc);
    mfb_output_abort(&out); /* after a commit: nothing left to remove, only the path to free */
    if (rc < 0) {
        fprintf(stderr, "memfbench ab: %s\n", err.msg);
        mfb_ab_unlink_replays(ab); /* replays without their result are a partial output */
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
    mfb_ab_free(ab);
    return status;
}
