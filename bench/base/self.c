#include "base/self.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *mfb_self_command(char *buf, size_t n)
{
    const char *as = getenv("MEMFBENCH_INVOKED_AS");
    bool plain = as && *as && strlen(as) < n;
    for (const char *c = as; plain && *c; c++) /* a name to paste into a shell: no space, quote or control */
        plain = (unsigned char)*c > ' ' && *c != '\'' && *c != '"' && *c != '\\' && *c != 0x7f;
    if (plain) {
        snprintf(buf, n, "%s", as);
        return buf;
    }
    return mfb_self_path(buf, n);
}

const char *mfb_self_path(char *buf, size_t n)
{
    ssize_t len = n > 1 ? readlink("/proc/self/exe", buf, n - 1) : -1;
    if (len <= 0 || (size_t)len >= n - 1) { /* unreadable, or cut short: no path is better than half of one */
        snprintf(buf, n, "memfbench");
        return buf;
    }
    buf[len] = '\0';
    return buf;
}
