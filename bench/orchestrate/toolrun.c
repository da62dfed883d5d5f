#include "orchestrate/toolrun.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/filetext.h"

extern char **environ;

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

int mfb_tool_run(const struct mfb_argv *v, const char *log, char *const *env)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO);
    posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    pid_t pid;
    int rc = posix_spawnp(&pid, v->a[0], &fa, NULL, (char *const *)v->a, env ? env : environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0)
        return 127;
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return 127;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void mfb_tool_first_error(const char *log, char *out, size_t cap)
{
    struct mfb_err ignored;
    size_t len;
    char *text = mfb_file_text(log, MFB_TOOL_MAX_LOG, &len, &ignored);
    snprintf(out, cap, "%s", "no message");
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
