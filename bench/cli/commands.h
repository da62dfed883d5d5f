/* Subcommands of the memfbench binary. Each returns the process exit status. */
#ifndef MFB_COMMANDS_H
#define MFB_COMMANDS_H

/* Exit statuses: 0 success; 1 the run failed (bad input file, wrong variant, I/O);
 * 2 bad command line; 130 interrupted (the result file holds what was measured). */
enum { MFB_EXIT_OK = 0, MFB_EXIT_FAIL = 1, MFB_EXIT_USAGE = 2, MFB_EXIT_INTERRUPTED = 130 };

int mfb_cmd_run(int argc, char **argv);
int mfb_cmd_list(int argc, char **argv);
int mfb_cmd_record(int argc, char **argv);
int mfb_cmd_merge(int argc, char **argv);
int mfb_cmd_probe(int argc, char **argv);

#endif
