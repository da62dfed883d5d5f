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

const struct mfb_flag *mfb_flags_long(const struct mfb_flag_table *t, const char *name, size_t len)
{
    const struct mfb_flag *found = NULL;
    int prefixed = 0;
    for (size_t i = 0; i < t->n; i++) {
        const struct mfb_flag *r = &t->rows[i];
        if (strncmp(r->name, name, len))
            continue;
        if (r->name[len] == '\0')
            return r;
        found = r;
        prefixed++;
    }
    return prefixed == 1 ? found : NULL;
}

/* Row r, when it is one of names. */
static const struct mfb_flag *named_row(const struct mfb_flag *r, const char *const *names, size_t n)
{
    for (size_t i = 0; r && i < n; i++)
        if (!strcmp(r->name, names[i]))
            return r;
    return NULL;
}

const struct mfb_flag *mfb_flags_word_sets(const struct mfb_flag_table *t, const char *word, const char *const *names,
                                           size_t n)
{
    if (word[0] != '-' || word[1] == '\0')
        return NULL;
    if (word[1] == '-')
        return named_row(mfb_flags_long(t, word + 2, strcspn(word + 2, "=")), names, n);
    /* a group of short options: each letter until one that takes a value (the rest is its value) */
    for (const char *c = word + 1; *c; c++) {
        const struct mfb_flag *r = mfb_flags_row(t, (unsigned char)*c);
        if (!r || !r->letter)
            return NULL;
        if (named_row(r, names, n))
            return r;
        if (r->has_arg != no_argument)
            return NULL;
    }
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
    const char *hint = t->unknown_hint ? t->unknown_hint : "";
    snprintf(word, sizeof word, "%.*s", (int)strcspn(arg + strspn(arg, "-"), "="), arg + strspn(arg, "-"));
    for (size_t i = 0; i < t->n && n < sizeof names / sizeof names[0]; i++)
        if (t->rows[i].help) /* an internal option is never a suggestion */
            names[n++] = t->rows[i].name;
    int k = strlen(arg) > 2 && arg[1] == '-' ? mfb_nearest_name(word, names, n, 2) : -1;
    if (k >= 0)
        return mfb_fail(err, "%s: unknown option '%s': did you mean --%s? (see %s --help%s)", t->command, arg,
                        names[k], t->command, hint);
    return mfb_fail(err, "%s: unknown option '%s' (see %s --help%s)", t->command, arg, t->command, hint);
}

/* The line as one line: a value quoted in it may hold a newline or another control character,
 * shown as '?' (the terminal would act on it). */
static void one_line(struct mfb_err *err)
{
    for (char *p = err->msg; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
}

/* A value the row's own parser (or the command's apply) refused: its line made whole, as
 * mfb_flags_parse says. */
static int refused(const struct mfb_flag_table *t, const struct mfb_flag *r, const char *arg, struct mfb_err *err)
{
    if (!err->msg[0])
        return mfb_fail(err, "%s: --%s: '%s' is not %s", t->command, r->name, arg ? arg : "",
                        r->good ? r->good : "a value it takes");
    if (err->msg[0] == '-') {
        char line[sizeof err->msg];
        snprintf(line, sizeof line, "%s", err->msg);
        return mfb_fail(err, "%s: %s", t->command, line);
    }
    return -1;
}

/* A row's value applied, through the command's switch for a row that only declares. */
static int apply_row(const struct mfb_flag_table *t, const struct mfb_flag *r, int id, char *arg, void *request,
                     struct mfb_err *err)
{
    err->msg[0] = '\0';
    int rc = r->kind == MFB_FLAG_ACTION ? t->apply(id, arg, request, err) : mfb_flags_apply(t, r, arg, request, err);
    return rc < 0 ? refused(t, r, arg, err) : rc;
}

/* A value missing at the end of the command line: the option named as it was given. */
static int missing_value(const struct mfb_flag_table *t, const char *given, struct mfb_err *err)
{
    /* getopt's optopt is the row's id for a long option and a letter alike */
    const struct mfb_flag *r = mfb_flags_row(t, optopt);
    if (r && r->letter && !(given[0] == '-' && given[1] == '-'))
        return mfb_fail(err, "%s: -%c (--%s) needs a value", t->command, r->id, r->name);
    if (r)
        return mfb_fail(err, "%s: --%s needs a value", t->command, r->name);
    return mfb_fail(err, "%s: %s needs a value", t->command, given);
}

int mfb_flags_parse(const struct mfb_flag_table *t, int argc, char **argv, void *request, int *action,
                    int *operands, struct mfb_err *err)
{
    /* n + 1 entries and the option string, on the heap: bounded by the table, not by argv */
    struct option *opts = calloc(t->n + 1, sizeof *opts);
    char *shorts = malloc(MFB_FLAGS_SHORTS_CAP(t->n));
    if (!opts || !shorts) {
        free(opts);
        free(shorts);
        return mfb_fail(err, "%s: out of memory", t->command);
    }
    mfb_flags_getopt(t->rows, t->n, t->operands == MFB_OPERANDS_AFTER, opts, shorts);
    /* 0, not 1: glibc then also forgets the position inside a group of short options (-hq). */
    optind = 0;
    opterr = 0;
    int ch, rc = 0;
    while (rc == 0 && (ch = getopt_long(argc, argv, shorts, opts, NULL)) != -1) {
        const struct mfb_flag *r = ch == ':' || ch == '?' ? NULL : mfb_flags_row(t, ch);
        if (ch == ':')
            rc = missing_value(t, argv[optind - 1], err);
        else if (!r)
            rc = unknown_option(t, argv[optind - 1], err);
        else if (r->kind == MFB_FLAG_ACTION && (!t->apply || ch == 'h')) {
            *action = ch;
            rc = 1;
        } else
            rc = apply_row(t, r, ch, optarg, request, err);
    }
    *operands = optind;
    if (rc == 0 && t->operands == MFB_OPERANDS_NONE && optind < argc)
        rc = mfb_fail(err, "%s: unexpected argument '%s'", t->command, argv[optind]);
    free(opts);
    free(shorts);
    if (rc < 0)
        one_line(err);
    return rc;
}

int mfb_flags_each(const struct mfb_flag_table *t, int argc, char **argv, void *ctx, int *operands,
                   struct mfb_err *err)
{
    int action = 0, first = argc;
    int rc = mfb_flags_parse(t, argc, argv, ctx, &action, &first, err);
    if (operands)
        *operands = first;
    if (rc == 1 && t->usage)
        t->usage(stdout);
    return rc;
}

int mfb_flags_names(const char *command, const char *opt, char *list, const char **names, int *n, int max,
                    struct mfb_err *err)
{
    size_t len = strlen(list);
    int rc = 0;
    if (!len || list[0] == ',' || list[len - 1] == ',' || strstr(list, ",,"))
        rc = mfb_fail(err, "%s: %s: '%s' holds an empty name (names are separated by single commas)", command, opt,
                      list);
    char *save = NULL;
    for (char *name = rc ? NULL : strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
        for (int i = 0; i < *n && rc == 0; i++)
            if (!strcmp(names[i], name))
                rc = mfb_fail(err, "%s: %s: '%s' is named twice", command, opt, name);
        if (rc == 0 && *n == max)
            rc = mfb_fail(err, "%s: %s: more than %d names ('%s' is one too many)", command, opt, max, name);
        if (rc < 0)
            break;
        names[(*n)++] = name;
    }
    if (rc < 0)
        one_line(err);
    return rc;
}
