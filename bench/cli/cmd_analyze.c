/* memfbench analyze: hands the command line to the analysis package (orchestrate/analysis.h). */
#include "cli/commands.h"
#include "orchestrate/analysis.h"

int mfb_cmd_analyze(int argc, char **argv)
{
    return mfb_analysis_exec(argc, argv);
}
