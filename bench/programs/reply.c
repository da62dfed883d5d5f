#include "programs/reply.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HELLO "memfbench-reply 1\n"

/* The child's channel: a descriptor, and whether the reply was closed (a signal handler may close
 * it, so both are sig_atomic_t-sized and written once). */
static volatile int channel = -1;
static volatile int closed;

/* write(2) of all of buf, retried on EINTR and short writes; async-signal-safe. */
static void put(const char *buf, size_t len)
{
    int fd = channel;
    while (fd >= 0 && len > 0) {
        ssize_t k = write(fd, buf, len);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return;
        buf += k;
        len -= (size_t)k;
    }
}

/* One "KEY VALUE" line with the value escaped; async-signal-safe (a fixed buffer, write(2)). */
static void put_line(const char *key, const char *value)
{
    char line[2 * 1024 + 64];
    size_t at = 0;
    for (const char *k = key; *k && at < 40; k++)
        line[at++] = *k;
    line[at++] = ' ';
    for (const char *v = value ? value : ""; *v && at < sizeof line - 3; v++) {
        if (*v == '\\' || *v == '\n') {
            line[at++] = '\\';
            line[at++] = *v == '\n' ? 'n' : '\\';
        } else {
            line[at++] = *v;
        }
    }
    line[at++] = '\n';
    put(line, at);
}

void mfb_reply_open(void)
{
    const char *v = getenv(MFB_REPLY_ENV);
    if (!v || !*v)
        return;
    char *end;
    long fd = strtol(v, &end, 10);
    unsetenv(MFB_REPLY_ENV); /* nothing this process starts answers on it */
    if (*end || fd < 3 || fd > 1 << 20 || fcntl((int)fd, F_GETFD) < 0)
        return;
    fcntl((int)fd, F_SETFD, FD_CLOEXEC);
    channel = (int)fd;
    put(HELLO, sizeof HELLO - 1);
}

bool mfb_reply_wanted(void)
{
    return channel >= 0 && !closed;
}

void mfb_reply_field(const char *key, const char *value)
{
    if (mfb_reply_wanted())
        put_line(key, value);
}

void mfb_reply_field_u64(const char *key, unsigned long long value)
{
    char text[24];
    snprintf(text, sizeof text, "%llu", value);
    mfb_reply_field(key, text);
}

static const char *status_word(enum mfb_reply_status s)
{
    switch (s) {
    case MFB_REPLY_OK: return "ok";
    case MFB_REPLY_FAILED: return "failed";
    case MFB_REPLY_INTERRUPTED: return "interrupted";
    }
    return "failed";
}

void mfb_reply_close_async(enum mfb_reply_status status, const char *message)
{
    if (!mfb_reply_wanted())
        return;
    closed = 1;
    put_line("status", status_word(status));
    put_line("message", message);
    put("end\n", 4);
    int fd = channel;
    channel = -1;
    close(fd);
}

void mfb_reply_close(enum mfb_reply_status status, const char *message)
{
    mfb_reply_close_async(status, message);
}

bool mfb_reply_complete(const char *text, size_t len)
{
    return text && len >= 4 && !memcmp(text + len - 4, "end\n", 4) && (len == 4 || text[len - 5] == '\n');
}

/* value (len bytes) unescaped into out (cap bytes, cut to fit). */
static void unescape(const char *value, size_t len, char *out, size_t cap)
{
    size_t o = 0;
    for (size_t i = 0; i < len && o < cap - 1; i++) {
        if (value[i] == '\\' && i + 1 < len) {
            i++;
            out[o++] = value[i] == 'n' ? '\n' : value[i];
        } else {
            out[o++] = value[i];
        }
    }
    out[o] = '\0';
}

int mfb_reply_parse(const char *text, size_t len, struct mfb_reply *r, struct mfb_err *err)
{
    memset(r, 0, sizeof *r);
    r->status = MFB_REPLY_FAILED;
    if (!text || len < sizeof HELLO - 1 || memcmp(text, HELLO, sizeof HELLO - 1) != 0)
        return mfb_fail(err, "no reply");
    if (!mfb_reply_complete(text, len))
        return mfb_fail(err, "its reply ended before its last line (it died while answering)");
    if (memchr(text, '\0', len))
        return mfb_fail(err, "its reply holds a NUL byte: not memfbench's reply");
    bool status = false;
    for (size_t at = sizeof HELLO - 1; at < len;) {
        const char *line = text + at, *nl = memchr(line, '\n', len - at);
        size_t n = (size_t)(nl - line);
        at += n + 1;
        if (n == 3 && !memcmp(line, "end", 3))
            break;
        const char *sp = memchr(line, ' ', n);
        bool word = sp && sp > line && sp - line < (long)sizeof r->field[0].key;
        for (const char *k = line; word && k < sp; k++) /* a key is a word: letters, digits, '_' */
            word = (*k >= 'a' && *k <= 'z') || (*k >= 'A' && *k <= 'Z') || (*k >= '0' && *k <= '9') || *k == '_';
        if (!word)
            return mfb_fail(err, "its reply has a line of no field (a word, a space, a value) at byte %zu",
                            (size_t)(line - text));
        size_t klen = (size_t)(sp - line), vlen = n - klen - 1;
        if (klen == 6 && !memcmp(line, "status", 6)) {
            status = true;
            r->status = vlen == 2 && !memcmp(sp + 1, "ok", 2) ? MFB_REPLY_OK
                      : vlen == 11 && !memcmp(sp + 1, "interrupted", 11) ? MFB_REPLY_INTERRUPTED
                      : MFB_REPLY_FAILED;
        } else if (klen == 7 && !memcmp(line, "message", 7)) {
            unescape(sp + 1, vlen, r->message, sizeof r->message);
        } else if (r->n < MFB_REPLY_FIELDS) {
            memcpy(r->field[r->n].key, line, klen);
            r->field[r->n].key[klen] = '\0';
            unescape(sp + 1, vlen, r->field[r->n].value, sizeof r->field[r->n].value);
            r->n++;
        }
    }
    if (!status)
        return mfb_fail(err, "its reply has no status");
    return 0;
}

const char *mfb_reply_get(const struct mfb_reply *r, const char *key)
{
    for (int i = 0; i < r->n; i++)
        if (!strcmp(r->field[i].key, key))
            return r->field[i].value;
    return NULL;
}
