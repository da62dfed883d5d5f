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

int mfb_label_given(struct mfb_label *l, const char *text, struct mfb_err *err)
{
    size_t n = strlen(text);
    if (n == 0 || n > MFB_LABEL_MAX)
        return mfb_fail(err, "memfbench run: --label: %zu characters; give 1 to %d", n, MFB_LABEL_MAX);
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)text[i] < 0x20 || text[i] == 0x7f)
            return mfb_fail(err, "memfbench run: --label: a control character at position %zu; a label is one line", i + 1);
    memset(l, 0, sizeof *l);
    l->source = MFB_LABEL_GIVEN;
    memcpy(l->text, text, n + 1);
    return 0;
}
