/* How a --processes child runs the binary again (processes/processes.c). Natively it is execve of
 * /proc/self/exe: the very file the parent runs, whatever PATH says. Under user-mode emulation (an
 * aarch64 memfbench run by qemu-aarch64 on an x86-64 host) the host kernel cannot execute the
 * aarch64 file itself unless binfmt_misc names an emulator for it, which a container or a CI
 * machine often cannot register: MEMFBENCH_EXEC_WRAPPER then names the emulator by absolute path,
 * and the child runs `WRAPPER SELF ARGS...` (the emulator's own settings, QEMU_LD_PREFIX and the
 * like, come through the environment the child inherits). */
#ifndef MFB_REEXEC_H
#define MFB_REEXEC_H

#include <limits.h>

#include "base/error.h"

#define MFB_EXEC_WRAPPER_ENV "MEMFBENCH_EXEC_WRAPPER"

struct mfb_reexec {
    const char *path; /* what execve runs: /proc/self/exe, or the wrapper */
    char **argv;      /* its argv; with a wrapper, the wrapper's name and this binary's path first */
    char self[PATH_MAX];
};

/* Made before fork (the child only calls execve): argv is the child's command line, which the
 * caller still owns and frees after mfb_reexec_free. A wrapper that is not an absolute path to an
 * executable file is one line in err. */
int mfb_reexec_prepare(struct mfb_reexec *x, char **argv, struct mfb_err *err);
void mfb_reexec_free(struct mfb_reexec *x);
/* In the forked child: runs it; if execve fails, one line on stderr (which names the wrapper
 * variable where the failure is that the host cannot execute the file) and exit status 127. */
_Noreturn void mfb_reexec_child(const struct mfb_reexec *x, char **env);

#endif
