/* What memfbench needs of a relocatable ELF object (the .o a compiler writes, or the one `ld -r`
 * makes of an archive's members): one symbol's kind, binding and extent, and which bytes of its
 * code the linker fills in (its relocations). A source variant is linked from one such object at
 * every code placement (orchestrate/varbuild.c); its copies must then be the same bytes but for
 * those fields, which hold where each copy sits (impl/placed_lib.c checks it). The object is
 * input from the user (-v FILE.o:SYMBOL), so every offset and count in it is checked against the
 * bytes read before it is followed. */
#ifndef MFB_ELFOBJ_H
#define MFB_ELFOBJ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

/* What the symbol is, as far as calling it goes. */
enum mfb_elf_kind {
    MFB_ELF_ABSENT,    /* no symbol of that name */
    MFB_ELF_UNDEFINED, /* only referenced here, defined elsewhere */
    MFB_ELF_FUNCTION,  /* code in a section of this object */
    MFB_ELF_DATA,      /* a variable */
    MFB_ELF_OTHER      /* a section, file, common or absolute symbol */
};

/* A byte range of the symbol's code that the linker writes (a relocation's field). */
struct mfb_elf_field {
    uint32_t offset; /* from the symbol's first byte */
    uint8_t width;   /* bytes */
};

struct mfb_elf_symbol {
    enum mfb_elf_kind kind;
    bool local;        /* STB_LOCAL: static, invisible outside its file */
    bool hidden;       /* not default visibility: a shared object does not export it */
    bool lto;          /* the object holds LTO bytecode, not machine code (compiled with -flto) */
    uint16_t machine;  /* e_machine */
    uint64_t size;     /* st_size: bytes of code */
    struct mfb_elf_field *fields; /* malloc'd, nfields of them, sorted by offset */
    size_t nfields;
};

/* Fields one symbol may have: far more than any function has relocations (a 64 KiB function with
 * a call every 16 bytes has 4096), so an object claiming more is malformed, not large. */
#define MFB_ELF_MAX_FIELDS (1u << 20)

/* Reads the symbol `name` of the relocatable object data[0..len) (its file named path in err).
 * -1 with err for what is not a 64-bit little-endian relocatable object of a machine whose
 * relocations this knows (x86-64, AArch64), or a table that lies outside the data; 0 otherwise,
 * with out->kind saying whether and what the symbol is. Free with mfb_elf_symbol_free. */
int mfb_elf_symbol_read(const unsigned char *data, size_t len, const char *path, const char *name,
                        struct mfb_elf_symbol *out, struct mfb_err *err);
void mfb_elf_symbol_free(struct mfb_elf_symbol *s);

/* The functions an ELF file offers a caller (a shared object's exported dynamic symbols, or a
 * relocatable object's global ones: defined, of default visibility), their names space-separated
 * into out (cap bytes; "..." ends a list cut short): how many, or -1 when data is no 64-bit
 * little-endian ELF file whose tables lie inside it. For the message that shows a user which
 * PATH:SYMBOL to write. */
int mfb_elf_functions(const unsigned char *data, size_t len, char *out, size_t cap);

/* Whether a and b (n bytes each) are equal outside the symbol's fields. */
bool mfb_elf_same_but_fields(const unsigned char *a, const unsigned char *b, size_t n, const struct mfb_elf_symbol *s);

/* Which symbol tables mfb_elf_function_size searches. */
enum { MFB_ELF_SYMTAB = 1u, MFB_ELF_DYNSYM = 2u };

/* The size in bytes (st_size) of the function `name` defined in the ELF file data[0..len) of any
 * type (an executable, a shared object, a separate debug file, whose code sections are empty but
 * whose symbol table is whole), from the tables `tables` names: 1 with *size when it is defined
 * there and every definition of that name agrees on its size (a program's local functions of one
 * name, say one per file, may differ: which one ran is then unknown); 0 when it is not defined
 * there, its definitions disagree or it has no size; -1 when data is no 64-bit little-endian ELF
 * file whose tables lie inside it. name is matched whole, without a symbol version ("@..."). */
int mfb_elf_function_size(const unsigned char *data, size_t len, const char *name, unsigned tables, uint64_t *size);

/* The file's GNU build ID (its NT_GNU_BUILD_ID note), in lowercase hex into out (cap bytes): the
 * number of hex digits, 0 when it has none or the ID would not fit, -1 when data is no 64-bit
 * little-endian ELF file whose tables lie inside it. It names a stripped object's separate debug
 * file, /usr/lib/debug/.build-id/xx/rest.debug, where its full symbol table is. */
int mfb_elf_build_id(const unsigned char *data, size_t len, char *out, size_t cap);

#endif
