/* A command's options declared once, as data: each row gives the long name, whether it takes a
 * value, the parser's case label (the letter itself when -x is accepted), the value's name in the
 * help and the help text. getopt_long's table and option string and the usage text are all made
 * from the rows, so they cannot disagree; each command's parser switches on the case label. */
#ifndef MFB_FLAGS_H
#define MFB_FLAGS_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct mfb_flag {
    const char *name;   /* --name */
    int has_arg;        /* no_argument, required_argument or optional_argument */
    int id;             /* what getopt_long returns for it */
    bool letter;        /* -id is accepted too (id is a letter) */
    const char *value;  /* the value's name in the help ("N", "FILE", "[=E,...]"); NULL: none */
    const char *help;   /* its lines, '\n' between them; NULL: internal (a parent gives it to its children) */
};

/* Room for getopt's option string: its lead ("+:" at most), two characters per flag, the terminator. */
#define MFB_FLAGS_SHORTS_CAP(n) (2 * (n) + 3)

/* getopt_long's table into opts (n + 1 entries: the rows, then zeros) and its option string into
 * shorts: ':' (a missing value comes back as ':', so the message can name the option), after a
 * '+' with stop_at_operand (options end at the first operand: record's program), then each
 * letter, with ':' when it takes a value; shorts holds MFB_FLAGS_SHORTS_CAP(n) characters. */
void mfb_flags_getopt(const struct mfb_flag *f, size_t n, bool stop_at_operand, struct option *opts, char *shorts);
/* The option lines of the usage text: "  -x, --name V   help", the help from column 25, each
 * further help line indented to it. */
void mfb_flags_usage(FILE *out, const struct mfb_flag *f, size_t n);

#endif
