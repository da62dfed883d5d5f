/* Fuzz target: a distribution given as PREFIX_size.csv plus its sibling files, which
 * mfb_dist_resolve (bench/workload/distribution.c, load_csv_set) loads together: _alignment,
 * _src_alignment, _dst_alignment, _overlap and _mismatch. The input holds the files' contents,
 * each after a line naming it:
 *
 *     @size
 *     size,weight
 *     8,1
 *     @alignment
 *     alignment,weight
 *     ...
 *
 * Only the files named are written (a name given twice: the last one wins); text before the
 * first name is ignored. They go into a private temporary folder, created once per process. */
#include <sys/stat.h>

#include "fuzz_common.h"

static const char *const suffixes[] = {"size", "alignment", "src_alignment", "dst_alignment", "overlap", "mismatch"};
enum { NSUFFIX = sizeof suffixes / sizeof suffixes[0] };

static char dir[256];

static void path_of(char *buf, size_t n, int k)
{
    snprintf(buf, n, "%s/t_%s.csv", dir, suffixes[k]);
}

static void remove_dir(void)
{
    char p[512];
    for (int k = 0; k < NSUFFIX; k++) {
        path_of(p, sizeof p, k);
        unlink(p);
    }
    rmdir(dir);
}

static void make_dir(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/mfb-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        abort();
    }
    atexit(remove_dir);
}

static void write_file(int k, const uint8_t *p, size_t n)
{
    char path[512];
    path_of(path, sizeof path, k);
    FILE *f = fopen(path, "wb");
    if (!f || (n && fwrite(p, 1, n, f) != n) || fclose(f) != 0) {
        perror(path);
        abort();
    }
}

/* The suffix a "@name" line names, or -1. */
static int header_of(const uint8_t *line, size_t n)
{
    if (n < 2 || line[0] != '@')
        return -1;
    if (line[n - 1] == '\r')
        n--;
    for (int k = 0; k < NSUFFIX; k++)
        if (strlen(suffixes[k]) == n - 1 && !memcmp(line + 1, suffixes[k], n - 1))
            return k;
    return -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!dir[0])
        make_dir();
    char path[512];
    for (int k = 0; k < NSUFFIX; k++) {
        path_of(path, sizeof path, k);
        unlink(path);
    }
    /* Split the input at its "@name" lines. */
    const uint8_t *start[NSUFFIX] = {0}, *end[NSUFFIX] = {0};
    int cur = -1;
    for (size_t i = 0; i < size;) {
        const uint8_t *nl = memchr(data + i, '\n', size - i);
        size_t len = nl ? (size_t)(nl - (data + i)) : size - i;
        int k = header_of(data + i, len);
        size_t next = i + len + (nl ? 1 : 0);
        if (k >= 0) {
            if (cur >= 0)
                end[cur] = data + i;
            cur = k;
            start[k] = data + next;
            end[k] = data + next;
        }
        i = next;
    }
    if (cur >= 0)
        end[cur] = data + size;
    for (int k = 0; k < NSUFFIX; k++)
        if (start[k])
            write_file(k, start[k], (size_t)(end[k] - start[k]));

    char spec[512];
    path_of(spec, sizeof spec, 0);
    for (int f = 0; f < MFB_FUNC_COUNT; f++) {
        struct mfb_dist d;
        struct mfb_err err = {{0}};
        int rc = mfb_dist_resolve(&d, spec, (enum mfb_func)f, "/nonexistent-dist-dir", &err);
        if (rc == 0) {
            FUZZ_CHECK(start[0] != NULL);
            fuzz_check_dist(&d, (enum mfb_func)f);
            FUZZ_CHECK(d.format == MFB_FORMAT_CSV && !strcmp(d.files[0].path, spec));
            /* One file per table that was written and read (alignment: one for both). */
            int written = 0;
            for (int k = 0; k < NSUFFIX; k++)
                written += start[k] != NULL;
            FUZZ_CHECK(d.nfiles == written);
            if (start[1] && f != MFB_MEMSET)
                FUZZ_CHECK(d.src_align.n > 0 && d.src_align.n == d.dst_align.n);
        } else {
            FUZZ_CHECK(rc == -1 && err.msg[0] != '\0');
        }
        mfb_dist_free(&d);
    }
    return 0;
}
