#include "base/warn.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *mfb_severity_name(enum mfb_severity s)
{
    static const char *const names[] = {[MFB_SEV_WARNING] = "warning", [MFB_SEV_NOTE] = "note"};
    return names[s];
}

static void add(struct mfb_warnings *w, enum mfb_severity sev, const char *code, const char *fmt, va_list ap)
{
    char buf[1024];
    vsnprintf(buf, sizeof buf, fmt, ap);
    /* The same message once, however often its cause is met: repeated, it would fill every
     * output. */
    for (int i = 0; i < w->n; i++)
        if (!strcmp(w->code[i], code) && !strcmp(w->msg[i], buf))
            return;
    if (!w->quiet && sev == MFB_SEV_WARNING)
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
    w->severity[w->n] = sev;
    w->n++;
}

void mfb_warn(struct mfb_warnings *w, const char *code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    add(w, MFB_SEV_WARNING, code, fmt, ap);
    va_end(ap);
}

void mfb_note(struct mfb_warnings *w, const char *code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    add(w, MFB_SEV_NOTE, code, fmt, ap);
    va_end(ap);
}

void mfb_warnings_free(struct mfb_warnings *w)
{
    for (int i = 0; i < w->n; i++) {
        free(w->msg[i]);
        free(w->code[i]);
    }
    w->n = 0;
}
