#include "orchestrate/gitlabel.h"

#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "impl/plugin.h"
#include "impl/source.h"

extern char **environ;

/* The first line git prints for args, in out (at most n - 1 bytes); -1 when git is missing, the
 * folder is no repository or the output is empty. git's messages go to /dev/null: no label is a
 * normal outcome here, not an error to show. */
static int git_line(const char *const args[], char *out, size_t n)
{
    int fd[2];
    if (pipe(fd) != 0)
        return -1;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fd[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&fa, fd[0]);
    posix_spawn_file_actions_addclose(&fa, fd[1]);
    posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    pid_t pid;
    int rc = posix_spawnp(&pid, "git", &fa, NULL, (char *const *)args, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fd[1]);
    size_t got = 0;
    if (rc == 0) {
        ssize_t k;
        /* read to the end, keeping the first n - 1 bytes, so git never blocks on a full pipe */
        char sink[256];
        while ((k = read(fd[0], got < n - 1 ? out + got : sink, got < n - 1 ? n - 1 - got : sizeof sink)) > 0)
            got += got < n - 1 ? (size_t)k : 0;
    }
    close(fd[0]);
    int status = 0;
    if (rc != 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return -1;
    out[got] = '\0';
    out[strcspn(out, "\n")] = '\0';
    return out[0] ? 0 : -1;
}

void mfb_label_default(struct mfb_label *l, const char *const *variants, int nvariants)
{
    memset(l, 0, sizeof *l);
    for (int i = 0; i < nvariants; i++) {
        enum mfb_source_kind kind;
        if (!mfb_plugin_spec(variants[i]) && !mfb_source_spec(variants[i], &kind))
            continue;
        /* the folder of the shared object (its build folder, which is inside its repository) or of
         * the source variant's file */
        const char *colon = strrchr(variants[i], ':');
        const char *slash = memrchr(variants[i], '/', (size_t)(colon - variants[i]));
        int len = slash ? (int)(slash - variants[i]) : 1;
        snprintf(l->folder, sizeof l->folder, "%.*s", len == 0 ? 1 : len, slash ? variants[i] : ".");
        /* read without side effects: no core.fsmonitor command of the repository run, and no index
         * written: `describe --dirty` refreshes and writes the index whatever --no-optional-locks
         * says (git 2.39), `status` honours it, so dirty is status's answer */
        const char *describe[] = {"git", "--no-optional-locks", "-c", "core.fsmonitor=", "-C", l->folder, "describe",
                                  "--always", "--tags", NULL};
        const char *status[] = {"git", "--no-optional-locks", "-c", "core.fsmonitor=", "-C", l->folder, "status",
                                "--porcelain", "--untracked-files=no", NULL};
        char raw[MFB_LABEL_BYTES + 1], change[8];
        if (git_line(describe, raw, sizeof raw - 6) != 0) {
            memset(l, 0, sizeof *l);
            return;
        }
        if (git_line(status, change, sizeof change) == 0) /* a line: a tracked file changed */
            strcat(raw, "-dirty");
        mfb_label_clean(raw, l->text); /* a tag name is any bytes: the label stays UTF-8, whole characters */
        const char *date[] = {"git", "--no-optional-locks", "-c", "core.fsmonitor=", "-C", l->folder, "log", "-1",
                              "--format=%cI", NULL};
        if (git_line(date, l->time, sizeof l->time) != 0)
            l->time[0] = '\0';
        l->source = MFB_LABEL_GIT;
        return;
    }
}
