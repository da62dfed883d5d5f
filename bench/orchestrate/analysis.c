/* The analysis package (analysis/, Python) run in place of this process; see analysis.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "orchestrate/analysis.h"

#include "base/error.h"
#include "config.h"

/* What analysis/cli.py names itself in its usage and hints when run through this command. */
#define ANALYZE_PROG_ENV "MEMFBENCH_ANALYZE_PROG"

int mfb_analysis_exec(int argc, char **argv)
{
    if (!MFB_ANALYSIS_HAS_STACK) {
        fprintf(stderr, "memfbench analyze: this build found no Python with the analysis stack (pandas, scipy, "
                        "matplotlib, jsonschema) when it was configured: install them (./bootstrap.sh does) and run "
                        "meson setup --reconfigure, or pass -Dpython=PATH\n");
        return MFB_EXIT_FAIL;
    }
    const char *package = MFB_SOURCE_ROOT "/analysis/__init__.py";
    if (access(package, R_OK) != 0) {
        fprintf(stderr, "memfbench analyze: the analysis package is not at %s (%s): run the memfbench of a build "
                        "whose source folder is still in place\n", package, strerror(errno));
        return MFB_EXIT_FAIL;
    }
    /* the source folder first, then whatever PYTHONPATH the caller had */
    const char *old = getenv("PYTHONPATH");
    size_t len = strlen(MFB_SOURCE_ROOT) + (old && *old ? strlen(old) + 1 : 0) + 1;
    char *path = malloc(len);
    /* python, -m, analysis, the arguments after "analyze", NULL */
    char **args = calloc((size_t)argc + 3, sizeof *args);
    if (!path || !args) {
        free(path);
        free(args);
        fprintf(stderr, "memfbench analyze: out of memory\n");
        return MFB_EXIT_FAIL;
    }
    snprintf(path, len, "%s%s%s", MFB_SOURCE_ROOT, old && *old ? ":" : "", old && *old ? old : "");
    int n = 0;
    args[n++] = MFB_ANALYSIS_PYTHON;
    args[n++] = "-m";
    args[n++] = "analysis";
    for (int i = 1; i < argc; i++)
        args[n++] = argv[i];
    /* PYTHONSAFEPATH (Python 3.11 on; older ones ignore it): `python -m` would otherwise put the
     * current folder before PYTHONPATH, and an `analysis` folder there (another checkout's) would
     * answer in place of this build's. */
    if (setenv("PYTHONPATH", path, 1) != 0 || setenv("PYTHONSAFEPATH", "1", 1) != 0 ||
        setenv(ANALYZE_PROG_ENV, "memfbench analyze", 1) != 0) {
        fprintf(stderr, "memfbench analyze: cannot set the environment: %s\n", strerror(errno));
        free(path);
        free(args);
        return MFB_EXIT_FAIL;
    }
    execv(MFB_ANALYSIS_PYTHON, args);
    fprintf(stderr, "memfbench analyze: cannot run %s: %s\n", MFB_ANALYSIS_PYTHON, strerror(errno));
    free(path);
    free(args);
    return MFB_EXIT_FAIL;
}
