#include "base/label.h"

#include <stdio.h>
#include <string.h>

const char *mfb_label_source_name(enum mfb_label_source s)
{
    switch (s) {
    case MFB_LABEL_GIVEN:
        return "given";
    case MFB_LABEL_GIT:
        return "git";
    case MFB_LABEL_NONE:
        break;
    }
    return "none";
}

/* The code point of the UTF-8 sequence at s (n bytes left) and its length, or length 0 when the
 * bytes are no well-formed sequence (overlong, a surrogate, past U+10FFFF, cut short). */
static unsigned utf8_at(const unsigned char *s, size_t n, unsigned *cp)
{
    if (s[0] < 0x80) {
        *cp = s[0];
        return 1;
    }
    unsigned len = s[0] >= 0xF0 && s[0] < 0xF5 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC2 ? 2 : 0;
    if (len == 0 || len > n || (len == 4 && s[0] >= 0xF5))
        return 0;
    unsigned v = s[0] & (0x7F >> len);
    for (unsigned i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        v = v << 6 | (s[i] & 0x3F);
    }
    static const unsigned least[] = {0, 0, 0x80, 0x800, 0x10000};
    if (v < least[len] || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return len;
}

/* Control characters and the bidirectional overrides and isolates, which reorder what follows. */
static int refused(unsigned cp)
{
    return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

int mfb_label_given(struct mfb_label *l, const char *text, struct mfb_err *err)
{
    const unsigned char *s = (const unsigned char *)text;
    size_t n = strlen(text), chars = 0;
    for (size_t i = 0; i < n; chars++) {
        unsigned cp, len = utf8_at(s + i, n - i, &cp);
        if (len == 0)
            return mfb_fail(err, "memfbench run: --label: byte %zu is no UTF-8; a label is text", i + 1);
        if (refused(cp))
            return mfb_fail(err, "memfbench run: --label: a control or direction character (U+%04X) at character "
                            "%zu; a label is one line, shown as written", cp, chars + 1);
        i += len;
    }
    if (chars == 0 || chars > MFB_LABEL_MAX)
        return mfb_fail(err, "memfbench run: --label: %zu characters; give 1 to %d", chars, MFB_LABEL_MAX);
    memset(l, 0, sizeof *l);
    l->source = MFB_LABEL_GIVEN;
    memcpy(l->text, text, n + 1);
    return 0;
}

void mfb_label_clean(const char *s, char *out)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t n = strlen(s), k = 0;
    for (size_t i = 0, chars = 0; i < n && chars < MFB_LABEL_MAX; chars++) {
        unsigned cp, len = utf8_at(u + i, n - i, &cp);
        if (len == 0 || refused(cp)) {
            out[k++] = '?';
            i += len ? len : 1;
            continue;
        }
        memcpy(out + k, u + i, len);
        k += len;
        i += len;
    }
    out[k] = '\0';
}
