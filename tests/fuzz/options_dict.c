/* Writes the libFuzzer dictionary of fuzz_options from the option rows themselves (study/options.c):
 * every option's long and short form, every word of the closed sets and the functions, then the
 * values that sit on the parsers' edges. A new option is in the dictionary the moment it is a row. */
#include <stdio.h>

#include "base/functions.h"
#include "study/options.h"

/* Numbers on the edges of the parsers (signs, bases, overflow of 32 and 64 bits, floats) and the
 * words of the custom parsers (--cpu none, --unpredictable class, --large-window, --quiet-warnings all,
 * --deadline KIND=S). */
static const char *const edge_values[] = {
    "0x", "48K:2M:32M", ":", ",", "-", "K", "M", "G", "e-400", "1e308", "inf", "nan", "4294967295", "2147483648",
    "9223372036854775807", "9223372036854775808", "18446744073709551616", "-1", "libc", "noop", "none", "class",
    "sized", "evicted", "all", "build=", "valgrind=none", "process=0.5", "program=1e7",
};

int main(void)
{
    printf("# Options of `memfbench run` (one argument per line in the input) and their values.\n"
           "# Generated from the option rows by tests/fuzz/options_dict.c at build time.\n"
           "\"\\x0a\"\n\"--\"\n\"=\"\n");
    const struct mfb_flag_table *t = mfb_study_flags();
    for (size_t i = 0; i < t->n; i++) {
        printf("\"--%s\"\n", t->rows[i].name);
        if (t->rows[i].letter)
            printf("\"-%c\"\n", t->rows[i].id);
    }
    for (int s = 0; s < MFB_SET_COUNT; s++)
        for (int v = 0; v < mfb_choice_count((enum mfb_choice_set)s); v++)
            printf("\"%s\"\n", mfb_choice_name((enum mfb_choice_set)s, v));
    for (int f = 0; f < MFB_FUNC_COUNT; f++)
        printf("\"%s\"\n", mfb_func_name((enum mfb_func)f));
    for (size_t i = 0; i < sizeof edge_values / sizeof edge_values[0]; i++)
        printf("\"%s\"\n", edge_values[i]);
    return 0;
}
