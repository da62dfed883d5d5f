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
    if (w->n < MFB_MAX_WARNINGS) {
        w->msg[w->n] = strdup(buf);
        w->code[w->n] = strdup(code);
        w->n++;
    }
}

void mfb_warnings_free(struct mfb_warnings *w)
{
    for (int i = 0; i < w->n; i++) {
        free(w->msg[i]);
        free(w->code[i]);
    }
    w->n = 0;
}
