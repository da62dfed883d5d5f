/* memfbench analyze SUBCOMMAND [ARGS]: the analysis package (analysis/, Python) run by the
 * interpreter found when this build was configured, with the package's folder first on its path.
 * The first `python3` on PATH may be another build without numpy or pandas, and `python3 -m
 * analysis` works only from the source folder: through this the README's analysis commands work
 * from any folder, whatever interpreter comes first. */
#ifndef MFB_ANALYSIS_H
#define MFB_ANALYSIS_H

/* argv[0] is "analyze", the rest goes to the package. Replaces this process; returns only when it
 * could not (MFB_EXIT_FAIL, after one line on stderr naming why). */
int mfb_analysis_exec(int argc, char **argv);

#endif
