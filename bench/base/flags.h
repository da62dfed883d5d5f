/* A command's options declared once, as data: each row gives the long name, whether it takes a
 * value, the parser's case label (the letter itself when -x is accepted), the value's name in the
 * help and the help text, and, for a row that fills a request directly, what it fills and how:
 * the member (by offset), the kind of value and its range, the member that records it was given,
 * the key that echoes it into the result file, and whether a --processes parent passes it on to
 * its children or sets it for each. getopt_long's table and option string, the usage text, the
 * parsing, the echo and a child's command line are all made from the rows, so they cannot
 * disagree. */
#ifndef MFB_FLAGS_H
#define MFB_FLAGS_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/error.h"

/* How a row's value becomes its member. */
enum mfb_flag_kind {
    MFB_FLAG_ACTION, /* the command acts on it itself (--help): no member */
    MFB_FLAG_SET,    /* no value: the bool member becomes true */
    MFB_FLAG_TEXT,   /* the value itself (a const char * member) */
    MFB_FLAG_LONG,   /* a whole number in [lo, hi] (a long member) */
    MFB_FLAG_REAL,   /* a finite number in [lo, hi], lo excluded when lo_open (a double member) */
    MFB_FLAG_SEED,   /* an unsigned 64-bit number, decimal or 0x hex (a uint64_t member) */
    MFB_FLAG_BYTES,  /* a size such as 2048 or 16K in [lo, hi], a multiple of step (a uint64_t or size_t member) */
    MFB_FLAG_CHOICE, /* one word of a closed set (an enum member; parsed by choice) */
    MFB_FLAG_CUSTOM  /* parsed by parse(), which fills what it fills */
};

/* What a --processes parent does with a row it was given, for each child's command line. */
enum mfb_flag_child {
    MFB_CHILD_PASS,   /* passed on as given: the child measures the same study */
    MFB_CHILD_PARENT, /* the parent's own value for the child (its seed, share, file), from the typed member */
    MFB_CHILD_DROP    /* the parent's alone (its stop rule): never a child's */
};

/* When an echoed number is written as null: never, when 0 or less (unset), when negative. */
enum mfb_flag_null { MFB_NULL_NEVER, MFB_NULL_UNLESS_POSITIVE, MFB_NULL_IF_NEGATIVE };

struct mfb_flag {
    const char *name;   /* --name */
    int has_arg;        /* no_argument, required_argument or optional_argument */
    int id;             /* what getopt_long returns for it */
    bool letter;        /* -id is accepted too (id is a letter) */
    const char *value;  /* the value's name in the help ("N", "FILE", "[=E,...]"); NULL: none */
    const char *help;   /* its lines, '\n' between them; NULL: internal (a parent gives it to its children) */
    enum mfb_flag_kind kind;
    size_t member;      /* offset of what it fills in the request */
    size_t given;       /* 1 + the offset of a bool set when it is given; 0 (a row that names none): none */
    double lo, hi;      /* LONG, REAL and BYTES: the range */
    bool lo_open, hi_open; /* REAL: lo, hi themselves are refused */
    double step;        /* BYTES: the value is a multiple of it (0: any) */
    const char *good;   /* REAL, SEED, BYTES, CHOICE: what a good value is, for "'V' is not <good>" */
    int choice;         /* CHOICE: the set (the request's closed sets, parsed by the command's choice()) */
    /* CUSTOM: parses arg into the request: 0, or -1 with the message in err */
    int (*parse)(const char *arg, void *request, struct mfb_err *err);
    bool has_initial;   /* the request starts with initial (LONG, REAL, BYTES, CHOICE, SET rows) */
    double initial;
    enum mfb_flag_child child;
    const char *echo;   /* the key that echoes it into the result file; NULL: a section of its own does */
    enum mfb_flag_null null_when;
};

/* A row that only declares an option (its command's own switch applies it). */
#define MFB_ROW(NAME, HAS_ARG, ID, LETTER, VALUE, HELP) \
    {.name = (NAME), .has_arg = (HAS_ARG), .id = (ID), .letter = (LETTER), .value = (VALUE), .help = (HELP)}
/* The options every command that has them spells alike: the letter, the value's name and, for
 * --help, the text; what each does is the command's, so its help is given. */
#define MFB_ROW_HELP MFB_ROW("help", no_argument, 'h', true, NULL, "this text")
#define MFB_ROW_QUIET(HELP) MFB_ROW("quiet", no_argument, 'q', true, NULL, HELP)
#define MFB_ROW_OUTPUT(VALUE, HELP) MFB_ROW("output", required_argument, 'o', true, VALUE, HELP)
#define MFB_ROW_SEED(HELP) MFB_ROW("seed", required_argument, 's', true, "S", HELP)
#define MFB_ROW_CPU(HELP) MFB_ROW("cpu", required_argument, 'c', true, "N", HELP)

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

/* One command's table as the generic parser uses it. */
struct mfb_flag_table {
    const char *command;           /* "memfbench run": every message starts with it */
    const struct mfb_flag *rows;
    size_t n;
    /* CHOICE rows: the value named word in set, or -1 */
    int (*choice)(int set, const char *word);
    /* The rows that only declare an option (MFB_ROW, kind ACTION) but --help: the command's own
     * switch, given the row's id and value (NULL: such a row ends the parse as an action). */
    int (*apply)(int id, char *arg, void *request, struct mfb_err *err);
};

/* Every row's initial value into the request (its other members are left as they are). */
void mfb_flags_initial(const struct mfb_flag_table *t, void *request);
/* The row getopt_long's id names, or NULL. */
const struct mfb_flag *mfb_flags_row(const struct mfb_flag_table *t, int id);
/* Applies row r's value arg to the request: 0, or -1 with "COMMAND: --name: ..." in err. */
int mfb_flags_apply(const struct mfb_flag_table *t, const struct mfb_flag *r, const char *arg, void *request,
                    struct mfb_err *err);
/* Parses argv[1..argc) into the request, stopping at the first operand with stop_at_operand:
 * 0, 1 when an ACTION row was met (its id in *action), or -1 with err. *operands is the index of
 * the first argument that is no option. */
int mfb_flags_parse(const struct mfb_flag_table *t, bool stop_at_operand, int argc, char **argv, void *request,
                    int *action, int *operands, struct mfb_err *err);

/* mfb_flags_parse for a command whose rows only declare its options (MFB_ROW): each option and
 * its value handed to apply(id, value, ctx, err) in order; 0 when every option applied and no
 * operand is left, 1 at --help ('h', which apply never sees), -1 with err (mfb_flags_parse's
 * lines, "COMMAND: unexpected argument 'x'", or apply's own). */
int mfb_flags_each(const char *command, const struct mfb_flag *rows, size_t n, int argc, char **argv,
                   int (*apply)(int id, char *arg, void *ctx, struct mfb_err *err), void *ctx, struct mfb_err *err);

#endif
