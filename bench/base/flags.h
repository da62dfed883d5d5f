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
#include "base/parse.h" /* the forms the shared rows say is good: MFB_CACHE_SIZES_FORM, MFB_SEED_FORMS */

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
 * --help, the text, and for --seed what a good one is (an apply that refuses a seed says nothing:
 * mfb_flags_parse says it from the row); what each does is the command's, so its help is given. */
#define MFB_ROW_HELP MFB_ROW("help", no_argument, 'h', true, NULL, "this text")
#define MFB_ROW_QUIET(HELP) MFB_ROW("quiet", no_argument, 'q', true, NULL, HELP)
#define MFB_ROW_OUTPUT(VALUE, HELP) MFB_ROW("output", required_argument, 'o', true, VALUE, HELP)
#define MFB_ROW_SEED(HELP)                                                                                \
    {.name = "seed", .has_arg = required_argument, .id = 's', .letter = true, .value = "S", .help = (HELP), \
     .good = "a 64-bit seed (" MFB_SEED_FORMS ")"}
#define MFB_ROW_CPU(HELP) MFB_ROW("cpu", required_argument, 'c', true, "N", HELP)
/* The options more than one command has and means alike, declared here once with their help.
 * Each only declares: the command's apply stores the value (so its table needs one), and an
 * apply that refuses the value without a message has it said from the row's good. --cache is
 * parsed by mfb_parse_cache_sizes (base/parse.h), --deadline by mfb_deadlines_parse, whose help
 * MFB_DEADLINE_HELP is programs/kinds.h's (which base/ cannot include: a command with the row
 * includes it); a run echoes its deadlines under "deadline". */
#define MFB_ROW_CACHE(ID)                                                                                   \
    {.name = "cache", .has_arg = required_argument, .id = (ID), .value = "L1D:L2:LLC",                    \
     .help = "the cache sizes the buffers are laid out for, e.g. 48K:2M:32M\n"                            \
             "(default: this machine's, as detected)",                                                    \
     .good = MFB_CACHE_SIZES_FORM}
#define MFB_ROW_DEADLINE(ID) \
    {.name = "deadline", .has_arg = required_argument, .id = (ID), .value = "KIND=S", .help = MFB_DEADLINE_HELP, \
     .echo = "deadline"}

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

/* Where a command's options end, and what the arguments after them are. */
enum mfb_flags_operands {
    MFB_OPERANDS_NONE,  /* no operand: an argument that is no option is refused */
    MFB_OPERANDS_AFTER, /* options end at the first operand (or "--"): the rest is the command's own,
                         * never read as options (record's and ab's program, a suite's run options) */
    MFB_OPERANDS_AMONG  /* operands may stand between the options (merge's folders): gathered after them */
};

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
    enum mfb_flags_operands operands;
    /* "; run options go after --": said after "see COMMAND --help" of an unknown option (NULL: nothing) */
    const char *unknown_hint;
    /* The command's --help text, printed by mfb_flags_each (NULL: the caller prints it) */
    void (*usage)(FILE *out);
};

/* Every row's initial value into the request (its other members are left as they are). */
void mfb_flags_initial(const struct mfb_flag_table *t, void *request);
/* The row getopt_long's id names, or NULL. */
const struct mfb_flag *mfb_flags_row(const struct mfb_flag_table *t, int id);
/* The row a long option's name names as getopt_long takes it: the row of that name, else the one
 * row whose name starts with it (an abbreviation); NULL when none or several do. name is len
 * characters (the part of "--name=V" before '='). */
const struct mfb_flag *mfb_flags_long(const struct mfb_flag_table *t, const char *name, size_t len);
/* The row of one of names (rows' long names) that word sets, read as getopt_long reads it: --name,
 * --name=V or an abbreviation (mfb_flags_long), or -x, -xV or a group -qx of short options; NULL
 * when it sets none of them (or is no option). For a command that passes words on to another's
 * parser and must keep some options to itself. */
const struct mfb_flag *mfb_flags_word_sets(const struct mfb_flag_table *t, const char *word, const char *const *names,
                                           size_t n);
/* Applies row r's value arg to the request: 0, or -1 with "COMMAND: --name: ..." in err. */
int mfb_flags_apply(const struct mfb_flag_table *t, const struct mfb_flag *r, const char *arg, void *request,
                    struct mfb_err *err);
/* Parses argv[1..argc) into the request, options ending as t->operands says: 0, 1 when an
 * ACTION row that apply does not take was met (--help; its id in *action), or -1 with one line
 * in err that starts with the command and names the option: an unknown option (with the nearest
 * one the table has, when a typo is likely), a missing value, a value the row refuses, an operand
 * where none is taken. A CUSTOM row's parse or apply that fails with a line of its own starting
 * "-" (a parser every command shares, such as --deadline's, names the option, not the command)
 * gets the command in front; one that fails without a line has "'V' is not <good>" said from
 * its row. *operands is the index of the first argument that is no option. */
int mfb_flags_parse(const struct mfb_flag_table *t, int argc, char **argv, void *request, int *action,
                    int *operands, struct mfb_err *err);

/* mfb_flags_parse for a command whose rows only declare its options (MFB_ROW): each option and
 * its value handed to t->apply(id, value, ctx, err) in order; 0 when every option applied, 1 at
 * --help ('h', which apply never sees; t->usage printed on stdout), -1 with err. *operands (NULL
 * for a table that takes none) is the index of the first operand. */
int mfb_flags_each(const struct mfb_flag_table *t, int argc, char **argv, void *ctx, int *operands,
                   struct mfb_err *err);

/* A value of names separated by commas (counts -v avx2,sse2) of option opt into names[*n..max):
 * a name that is empty (",,", a comma first or last, an empty value) or already among
 * names[0..*n) (in this value or an earlier one) is refused, as are more than max names. list
 * is split in place; names point into it. 0, or -1 with "COMMAND: OPT: ..." in err. */
int mfb_flags_names(const char *command, const char *opt, char *list, const char **names, int *n, int max,
                    struct mfb_err *err);

#endif
