#include "base/self.h"

#include <stdio.h>
#include <unistd.h>

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
