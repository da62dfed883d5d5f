/* The variants of memfbench ab checked before the program runs: by memfbench run itself, which
 * verifies each variant on every call shape of a distribution before timing it, contains what the
 * code under test does (a crash, an exit, a hang: named, not fatal) and refuses a wrong result in
 * one line. Run as a child, so that a variant's constructor that ends its process ends the check,
 * not ab; one round only, as only the check is wanted. */
#include "ab/ab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ab/abself.h"

int mfb_ab_verify(const struct mfb_ab *ab, const char *const *variants, int n, struct mfb_err *err)
{
    char table[PATH_MAX + 64], cpu[16], watchdog[32];
    snprintf(table, sizeof table, "%s/%s_size.csv", ab->recording, mfb_func_name(ab->func));
    snprintf(watchdog, sizeof watchdog, "%g", ab->watchdog_s);
    const char *argv[MFB_AB_SELF_ARGV];
    /* the recorded table's shapes when there is one: the calls the program makes */
    int k = mfb_ab_self_argv(ab, argv, ab->recording[0] ? "-d" : NULL, table, false, variants, n, cpu, sizeof cpu);
    argv[k++] = "--rounds";
    argv[k++] = "1";
    argv[k++] = "--processes";
    argv[k++] = "1";
    if (ab->watchdog_s > 0) {
        argv[k++] = "--watchdog";
        argv[k++] = watchdog;
    }
    argv[k++] = "-o";
    argv[k++] = "-";
    argv[k] = NULL;
    int exit_status;
    if (mfb_ab_run_self(ab, argv, "the variants' check", &exit_status, err) == 0)
        return 0;
    if (exit_status != MFB_EXIT_FAIL)
        return -1; /* stopped: the line says so */
    char why[sizeof err->msg];
    snprintf(why, sizeof why, "%s", err->msg);
    return mfb_fail(err, "memfbench ab: the variants' check (memfbench run on every call shape of %s) refused: %s",
                    ab->recording[0] ? table : "the function's default distribution", why);
}
