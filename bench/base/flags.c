#include "base/flags.h"

#include <string.h>

void mfb_flags_getopt(const struct mfb_flag *f, size_t n, bool stop_at_operand, struct option *opts, char *shorts)
{
    size_t k = 0;
    if (stop_at_operand)
        shorts[k++] = '+';
    shorts[k++] = ':';
    for (size_t i = 0; i < n; i++) {
        opts[i] = (struct option){f[i].name, f[i].has_arg, NULL, f[i].id};
        if (f[i].letter) {
            shorts[k++] = (char)f[i].id;
            if (f[i].has_arg == required_argument)
                shorts[k++] = ':';
        }
    }
    shorts[k] = '\0';
    opts[n] = (struct option){0};
}

/* The help starts in this column; a name too long for it is followed by two spaces instead. */
#define HELP_COLUMN 25

void mfb_flags_usage(FILE *out, const struct mfb_flag *f, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!f[i].help)
            continue;
        char left[96], letter[8] = "    ";
        if (f[i].letter)
            snprintf(letter, sizeof letter, "-%c, ", f[i].id);
        /* a value in brackets is optional and written against the name: --by-class[=E,...] */
        int len = snprintf(left, sizeof left, "  %s--%s%s%s", letter, f[i].name,
                           f[i].value && f[i].value[0] != '[' ? " " : "", f[i].value ? f[i].value : "");
        if (len < HELP_COLUMN - 1)
            fprintf(out, "%-*s", HELP_COLUMN, left);
        else
            fprintf(out, "%s  ", left);
        for (const char *h = f[i].help;;) {
            size_t line = strcspn(h, "\n");
            fprintf(out, "%.*s\n", (int)line, h);
            if (!h[line])
                break;
            h += line + 1;
            fprintf(out, "%*s", HELP_COLUMN, "");
        }
    }
}
