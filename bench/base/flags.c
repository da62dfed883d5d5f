#include "base/flags.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/parse.h"

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

const struct mfb_flag *mfb_flags_row(const struct mfb_flag_table *t, int id)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->rows[i].id == id)
            return &t->rows[i];
    return NULL;
}

static void *member(void *request, size_t offset)
{
    return (char *)request + offset;
}

void mfb_flags_initial(const struct mfb_flag_table *t, void *request)
{
    for (size_t i = 0; i < t->n; i++) {
        const struct mfb_flag *r = &t->rows[i];
        if (!r->has_initial)
            continue;
        void *m = member(request, r->member);
        switch (r->kind) {
        case MFB_FLAG_LONG:
            *(long *)m = (long)r->initial;
            break;
        case MFB_FLAG_REAL:
            *(double *)m = r->initial;
            break;
        case MFB_FLAG_BYTES:
            *(size_t *)m = (size_t)r->initial;
            break;
        case MFB_FLAG_CHOICE:
            *(int *)m = (int)r->initial;
            break;
        case MFB_FLAG_SET:
            *(bool *)m = r->initial != 0;
            break;
        default: /* text, seeds and custom rows start empty: their defaults are resolved later */
            break;
        }
    }
}

/* A whole number in [lo, hi]. */
static int apply_long(const struct mfb_flag_table *t, const struct mfb_flag *r, const char *arg, long *out,
                      struct mfb_err *err)
{
    char *end;
    errno = 0;
    long v = strtol(arg, &end, 10);
    if (end == arg || *end || errno)
        return mfb_fail(err, "%s: --%s: '%s' is not a whole number", t->command, r->name, arg);
    if (v < (long)r->lo)
        return mfb_fail(err, "%s: --%s: %ld is below the minimum %ld", t->command, r->name, v, (long)r->lo);
    if (v > (long)r->hi)
        return mfb_fail(err, "%s: --%s: at most %ld", t->command, r->name, (long)r->hi);
    *out = v;
    return 0;
}

/* A finite number in [lo, hi] (lo excluded when lo_open). */
static int apply_real(const struct mfb_flag_table *t, const struct mfb_flag *r, const char *arg, double *out,
                      struct mfb_err *err)
{
    char *end;
    errno = 0;
    double v = strtod(arg, &end);
    if (end == arg || *end || errno || !isfinite(v) || v < r->lo || (r->lo_open && v == r->lo) || v > r->hi ||
        (r->hi_open && v == r->hi))
        return mfb_fail(err, "%s: --%s: '%s' is not %s", t->command, r->name, arg, r->good);
    *out = v;
    return 0;
}

int mfb_flags_apply(const struct mfb_flag_table *t, const struct mfb_flag *r, const char *arg, void *request,
                    struct mfb_err *err)
{
    int rc = 0;
    switch (r->kind) {
    case MFB_FLAG_ACTION:
        break;
    case MFB_FLAG_SET:
        *(bool *)member(request, r->member) = true;
        break;
    case MFB_FLAG_TEXT:
        *(const char **)member(request, r->member) = arg;
        break;
    case MFB_FLAG_LONG:
        rc = apply_long(t, r, arg, member(request, r->member), err);
        break;
    case MFB_FLAG_REAL:
        rc = apply_real(t, r, arg, member(request, r->member), err);
        break;
    case MFB_FLAG_SEED:
        if (mfb_parse_seed(arg, member(request, r->member)) < 0)
            rc = mfb_fail(err, "%s: --%s: '%s' is not %s", t->command, r->name, arg, r->good);
        break;
    case MFB_FLAG_BYTES: {
        /* size_t and uint64_t are one type on the 64-bit targets memfbench builds for */
        _Static_assert(sizeof(size_t) == sizeof(uint64_t), "a BYTES member is 64 bits");
        size_t v;
        if (mfb_parse_bytes(arg, &v) < 0 || (double)v < r->lo || (double)v > r->hi ||
            (r->step > 0 && v % (size_t)r->step))
            rc = mfb_fail(err, "%s: --%s: '%s' is not %s", t->command, r->name, arg, r->good);
        else
            *(size_t *)member(request, r->member) = v;
        break;
    }
    case MFB_FLAG_CHOICE: {
        int v = t->choice(r->choice, arg);
        if (v < 0)
            rc = mfb_fail(err, "%s: --%s: '%s' is not %s", t->command, r->name, arg, r->good);
        else
            *(int *)member(request, r->member) = v; /* an enum member: every set fits an int */
        break;
    }
    case MFB_FLAG_CUSTOM:
        rc = r->parse(arg, request, err);
        break;
    }
    if (rc == 0 && r->given)
        *(bool *)member(request, r->given - 1) = true;
    return rc;
}

/* An option the table does not have, with the nearest one it has when a typo is likely. */
static int unknown_option(const struct mfb_flag_table *t, const char *arg, struct mfb_err *err)
{
    char word[64];
    const char *names[256];
    size_t n = 0;
    snprintf(word, sizeof word, "%.*s", (int)strcspn(arg + strspn(arg, "-"), "="), arg + strspn(arg, "-"));
    for (size_t i = 0; i < t->n && n < sizeof names / sizeof names[0]; i++)
        if (t->rows[i].help) /* an internal option is never a suggestion */
            names[n++] = t->rows[i].name;
    int k = strlen(arg) > 2 && arg[1] == '-' ? mfb_nearest_name(word, names, n, 2) : -1;
    if (k >= 0)
        return mfb_fail(err, "%s: unknown option '%s': did you mean --%s? (see %s --help)", t->command, arg, names[k],
                        t->command);
    return mfb_fail(err, "%s: unknown option '%s' (see %s --help)", t->command, arg, t->command);
}

int mfb_flags_parse(const struct mfb_flag_table *t, bool stop_at_operand, int argc, char **argv, void *request,
                    int *action, int *operands, struct mfb_err *err)
{
    /* n + 1 entries and the option string, on the heap: bounded by the table, not by argv */
    struct option *opts = calloc(t->n + 1, sizeof *opts);
    char *shorts = malloc(MFB_FLAGS_SHORTS_CAP(t->n));
    if (!opts || !shorts) {
        free(opts);
        free(shorts);
        return mfb_fail(err, "%s: out of memory", t->command);
    }
    mfb_flags_getopt(t->rows, t->n, stop_at_operand, opts, shorts);
    /* 0, not 1: glibc then also forgets the position inside a group of short options (-hq). */
    optind = 0;
    opterr = 0;
    int ch, rc = 0;
    while (rc == 0 && (ch = getopt_long(argc, argv, shorts, opts, NULL)) != -1) {
        const struct mfb_flag *r = ch == ':' || ch == '?' ? NULL : mfb_flags_row(t, ch);
        if (ch == ':')
            rc = mfb_fail(err, "%s: %s needs a value", t->command, argv[optind - 1]);
        else if (!r)
            rc = unknown_option(t, argv[optind - 1], err);
        else if (r->kind == MFB_FLAG_ACTION && t->apply && ch != 'h')
            rc = t->apply(ch, optarg, request, err);
        else if (r->kind == MFB_FLAG_ACTION) {
            *action = ch;
            rc = 1;
        } else
            rc = mfb_flags_apply(t, r, optarg, request, err);
    }
    *operands = optind;
    free(opts);
    free(shorts);
    return rc;
}

int mfb_flags_each(const char *command, const struct mfb_flag *rows, size_t n, int argc, char **argv,
                   int (*apply)(int id, char *arg, void *ctx, struct mfb_err *err), void *ctx, struct mfb_err *err)
{
    const struct mfb_flag_table t = {.command = command, .rows = rows, .n = n, .apply = apply};
    int action = 0, operands = 0;
    int rc = mfb_flags_parse(&t, false, argc, argv, ctx, &action, &operands, err);
    if (rc == 0 && operands < argc)
        rc = mfb_fail(err, "%s: unexpected argument '%s'", command, argv[operands]);
    return rc;
}
