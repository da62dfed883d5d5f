/* A message builder that cannot overrun: it appends into a caller's fixed buffer and, when the
 * text does not fit, keeps what fits and ends it with "..." so a reader sees it was cut. Every
 * message assembled from outside input (CSV headers, lists of names) goes through it. */
#ifndef MFB_STRBUF_H
#define MFB_STRBUF_H

#include <stdbool.h>
#include <stddef.h>

struct mfb_strbuf {
    char *buf;      /* always NUL-terminated */
    size_t cap;     /* bytes of buf, at least 4 */
    size_t len;
    bool truncated;
};

void mfb_strbuf_init(struct mfb_strbuf *b, char *buf, size_t cap);
/* Appends printf-style; on overflow marks the text cut and ignores later appends. */
void mfb_strbuf_add(struct mfb_strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
