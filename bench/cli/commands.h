/* Subcommands of the memfbench binary. Each returns the process exit status (enum mfb_exit). */
#ifndef MFB_COMMANDS_H
#define MFB_COMMANDS_H

#include "base/error.h" /* the exit statuses they return */

int mfb_cmd_run(int argc, char **argv);
int mfb_cmd_list(int argc, char **argv);
int mfb_cmd_record(int argc, char **argv);
int mfb_cmd_merge(int argc, char **argv);
int mfb_cmd_probe(int argc, char **argv);
int mfb_cmd_analyze(int argc, char **argv);
int mfb_cmd_ab(int argc, char **argv);
int mfb_cmd_suite(int argc, char **argv);
int mfb_cmd_counts(int argc, char **argv);
int mfb_cmd_tune(int argc, char **argv);

/* A row of the dispatcher (cli/main.c): the name, other spellings of it, the handler (given argv
 * from the name on) and the summary the usage prints (its lines separated by '\n'). */
struct mfb_command {
    const char *name;
    const char *alias[2]; /* NULL where unused */
    int (*run)(int argc, char **argv);
    const char *summary;
};

#endif
