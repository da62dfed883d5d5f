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
#include "base/filetext.h"

/* The last line of the check's messages: memfbench run says why in one line, last. */
static void last_line(const char *path, char *out, size_t n)
{
    struct mfb_err ignored = {{0}};
    size_t len;
    char *text = mfb_file_text(path, 1u << 20, &len, &ignored);
    out[0] = '\0';
    if (!text)
        return;
    while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r'))
        text[--len] = '\0';
    char *start = strrchr(text, '\n');
    snprintf(out, n, "%s", start ? start + 1 : text);
    free(text);
}

int mfb_ab_verify(const struct mfb_ab *ab, const char *const *variants, int n, struct mfb_err *err)
{
    char table[PATH_MAX + 64], cpu[16], watchdog[32], messages[PATH_MAX + 16];
    snprintf(table, sizeof table, "%s/%s_size.csv", ab->recording, mfb_func_name(ab->func));
    snprintf(watchdog, sizeof watchdog, "%g", ab->watchdog_s);
    snprintf(messages, sizeof messages, "%s/check.txt", ab->work);
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
    int status, exit_status;
    if (mfb_ab_run_self(argv, "the variants' check", messages, &status, &exit_status, err) < 0)
        return -1;
    if (status == 0)
        return 0;
    char why[1024];
    last_line(messages, why, sizeof why);
    return mfb_fail(err, "memfbench ab: the variants' check (memfbench run on every call shape of %s) refused: %s",
                    ab->recording[0] ? table : "the function's default distribution",
                    why[0] ? why : "it ended without a message");
}
