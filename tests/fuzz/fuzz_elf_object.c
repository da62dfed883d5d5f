/* Fuzz target: the reader of a source variant's relocatable object (bench/base/elfobj.c), which
 * reads a user's FILE.o. The input is the object's bytes; the symbol asked for is "f" (the corpus's
 * objects define it). A success must give a symbol whose relocated fields lie inside its code,
 * in order, and the comparison of two copies must run over them without reading past the code. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/elfobj.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* the list of functions a file offers (for a -v without its symbol): bounded, terminated */
    char fns[64];
    int nf = mfb_elf_functions(data, size, fns, sizeof fns);
    FUZZ_CHECK(nf >= -1 && memchr(fns, '\0', sizeof fns) != NULL);
    /* memfbench counts' size of a function valgrind names, and the build ID that finds a stripped
     * object's debug file: a size only when found, an ID of hex digits inside its buffer */
    uint64_t fsize = 0;
    int rs = mfb_elf_function_size(data, size, "f", MFB_ELF_SYMTAB | MFB_ELF_DYNSYM, &fsize);
    FUZZ_CHECK(rs >= -1 && rs <= 1 && (rs != 1 || fsize > 0));
    char id[41];
    int ni = mfb_elf_build_id(data, size, id, sizeof id);
    FUZZ_CHECK(ni >= -1 && ni < (int)sizeof id && strlen(id) == (size_t)(ni > 0 ? ni : 0) &&
               strspn(id, "0123456789abcdef") == strlen(id));
    struct mfb_elf_symbol s;
    struct mfb_err err = {{0}};
    if (mfb_elf_symbol_read(data, size, "fuzz.o", "f", &s, &err) < 0) {
        FUZZ_CHECK(err.msg[0] != '\0' && strchr(err.msg, '\n') == NULL);
        return 0;
    }
    FUZZ_CHECK(s.nfields <= MFB_ELF_MAX_FIELDS);
    FUZZ_CHECK(s.kind == MFB_ELF_FUNCTION || s.nfields == 0);
    for (size_t i = 0; i < s.nfields; i++) {
        FUZZ_CHECK(s.fields[i].offset < s.size && s.fields[i].width >= 1 && s.fields[i].width <= 8);
        FUZZ_CHECK(i == 0 || s.fields[i - 1].offset <= s.fields[i].offset);
    }
    /* two copies of the code, the second with every field's bytes changed: the same but for them */
    size_t n = s.size < 4096 ? (size_t)s.size : 4096;
    unsigned char *a = calloc(n + 1, 1), *b = calloc(n + 1, 1);
    if (a && b) {
        for (size_t i = 0; i < s.nfields; i++)
            for (size_t k = s.fields[i].offset; k < s.fields[i].offset + s.fields[i].width && k < n; k++)
                b[k] = 0xff;
        FUZZ_CHECK(mfb_elf_same_but_fields(a, b, n, &s));
        if (n > 0) {
            /* a byte outside every field differs: no longer the same */
            size_t k = 0;
            for (size_t i = 0; i < s.nfields && k < n; i++)
                if (s.fields[i].offset <= k)
                    k = k > s.fields[i].offset + s.fields[i].width ? k : s.fields[i].offset + s.fields[i].width;
            if (k < n) {
                b[k] ^= 1;
                FUZZ_CHECK(!mfb_elf_same_but_fields(a, b, n, &s));
            }
        }
    }
    free(a);
    free(b);
    mfb_elf_symbol_free(&s);
    return 0;
}
