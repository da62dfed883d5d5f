#include "orchestrate/program.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "orchestrate/supervise.h"

int mfb_program_find(const char *name, char *out, size_t n)
{
    if (strchr(name, '/'))
        return snprintf(out, n, "%s", name) < (int)n ? 0 : -1;
    const char *path = getenv("PATH");
    for (const char *p = path && *path ? path : "/usr/local/bin:/usr/bin:/bin"; *p;) {
        size_t len = strcspn(p, ":");
        struct stat st;
        if (snprintf(out, n, "%.*s/%s", (int)(len ? len : 1), len ? p : ".", name) < (int)n &&
            stat(out, &st) == 0 && S_ISREG(st.st_mode) && access(out, X_OK) == 0)
            return 0;
        p += len + (p[len] == ':');
    }
    return -1;
}

struct record_child {
    char **argv;
    const struct mfb_program_env *env;
};

/* In the child: the recorder first in LD_PRELOAD, its settings in the environment, then the
 * program (PATH searched, as a shell would). */
static void record_exec(void *ctx)
{
    const struct record_child *c = ctx;
    const struct mfb_program_env *env = c->env;
    const char *old = getenv("LD_PRELOAD");
    size_t n = strlen(env->preload) + (old ? strlen(old) : 0) + 2;
    char *preload = malloc(n);
    if (!preload)
        _exit(127);
    snprintf(preload, n, "%s%s%s", env->preload, old && *old ? ":" : "", old && *old ? old : "");
    setenv("LD_PRELOAD", preload, 1);
    setenv("MEMFBENCH_RECORD_DIR", env->raw_dir, 1);
    setenv("MEMFBENCH_RECORD_RATE", env->rate, 1);
    if (env->flush)
        setenv("MEMFBENCH_RECORD_FLUSH", env->flush, 1);
    if (env->trace)
        setenv("MEMFBENCH_RECORD_TRACE", env->trace, 1);
    execvp(c->argv[0], c->argv);
    fprintf(stderr, "memfbench record: %s: %s\n", c->argv[0], strerror(errno));
    _exit(127);
}

int mfb_program_run(char **argv, const struct mfb_program_env *env)
{
    mfb_supervise_install();
    struct record_child c = {argv, env};
    /* The recorded program keeps record's process group: it may read the terminal. SIGTERM when
     * record dies: the recorder's exit handlers still write what was counted. */
    struct mfb_supervised s = {.who = "memfbench record", .name = argv[0], .in_child = record_exec, .ctx = &c,
                               .death_signal = SIGTERM};
    struct mfb_supervised_end end;
    struct mfb_err err = {{0}};
    if (mfb_supervise_run(&s, &end, &err) < 0) {
        fprintf(stderr, "%s\n", err.msg);
        return 127;
    }
    if (end.killed)
        fprintf(stderr, "memfbench record: %s did not end within %d ms of signal %d; killed\n", argv[0],
                MFB_STOP_GRACE_MS, end.stop_signal);
    else if (end.signal)
        fprintf(stderr, "memfbench record: %s was killed by signal %d\n", argv[0], end.signal);
    return end.status;
}

const char *mfb_program_library(const char *env, const char *build_path, const char *install_path)
{
    const char *e = getenv(env);
    if (e && *e)
        return e;
    struct stat st;
    return stat(build_path, &st) == 0 && S_ISREG(st.st_mode) ? build_path : install_path;
}
