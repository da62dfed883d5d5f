/* memfbench list: functions, variants with their availability here, shipped distributions, and
 * (--warnings) the table of warnings and notes, tab-separated for the docs made from it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/functions.h"
#include "base/warn.h"
#include "cli/commands.h"
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

int mfb_cmd_list(int argc, char **argv)
{
    const char *dir = getenv("MEMFBENCH_DISTRIBUTIONS") ? getenv("MEMFBENCH_DISTRIBUTIONS") : MFB_DIST_DIR;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            printf("usage: memfbench list [--dist-dir DIR] [--warnings]\n\nPrints the functions, their variants (and "
                   "whether this CPU can run them) and the shipped distributions; with --warnings, the table of "
                   "warnings and notes (code, severity, consequence, fix; tab-separated).\n");
            return MFB_EXIT_OK;
        }
        if (!strcmp(argv[i], "--warnings"))
            return print_warnings();
        if (!strcmp(argv[i], "--dist-dir") && i + 1 < argc) {
            dir = argv[++i];
            continue;
        }
        fprintf(stderr, "memfbench list: unknown argument '%s'\n", argv[i]);
        return MFB_EXIT_USAGE;
    }
    const struct mfb_variant *v;
    size_t n = mfb_variants_all(&v);
    printf("functions and variants (* = not available on this CPU or in this build):\n");
    for (int f = 0; f < MFB_FUNC_COUNT; f++) {
        printf("  %s (default distribution %s)\n", mfb_func_name((enum mfb_func)f),
               mfb_func_default_distribution((enum mfb_func)f));
        for (size_t i = 0; i < n; i++) {
            if (v[i].func != (enum mfb_func)f)
                continue;
            bool ok = mfb_variant_available(&v[i]);
            printf("    %c %-10s %-8s %s%s%s\n", ok ? ' ' : '*', v[i].name, mfb_origin_name(v[i].origin), v[i].description,
                   ok ? "" : " -- needs ", ok ? "" : v[i].needs);
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
