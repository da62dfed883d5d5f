#include "base/openin.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

FILE *mfb_open_input(const char *path, const char *then, struct mfb_err *err)
{
    /* O_NONBLOCK: a FIFO opens at once, writer or not, and is refused below as a pipe */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        mfb_fail(err, "%s: cannot open: %s", path, strerror(e));
        errno = e;
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        mfb_fail(err, "%s: not a regular file (a %s)%s%s", path,
                 S_ISDIR(st.st_mode) ? "folder" : S_ISFIFO(st.st_mode) ? "pipe" : "device or other",
                 then ? ": " : "", then ? then : "");
        errno = EINVAL;
        return NULL;
    }
    /* a regular file: reads never block, so the flag can go (fread treats EAGAIN as an error) */
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        int e = errno;
        close(fd);
        mfb_fail(err, "%s: cannot open: %s", path, strerror(e));
        errno = e;
    }
    return f;
}
