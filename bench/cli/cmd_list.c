/* memfbench list: functions, variants with their availability here, shipped distributions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/functions.h"
#include "base/warn.h"
#include "cli/commands.h"
#include "config.h"
#include "impl/variants.h"
#include "workload/distribution.h"

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
            printf("usage: memfbench list [--dist-dir DIR]\n\nPrints the functions, their variants (and whether "
                   "this CPU can run them) and the shipped distributions.\n");
            return MFB_EXIT_OK;
        }
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
    const char *const *codes;
    size_t ncodes = mfb_warning_codes(&codes);
    printf("\nwarning codes (for --quiet-warnings):");
    for (size_t i = 0; i < ncodes; i++)
        printf("%s %s", i ? "," : "", codes[i]);
    printf("\n");
    return MFB_EXIT_OK;
}
