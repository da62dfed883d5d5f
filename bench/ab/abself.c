#include "ab/abself.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "orchestrate/supervise.h"
#include "processes/reexec.h"

extern char **environ;

int mfb_ab_self_argv(const struct mfb_ab *ab, const char **argv, const char *source_option, const char *source,
                     bool with_libc, const char *const *variants, int n, char *cpu, size_t cpu_n)
{
    int k = 0;
    argv[k++] = "memfbench";
    argv[k++] = "run";
    argv[k++] = "-q";
    argv[k++] = "-f";
    argv[k++] = mfb_func_name(ab->func);
    if (source_option) {
        argv[k++] = source_option;
        argv[k++] = source;
    }
    if (with_libc) {
        argv[k++] = "-v";
        argv[k++] = "libc";
    }
    for (int i = 0; i < n; i++) {
        argv[k++] = "-v";
        argv[k++] = variants[i];
    }
    snprintf(cpu, cpu_n, "%d", ab->cpu);
    argv[k++] = "--cpu";
    argv[k++] = ab->cpu >= 0 ? cpu : "none";
    return k;
}

struct self_child {
    const struct mfb_reexec *exec;
    const char *stderr_path;
};

static void self_exec(void *ctx)
{
    const struct self_child *c = ctx;
    int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
        dup2(null, STDIN_FILENO);
        dup2(null, STDOUT_FILENO);
    }
    if (c->stderr_path) {
        int e = open(c->stderr_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (e >= 0)
            dup2(e, STDERR_FILENO);
    }
    mfb_reexec_child(c->exec, environ);
}

int mfb_ab_run_self(const char *const *argv, const char *what, const char *stderr_path, int *status,
                    int *exit_status, struct mfb_err *err)
{
    *exit_status = MFB_EXIT_FAIL;
    /* this very binary again, under $MEMFBENCH_EXEC_WRAPPER where the host cannot run it itself
     * (an aarch64 memfbench under qemu-user) */
    struct mfb_reexec x;
    if (mfb_reexec_prepare(&x, (char **)argv, err) < 0)
        return -1;
    struct self_child c = {&x, stderr_path};
    /* Its own group: a stop reaches every process of a --processes study at once. SIGTERM when ab
     * dies: memfbench run removes its temporaries on it. No time limit: run has its own watchdog
     * for variants that stop returning. */
    struct mfb_supervised s = {.who = "memfbench ab", .name = "memfbench run", .in_child = self_exec, .ctx = &c,
                               .own_group = true, .death_signal = SIGTERM};
    struct mfb_supervised_end end;
    int rc = mfb_supervise_run(&s, &end, err);
    mfb_reexec_free(&x);
    if (rc < 0)
        return -1;
    *status = end.status;
    if (end.stop_signal) {
        *exit_status = MFB_EXIT_INTERRUPTED;
        return mfb_fail(err, "memfbench ab: stopped by signal %d during %s; no file written", end.stop_signal, what);
    }
    return 0;
}
