#include "base/warn.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mfb_warn(struct mfb_warnings *w, const char *code, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (!w->quiet)
        fprintf(stderr, "memfbench: warning: %s\n", buf);
    if (w->n == MFB_MAX_WARNINGS)
        return;
    /* Out of memory, the warning is still printed; only the file misses it. */
    char *msg = strdup(buf), *key = strdup(code);
    if (!msg || !key) {
        free(msg);
        free(key);
        return;
    }
    w->msg[w->n] = msg;
    w->code[w->n] = key;
    w->n++;
}

void mfb_warnings_free(struct mfb_warnings *w)
{
    for (int i = 0; i < w->n; i++) {
        free(w->msg[i]);
        free(w->code[i]);
    }
    w->n = 0;
}
