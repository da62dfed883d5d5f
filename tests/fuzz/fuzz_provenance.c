/* Fuzz target: provenance.json as memfbench ab --predict-from reads it (report/provenance.c): the
 * input is the file; each function's call count is asked for. A success must hold what the reader
 * promises: a whole count from 1 to 2^53 and a recorded program's name that fits. */
#include "fuzz_common.h"
#include "report/provenance.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct fuzz_file file;
    fuzz_file_set(&file, data, size);
    for (int f = 0; f < MFB_FUNC_COUNT; f++) {
        struct mfb_err err = {{0}};
        uint64_t calls = 0;
        char program[256];
        if (mfb_provenance_calls_at(file.path, (enum mfb_func)f, &calls, program, sizeof program, &err) == 0) {
            FUZZ_CHECK(calls >= 1 && calls <= (1ull << 53));
            FUZZ_CHECK(program[0] != '\0' && strlen(program) < sizeof program);
        } else {
            FUZZ_CHECK(err.msg[0] != '\0');
        }
    }
    return 0;
}
