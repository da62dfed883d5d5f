#include "source/toolrun.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


int mfb_words_split(const char *what, const char *text, struct mfb_words *out, struct mfb_err *err)
{
    if (strlen(text) > MFB_TOOL_MAX_COMMAND)
        return mfb_fail(err, "%s: longer than %d characters", what, MFB_TOOL_MAX_COMMAND);
    strcpy(out->buf, text);
    out->n = 0;
    for (char *save = NULL, *t = strtok_r(out->buf, " \t\n", &save); t; t = strtok_r(NULL, " \t\n", &save)) {
        if (out->n == MFB_TOOL_MAX_WORDS - 1)
            return mfb_fail(err, "%s: more than %d words", what, MFB_TOOL_MAX_WORDS - 1);
        out->w[out->n++] = t;
    }
    return 0;
}

void mfb_argv_add(struct mfb_argv *v, const char *s)
{
    if (v->n < (int)(sizeof v->a / sizeof v->a[0]) - 1)
        v->a[v->n++] = s;
    v->a[v->n] = NULL;
}

void mfb_argv_add_words(struct mfb_argv *v, const struct mfb_words *w)
{
    for (int i = 0; i < w->n; i++)
        mfb_argv_add(v, w->w[i]);
}

int mfb_tool_run(enum mfb_prog_kind kind, const struct mfb_deadlines *dl, const struct mfb_argv *v, char *const *env,
                 struct mfb_prog_outcome *o, struct mfb_err *err)
{
    struct mfb_prog p = {.kind = kind, .who = "memfbench", .name = v->a[0], .path = v->a[0], .argv = (char *const *)v->a,
                         .env = env, .in = MFB_IO_NULL, .out = MFB_IO_CAPTURE, .err = MFB_IO_TO_OUT,
                         .capture_max = MFB_TOOL_MAX_LOG, .death_signal = SIGKILL, .deadlines = dl, .cpu = -1};
    return mfb_prog_run(&p, o, err);
}

void mfb_tool_first_error(const char *log, char *out, size_t cap)
{
    out[0] = '\0';
    if (!log || !*log)
        return;
    char *text = strdup(log);
    if (!text)
        return;
    const char *pick = NULL, *first = NULL;
    int rank = 0;
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (!*line)
            continue;
        first = first ? first : line;
        int r = strstr(line, "undefined reference") ? 3
              : (strstr(line, "error") && !strstr(line, "collect2") && !strstr(line, "returned 1 exit status")) ? 2
              : 0;
        if (r > rank) {
            rank = r;
            pick = line;
        }
    }
    if (pick || first)
        snprintf(out, cap, "%.400s", pick ? pick : first);
    free(text);
}

void mfb_tool_why(const char *what, enum mfb_prog_kind kind, const struct mfb_prog_outcome *o, char *out, size_t cap)
{
    char line[512];
    mfb_tool_first_error(o->out, line, sizeof line);
    struct mfb_prog p = {.kind = kind};
    char how[400];
    mfb_prog_describe(&p, o, how, sizeof how);
    if (o->end == MFB_PROG_EXITED && line[0])
        snprintf(out, cap, "%s", line);
    else if (o->end == MFB_PROG_EXITED)
        snprintf(out, cap, "%s ended with %s and printed nothing", what, how);
    else
        snprintf(out, cap, "%s %s%s%s", what, how, line[0] ? ": " : "", line);
}
