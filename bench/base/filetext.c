#include "base/filetext.h"

#include "base/openin.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

char *mfb_file_text(const char *path, size_t max, size_t *len, struct mfb_err *err)
{
    FILE *f = mfb_open_input(path, NULL, err);
    if (!f)
        return NULL;
    struct stat st;
    char *text = NULL;
    if (fstat(fileno(f), &st) != 0)
        mfb_fail(err, "%s: cannot read: %s", path, strerror(errno));
    else if ((unsigned long long)st.st_size > max)
        mfb_fail(err, "%s: %lld bytes, more than the %zu such a file can hold", path, (long long)st.st_size, max);
    else if (!(text = malloc((size_t)st.st_size + 1)))
        mfb_fail(err, "%s: out of memory for its %lld bytes", path, (long long)st.st_size);
    else if (fread(text, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
        mfb_fail(err, "%s: cannot read (it changed size while read?)", path);
        free(text);
        text = NULL;
    }
    fclose(f);
    if (!text)
        errno = EINVAL; /* opened: not "absent", whatever an earlier call left in errno */
    if (text) {
        text[st.st_size] = '\0';
        *len = (size_t)st.st_size;
    }
    return text;
}
