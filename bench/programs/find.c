#include "programs/find.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


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

const char *mfb_program_library(const char *env, const char *build_path, const char *install_path)
{
    const char *e = getenv(env);
    if (e && *e)
        return e;
    struct stat st;
    return stat(build_path, &st) == 0 && S_ISREG(st.st_mode) ? build_path : install_path;
}
