/* memfbench record's run, from its request to the folder (the command line is cli/cmd_record.c). */
#ifndef MFB_RECORD_RUN_H
#define MFB_RECORD_RUN_H

#include "programs/kinds.h"

struct mfb_record_request {
    const char *out;             /* -o DIR */
    const char *rate;            /* --rate's N (of 1/N), as given */
    const char *flush, *trace;   /* --flush, --trace as given; NULL: not given */
    char **program;              /* the program and its arguments, NULL-terminated */
    const struct mfb_deadlines *deadlines; /* --deadline: the program's (none by default) */
};

/* Records the program: its exit status (or memfbench's when nothing could be recorded). */
int mfb_record_execute(const struct mfb_record_request *r);

#endif
