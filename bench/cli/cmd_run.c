/* memfbench run: the command line into a checked study (cli/options.c), then its run
 * (orchestrate/study_run.c). */
#include "cli/commands.h"
#include "cli/options.h"
#include "orchestrate/study_run.h"

int mfb_cmd_run(int argc, char **argv)
{
    struct mfb_study cfg;
    struct mfb_cpu_plan plan;
    struct mfb_err err = {{0}};
    int rc = mfb_options_parse(argc, argv, &cfg, &plan, &err);
    if (rc == 1)
        return MFB_EXIT_OK;
    if (rc < 0)
        return mfb_study_refuse(err.msg);
    return mfb_study_execute(&cfg, &plan);
}
