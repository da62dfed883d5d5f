/* Fuzz target: the distribution table CSV loader, mfb_table_load_csv (bench/workload/table.c,
 * with the record reader of bench/workload/csv.c). The input is the file's content; it is loaded
 * as each of the four table kinds, so one corpus covers size (both header forms), alignment,
 * overlap and mismatch tables. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct fuzz_file file;
    fuzz_file_set(&file, data, size);
    static const enum mfb_table_kind kinds[] = {MFB_T_SIZE, MFB_T_ALIGN, MFB_T_OVERLAP, MFB_T_MISMATCH};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        struct mfb_table t;
        struct mfb_err err = {{0}};
        int rc = mfb_table_load_csv(&t, kinds[k], file.path, &err);
        if (rc == 0) {
            fuzz_check_table(&t, kinds[k]);
            FUZZ_CHECK(t.origin == MFB_TABLE_FROM_FILE && t.path && !strcmp(t.path, file.path));
        } else {
            FUZZ_CHECK(rc == -1);
            /* Every failure says why, and names the file. */
            FUZZ_CHECK(err.msg[0] != '\0' && strstr(err.msg, file.path) == err.msg);
            /* A failed load has freed what it allocated (LeakSanitizer checks the rest). */
            FUZZ_CHECK(!t.path && !t.rows && t.n == 0);
            continue;
        }
        mfb_table_free(&t);
    }
    return 0;
}
