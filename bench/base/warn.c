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

static const char *const codes[] = {
    "batch", "boost", "build", "caches", "clock", "counters", "governor", "huge_pages", "isolation",
    "large_window", "linearity", "load", "long_calls", "max_batches", "memory", "overlap", "placement_check",
    "small_max", "smt", "smt_busy", "target_ci", "thp", "threads", "verification", "warmup",
};

size_t mfb_warning_codes(const char *const **out)
{
    *out = codes;
    return sizeof codes / sizeof codes[0];
}

static int code_index(const char *code, size_t len)
{
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
        if (strlen(codes[i]) == len && !strncmp(codes[i], code, len))
            return (int)i;
    return -1;
}

int mfb_warning_mask(const char *list, uint64_t *mask, char *bad, size_t bad_cap)
{
    *mask = 0;
    if (!strcmp(list, "all")) {
        *mask = (1ull << (sizeof codes / sizeof codes[0])) - 1;
        return 0;
    }
    for (const char *p = list;;) {
        size_t len = strcspn(p, ",");
        int i = code_index(p, len);
        if (i < 0) {
            snprintf(bad, bad_cap, "%.*s", (int)(len > 64 ? 64 : len), p);
            return -1;
        }
        *mask |= 1ull << i;
        if (!p[len])
            return 0;
        p += len + 1;
    }
}

bool mfb_warning_silenced(uint64_t mask, const char *code)
{
    int i = code_index(code, strlen(code));
    return i >= 0 && (mask >> i & 1);
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
    if (!w->quiet && sev == MFB_SEV_WARNING && !mfb_warning_silenced(w->silenced, code))
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
