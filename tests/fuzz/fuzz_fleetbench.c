/* Fuzz target: a distribution given as one file path, which mfb_dist_resolve
 * (bench/workload/distribution.c) reads either as fleetbench's own format, three lines of
 * key:probability pairs (size, overlap, alignment; load_fleetbench), or, when the first line
 * does not look like that, as a size table CSV. The input is the file's content; it is resolved
 * for every function, since overlap, mismatch and alignment handling depend on the function. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct fuzz_file file;
    fuzz_file_set(&file, data, size);
    for (int f = 0; f < MFB_FUNC_COUNT; f++) {
        struct mfb_dist d;
        struct mfb_err err = {{0}};
        /* The path is a regular file, so dist_dir is never consulted: give it one that does not exist. */
        int rc = mfb_dist_resolve(&d, file.path, (enum mfb_func)f, "/nonexistent-dist-dir", &err);
        if (rc == 0) {
            fuzz_check_dist(&d, (enum mfb_func)f);
            FUZZ_CHECK(d.format == MFB_FORMAT_FLEETBENCH || d.format == MFB_FORMAT_CSV);
            FUZZ_CHECK(d.nfiles == 1 && !strcmp(d.files[0].path, file.path));
            if (d.format == MFB_FORMAT_FLEETBENCH && f != MFB_MEMSET)
                FUZZ_CHECK(d.src_align.n == d.dst_align.n);
        } else {
            FUZZ_CHECK(rc == -1 && err.msg[0] != '\0');
        }
        mfb_dist_free(&d);
    }
    return 0;
}
