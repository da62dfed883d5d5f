#include "base/msgpath.h"

#include <stdio.h>
#include <string.h>

const char *mfb_msg_path(const char *path, char *out, size_t cap)
{
    size_t at = 0;
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        char one[8];
        if (*p == '\n')
            snprintf(one, sizeof one, "\\n");
        else if (*p == '\t')
            snprintf(one, sizeof one, "\\t");
        else if (*p == '\r')
            snprintf(one, sizeof one, "\\r");
        else if (*p < 0x20 || *p == 0x7f)
            snprintf(one, sizeof one, "\\x%02x", *p);
        else
            one[0] = (char)*p, one[1] = '\0';
        size_t n = strlen(one);
        if (at + n + 4 > cap) { /* no room for it and a closing "..." */
            snprintf(out + at, cap - at, "...");
            return out;
        }
        memcpy(out + at, one, n);
        at += n;
    }
    out[at] = '\0';
    return out;
}
