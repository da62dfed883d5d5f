#include "cli/options.h"

#include <stdlib.h>

#include "files/inputs.h"
#include "study/options.h"
#include "config.h"

/* A usage text: its head, then the run options' rows. */
static void usage_with(FILE *out, const char *head)
{
    fputs(head, out);
    const struct mfb_flag_table *t = mfb_study_flags();
    mfb_flags_usage(out, t->rows, t->n);
}

void mfb_options_usage(FILE *out)
{
    usage_with(out, "usage: memfbench run [options] -o FILE\n"
                    "\n"
                    "Replays a recorded call distribution against several implementations of one memory\n"
                    "function in interleaved rounds, and writes every per-batch sample to FILE (JSON).\n"
                    "\n");
}

void mfb_sweep_usage(FILE *out)
{
    usage_with(out, "usage: memfbench sweep SIZES [run options] -o FILE\n"
                    "\n"
                    "Times every variant at each size of SIZES (N, LO-HI:STEP, pow2:LO-HI, comma-separated),\n"
                    "each size its own batches, every variant interleaved per size in every round: the same\n"
                    "study as memfbench run --sweep SIZES. The run options:\n"
                    "\n");
}

int mfb_options_parse(int argc, char **argv, struct mfb_study *s, struct mfb_cpu_plan *plan, struct mfb_err *err)
{
    const char *dists = getenv("MEMFBENCH_DISTRIBUTIONS");
    mfb_study_defaults(s, dists ? dists : MFB_DIST_DIR);
    s->argc = argc;
    s->argv = argv;
    int action = 0, operands = argc;
    int rc = mfb_flags_parse(mfb_study_flags(), argc, argv, s, &action, &operands, err);
    if (rc < 0)
        return -1;
    if (rc == 1) { /* the one action row: --help */
        mfb_options_usage(stdout);
        return 1;
    }
    if (s->output && mfb_output_folder_check("memfbench run", "-o", s->output, err) < 0)
        return -1;
    mfb_study_resolve(s);
    return mfb_cpus_plan_study(s, plan, err);
}

int mfb_options_output(const char *command, const char *form, bool dash, const char *out, struct mfb_err *err)
{
    if (!out)
        return mfb_fail(err, "%s: -o %s is required%s", command, form, dash ? " ('-' for stdout)" : "");
    return mfb_output_folder_check(command, "-o", out, err);
}

int mfb_options_end(int rc, const struct mfb_err *err)
{
    if (rc == 1)
        return MFB_EXIT_OK;
    fprintf(stderr, "%s\n", err->msg);
    return MFB_EXIT_USAGE;
}

const char *mfb_options_run_sets(const char *word, const char *const *own, size_t n)
{
    const struct mfb_flag *r = mfb_flags_word_sets(mfb_study_flags(), word, own, n);
    return r ? r->name : NULL;
}
