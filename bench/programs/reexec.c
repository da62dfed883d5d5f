#include "programs/reexec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/self.h"

int mfb_reexec_prepare(struct mfb_reexec *x, char **argv, struct mfb_err *err)
{
    memset(x, 0, sizeof *x);
    const char *w = getenv(MFB_EXEC_WRAPPER_ENV);
    if (!w || !*w) {
        x->path = "/proc/self/exe";
        x->argv = argv;
        return 0;
    }
    if (w[0] != '/' || access(w, X_OK) != 0)
        return mfb_fail(err, "%s: '%s' is not an executable file named by an absolute path (it names the "
                             "emulator that runs each --processes child, e.g. /usr/bin/qemu-aarch64)",
                        MFB_EXEC_WRAPPER_ENV, w);
    size_t n = 0;
    while (argv[n])
        n++;
    char **wrapped = calloc(n + 2, sizeof *wrapped);
    if (!wrapped)
        return mfb_fail(err, "out of memory for a child's command line");
    /* Under emulation /proc/self/exe reads as the emulated binary's own path (the emulator
     * answers it), which is what the wrapper must be given. */
    wrapped[0] = (char *)w;
    wrapped[1] = (char *)mfb_self_path(x->self, sizeof x->self);
    for (size_t i = 1; i < n; i++)
        wrapped[i + 1] = argv[i];
    x->path = w;
    x->argv = wrapped;
    return 0;
}

void mfb_reexec_free(struct mfb_reexec *x)
{
    if (x->path && strcmp(x->path, "/proc/self/exe") != 0)
        free(x->argv);
    x->argv = NULL;
}

_Noreturn void mfb_reexec_child(const struct mfb_reexec *x, char **env)
{
    execve(x->path, x->argv, env);
    int e = errno;
    if (e == ENOEXEC && !getenv(MFB_EXEC_WRAPPER_ENV))
        dprintf(STDERR_FILENO, "memfbench: cannot start a process: the system cannot execute this binary "
                               "(%s); under user-mode emulation, set %s to the emulator's absolute path\n",
                strerror(e), MFB_EXEC_WRAPPER_ENV);
    else
        dprintf(STDERR_FILENO, "memfbench: cannot start a process: %s: %s\n", x->path, strerror(e));
    _exit(127);
}
