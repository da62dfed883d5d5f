/* Fuzz target: `run --cache-from FILE`'s reader of probe files (bench/probe/cachefrom.c). The
 * input is the file, plain or gzip. A success must give sizes the run can use: l1d < l2 <= llc,
 * each at least 1 KiB, and a line of 16 to 4096 bytes. */
#include "fuzz_common.h"
#include "probe/cachefrom.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct fuzz_file file;
    fuzz_file_set(&file, data, size);
    struct mfb_caches c;
    struct mfb_err err = {{0}};
    if (mfb_probe_read_caches(file.path, &c, &err) == 0) {
        FUZZ_CHECK(c.l1d >= 1024 && c.l1d < c.l2 && c.l2 <= c.llc);
        FUZZ_CHECK(c.line >= 16 && c.line <= 4096 && c.source == MFB_CACHE_PROBE);
    } else {
        FUZZ_CHECK(err.msg[0] != '\0' && strchr(err.msg, '\n') == NULL);
    }
    return 0;
}
