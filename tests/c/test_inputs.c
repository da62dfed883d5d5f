/* The one input rule (files/inputs.c): an output is refused when it is an input by any name (the
 * path itself, a symbolic link, a hard link, another spelling), allowed when it is new or another
 * file; inputs that add up are refused when one repeats. Works in a fresh folder under TMPDIR. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "files/inputs.h"
#include "tap.h"

static void touch(const char *path)
{
    FILE *f = fopen(path, "w");
    if (f)
        fclose(f);
}

int main(void)
{
    struct tap t = {0};
    const char *tmpdir = getenv("TMPDIR");
    char dir[512];
    snprintf(dir, sizeof dir, "%s/mfb-inputs-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
    if (!mkdtemp(dir)) {
        printf("Bail out! cannot make a folder in %s\n", dir);
        return 1;
    }
    char a[600], b[600], sym[600], hard[600], other[600], fresh[600];
    snprintf(a, sizeof a, "%s/a.csv", dir);
    snprintf(b, sizeof b, "%s/./a.csv", dir);
    snprintf(sym, sizeof sym, "%s/sym.csv", dir);
    snprintf(hard, sizeof hard, "%s/hard.csv", dir);
    snprintf(other, sizeof other, "%s/other.csv", dir);
    snprintf(fresh, sizeof fresh, "%s/new.json", dir);
    touch(a);
    touch(other);
    int links = symlink(a, sym) | link(a, hard);
    TAP_CHECK(&t, links == 0, "links made");

    struct mfb_inputs in = {0};
    struct mfb_err err = {{0}};
    /* a plugin spec's library part: the first len bytes */
    TAP_CHECK(&t, mfb_inputs_add(&in, MFB_INPUT_PLUGIN, "lib.so:sym", 6, &err) == 0 && !strcmp(in.v[0].path, "lib.so"),
              "a prefix is kept as its own string");
    TAP_CHECK(&t, mfb_inputs_add(&in, MFB_INPUT_DISTRIBUTION, a, strlen(a), &err) == 0, "added");
    const char *same[] = {a, b, sym, hard};
    for (int k = 0; k < 4; k++) {
        err.msg[0] = '\0';
        int rc = mfb_inputs_check_output(&in, same[k], "-o", &err);
        TAP_CHECK(&t, rc < 0 && strstr(err.msg, "names an input, the distribution table") && strstr(err.msg, "-o"),
                  "%s refused: %s", same[k] + strlen(dir), err.msg);
    }
    TAP_CHECK(&t, mfb_inputs_check_output(&in, other, "-o", &err) == 0, "another file is no input");
    TAP_CHECK(&t, mfb_inputs_check_output(&in, fresh, "-o", &err) == 0, "a new name is no input");
    TAP_CHECK(&t, mfb_inputs_check_distinct(&in, &err) == 0, "distinct inputs");
    for (int k = 0; k < 20; k++) /* past the first capacity */
        mfb_inputs_add(&in, MFB_INPUT_BPFTRACE, other, strlen(other), &err);
    TAP_CHECK(&t, in.n == 22, "the list grows");
    mfb_inputs_free(&in);
    TAP_CHECK(&t, in.n == 0 && !in.v, "freed");

    mfb_inputs_add(&in, MFB_INPUT_RECORDING, a, strlen(a), &err);
    mfb_inputs_add(&in, MFB_INPUT_RECORDING, other, strlen(other), &err);
    mfb_inputs_add(&in, MFB_INPUT_RECORDING, "/no/such/input", 14, &err);
    mfb_inputs_add(&in, MFB_INPUT_RECORDING, hard, strlen(hard), &err);
    err.msg[0] = '\0';
    TAP_CHECK(&t, mfb_inputs_check_distinct(&in, &err) < 0 && strstr(err.msg, "hard.csv: the same recorded folder as") &&
                      strstr(err.msg, "a.csv"),
              "a hard link to an earlier input repeats it: %s", err.msg);
    mfb_inputs_free(&in);

    unlink(sym);
    unlink(hard);
    unlink(a);
    unlink(other);
    rmdir(dir);
    return tap_done(&t);
}
