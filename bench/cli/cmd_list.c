/* memfbench list: functions, variants with their availability here, shipped distributions, and
 * (--warnings) the table of warnings and notes, tab-separated for the docs made from it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/functions.h"
#include "base/warn.h"
#include "base/flags.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "config.h"
#include "impl/variants.h"
#include "workload/distribution.h"

/* The table of warnings, one row a line: code, severity, consequence, fix, tab-separated. */
static int print_warnings(void)
{
    for (int k = 0; k < MFB_W_COUNT; k++) {
        const struct mfb_warning_kind *w = mfb_warning_kind((enum mfb_warning)k);
        printf("%s\t%s\t%s\t%s\n", w->code, mfb_severity_name(w->severity), w->consequence, w->fix);
    }
    return MFB_EXIT_OK;
}

static void print_name(const char *name, void *ctx)
{
    (void)ctx;
    printf("  %s\n", name);
}

enum { OPT_DIST_DIR = 256, OPT_WARNINGS };

/* The options of memfbench list, in the order --help lists them (base/flags.h). */
static const struct mfb_flag list_flags[] = {
    MFB_ROW("dist-dir", required_argument, OPT_DIST_DIR, false, "DIR",
     "list the distributions in DIR (default: the shipped ones)"),
    MFB_ROW("warnings", no_argument, OPT_WARNINGS, false, NULL,
     "the table of warnings and notes instead (code, severity, consequence,\n"
     "fix; tab-separated)"),
    MFB_ROW_HELP,
};

static void usage(FILE *out)
{
    fputs("usage: memfbench list [--dist-dir DIR] [--warnings]\n\n"
          "Prints the functions, their variants (and whether this CPU can run them) and the shipped\n"
          "distributions.\n\n", out);
    mfb_flags_usage(out, list_flags, sizeof list_flags / sizeof list_flags[0]);
}

struct list_args {
    const char *dir;
    bool warnings;
};

static int apply(int ch, char *arg, void *ctx, struct mfb_err *err)
{
    struct list_args *a = ctx;
    struct stat st;
    if (ch == OPT_WARNINGS) {
        a->warnings = true;
    } else if (ch == OPT_DIST_DIR) {
        /* a folder, checked here: a FIFO, a file or a missing path gets one line, not an empty list */
        if (stat(arg, &st) != 0 || !S_ISDIR(st.st_mode))
            return mfb_fail(err, "memfbench list: --dist-dir %s: %s", arg,
                            stat(arg, &st) != 0 ? "no such folder" : "not a folder");
        a->dir = arg;
    }
    return 0;
}

static const struct mfb_flag_table list_table = {.command = "memfbench list", .rows = list_flags,
                                                .n = sizeof list_flags / sizeof list_flags[0], .apply = apply,
                                                .usage = usage};

int mfb_cmd_list(int argc, char **argv)
{
    const char *env = getenv("MEMFBENCH_DISTRIBUTIONS");
    struct list_args a = {.dir = env && *env ? env : MFB_DIST_DIR};
    struct mfb_err err = {{0}};
    int rc = mfb_flags_each(&list_table, argc, argv, &a, NULL, &err);
    if (rc != 0)
        return mfb_options_end(rc, &err);
    if (a.warnings)
        return print_warnings();
    const char *dir = a.dir;
    const struct mfb_variant *v;
    size_t n = mfb_variants_all(&v);
    /* the columns as wide as their longest entry: a name of 14 characters (rep_movsb-copy) would
     * otherwise push its row's description out of line */
    int wname = 0, worigin = 0;
    for (size_t i = 0; i < n; i++) {
        int a = (int)strlen(v[i].name), b = (int)strlen(mfb_origin_name(v[i].origin));
        wname = a > wname ? a : wname;
        worigin = b > worigin ? b : worigin;
    }
    printf("functions and variants (* = not available on this CPU or in this build):\n");
    for (int f = 0; f < MFB_FUNC_COUNT; f++) {
        printf("  %s (default distribution %s)\n", mfb_func_name((enum mfb_func)f),
               mfb_func_default_distribution((enum mfb_func)f));
        for (size_t i = 0; i < n; i++) {
            if (v[i].func != (enum mfb_func)f)
                continue;
            bool ok = mfb_variant_available(&v[i]);
            printf("    %c %-*s %-*s %s%s%s\n", ok ? ' ' : '*', wname, v[i].name, worigin, mfb_origin_name(v[i].origin),
                   v[i].description, ok ? "" : " -- needs ", ok ? "" : v[i].needs);
        }
    }
    printf("\ndistributions in %s:\n", dir);
    if (mfb_dist_list(dir, print_name, NULL) < 0)
        printf("  (folder not readable)\n");
    printf("\nsynthetic: fixed:N, uniform:LO-HI, pow2:LO-HI\n");
    printf("\nwarning codes (for --quiet-warnings; what each means and its fix: memfbench list --warnings):");
    for (int k = 0; k < MFB_W_COUNT; k++)
        printf("%s %s", k ? "," : "", mfb_warning_kind((enum mfb_warning)k)->code);
    printf("\n");
    return MFB_EXIT_OK;
}
