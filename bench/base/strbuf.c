#include "base/strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void mfb_strbuf_init(struct mfb_strbuf *b, char *buf, size_t cap)
{
    *b = (struct mfb_strbuf){.buf = buf, .cap = cap};
    buf[0] = '\0';
}

void mfb_strbuf_add(struct mfb_strbuf *b, const char *fmt, ...)
{
    if (b->truncated)
        return;
    size_t room = b->cap - b->len;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b->buf + b->len, room, fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    if ((size_t)n < room) {
        b->len += (size_t)n;
        return;
    }
    /* Cut: the last three bytes before the NUL say so. */
    b->truncated = true;
    b->len = b->cap - 1;
    memcpy(b->buf + b->cap - 4, "...", 4);
}
