#include "base/elfobj.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

/* A table of `count` entries of `size` bytes at `offset`: inside the data, without overflow. */
static bool inside(size_t len, uint64_t offset, uint64_t count, uint64_t size)
{
    return size != 0 && offset <= len && count <= (len - offset) / size;
}

/* The width of a relocation's field, by machine and type; 0 for a type this does not know (the
 * caller refuses the object: an unknown field could not be masked). */
static uint8_t field_width(uint16_t machine, uint32_t type)
{
    if (machine == EM_X86_64) {
        switch (type) {
        case R_X86_64_NONE:
            return 0xff; /* no field */
        case R_X86_64_64: case R_X86_64_PC64: case R_X86_64_GOTOFF64: case R_X86_64_GOT64:
        case R_X86_64_GOTPCREL64: case R_X86_64_GOTPC64: case R_X86_64_GOTPLT64: case R_X86_64_PLTOFF64:
        case R_X86_64_DTPMOD64: case R_X86_64_DTPOFF64: case R_X86_64_TPOFF64: case R_X86_64_SIZE64:
            return 8;
        case R_X86_64_PC32: case R_X86_64_GOT32: case R_X86_64_PLT32: case R_X86_64_GOTPCREL:
        case R_X86_64_32: case R_X86_64_32S: case R_X86_64_TLSGD: case R_X86_64_TLSLD:
        case R_X86_64_DTPOFF32: case R_X86_64_GOTTPOFF: case R_X86_64_TPOFF32: case R_X86_64_GOTPC32:
        case R_X86_64_SIZE32: case R_X86_64_GOTPC32_TLSDESC: case R_X86_64_GOTPCRELX:
        case R_X86_64_REX_GOTPCRELX:
            return 4;
        case R_X86_64_16: case R_X86_64_PC16:
        case R_X86_64_TLSDESC_CALL: /* the 2-byte call the linker may turn into a nop */
            return 2;
        case R_X86_64_8: case R_X86_64_PC8:
            return 1;
        default:
            return 0;
        }
    }
    if (machine == EM_AARCH64) {
        switch (type) {
        case R_AARCH64_NONE:
            return 0xff;
        case R_AARCH64_ABS64: case R_AARCH64_PREL64:
            return 8;
        case R_AARCH64_ABS16: case R_AARCH64_PREL16:
            return 2;
        default:
            /* every other AArch64 relocation writes bits of one 4-byte instruction or word */
            return type >= 257 && type < 1100 ? 4 : 0;
        }
    }
    return 0;
}

static int by_offset(const void *a, const void *b)
{
    uint32_t x = ((const struct mfb_elf_field *)a)->offset, y = ((const struct mfb_elf_field *)b)->offset;
    return (x > y) - (x < y);
}

/* The section headers' count and the string-table index, where an object with many sections
 * keeps them in the first header (ELF's extended numbering). */
static int section_count(const unsigned char *data, size_t len, const Elf64_Ehdr *eh, uint64_t *shnum,
                         uint32_t *shstrndx)
{
    *shnum = eh->e_shnum;
    *shstrndx = eh->e_shstrndx;
    if (eh->e_shoff == 0 || eh->e_shentsize != sizeof(Elf64_Shdr) || !inside(len, eh->e_shoff, 1, sizeof(Elf64_Shdr)))
        return -1;
    Elf64_Shdr first;
    memcpy(&first, data + eh->e_shoff, sizeof first);
    if (*shnum == 0)
        *shnum = first.sh_size;
    if (*shstrndx == SHN_XINDEX)
        *shstrndx = first.sh_link;
    return inside(len, eh->e_shoff, *shnum, sizeof(Elf64_Shdr)) ? 0 : -1;
}

static Elf64_Shdr section(const unsigned char *data, const Elf64_Ehdr *eh, uint64_t i)
{
    Elf64_Shdr sh;
    memcpy(&sh, data + eh->e_shoff + i * sizeof sh, sizeof sh);
    return sh;
}

/* The NUL-terminated string at offset `at` of a string table, or NULL when it runs off it. */
static const char *string_at(const unsigned char *data, size_t len, const Elf64_Shdr *strtab, uint64_t at)
{
    if (strtab->sh_type != SHT_STRTAB || !inside(len, strtab->sh_offset, strtab->sh_size, 1) || at >= strtab->sh_size)
        return NULL;
    const char *s = (const char *)data + strtab->sh_offset + at;
    return memchr(s, '\0', strtab->sh_size - at) ? s : NULL;
}

static enum mfb_elf_kind kind_of(const Elf64_Sym *s)
{
    if (s->st_shndx == SHN_UNDEF)
        return MFB_ELF_UNDEFINED;
    if (s->st_shndx == SHN_ABS || s->st_shndx == SHN_COMMON)
        return MFB_ELF_OTHER;
    switch (ELF64_ST_TYPE(s->st_info)) {
    case STT_FUNC: case STT_GNU_IFUNC:
        return MFB_ELF_FUNCTION;
    case STT_OBJECT: case STT_TLS:
        return MFB_ELF_DATA;
    default:
        return MFB_ELF_OTHER;
    }
}

/* The relocations of section `target` that fall in [start, start + size) as fields. */
static int collect_fields(const unsigned char *data, size_t len, const Elf64_Ehdr *eh, uint64_t shnum, uint64_t target,
                          uint64_t start, uint64_t size, const char *path, struct mfb_elf_symbol *out,
                          struct mfb_err *err)
{
    size_t cap = 0;
    for (uint64_t i = 0; i < shnum; i++) {
        Elf64_Shdr sh = section(data, eh, i);
        if ((sh.sh_type != SHT_RELA && sh.sh_type != SHT_REL) || sh.sh_info != target)
            continue;
        size_t entsize = sh.sh_type == SHT_RELA ? sizeof(Elf64_Rela) : sizeof(Elf64_Rel);
        uint64_t n = sh.sh_size / entsize;
        if (!inside(len, sh.sh_offset, n, entsize))
            return mfb_fail(err, "%s: a relocation table lies outside the file: not a whole ELF object", path);
        for (uint64_t r = 0; r < n; r++) {
            Elf64_Rel rel; /* r_offset and r_info open both kinds of entry */
            memcpy(&rel, data + sh.sh_offset + r * entsize, sizeof rel);
            if (rel.r_offset < start || rel.r_offset - start >= size)
                continue;
            uint8_t w = field_width(out->machine, (uint32_t)ELF64_R_TYPE(rel.r_info));
            if (w == 0)
                return mfb_fail(err, "%s: relocation type %u in the symbol's code is one memfbench does not know, so "
                                "it cannot tell its copies' bytes apart from where they sit",
                                path, (unsigned)ELF64_R_TYPE(rel.r_info));
            if (w == 0xff)
                continue;
            if (out->nfields == cap) {
                if (cap >= MFB_ELF_MAX_FIELDS)
                    return mfb_fail(err, "%s: more than %u relocations in one symbol: not an object a compiler wrote",
                                    path, MFB_ELF_MAX_FIELDS);
                size_t grown = cap ? 2 * cap : 64;
                struct mfb_elf_field *f = realloc(out->fields, grown * sizeof *f);
                if (!f)
                    return mfb_fail(err, "%s: out of memory reading relocations", path);
                out->fields = f;
                cap = grown;
            }
            out->fields[out->nfields++] = (struct mfb_elf_field){(uint32_t)(rel.r_offset - start), w};
        }
    }
    if (out->nfields)
        qsort(out->fields, out->nfields, sizeof *out->fields, by_offset);
    return 0;
}

int mfb_elf_symbol_read(const unsigned char *data, size_t len, const char *path, const char *name,
                        struct mfb_elf_symbol *out, struct mfb_err *err)
{
    memset(out, 0, sizeof *out);
    Elf64_Ehdr eh;
    if (len < sizeof eh || memcmp(data, ELFMAG, SELFMAG) != 0)
        return mfb_fail(err, "%s: not an ELF object", path);
    memcpy(&eh, data, sizeof eh);
    if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB)
        return mfb_fail(err, "%s: not a 64-bit little-endian ELF object", path);
    if (eh.e_type != ET_REL)
        return mfb_fail(err, "%s: an ELF file of type %u, not a relocatable object (.o)", path, (unsigned)eh.e_type);
    out->machine = eh.e_machine;
    if (eh.e_machine != EM_X86_64 && eh.e_machine != EM_AARCH64)
        return mfb_fail(err, "%s: ELF machine %u: memfbench reads x86-64 and AArch64 objects", path,
                        (unsigned)eh.e_machine);
    uint64_t shnum;
    uint32_t shstrndx;
    if (section_count(data, len, &eh, &shnum, &shstrndx) < 0)
        return mfb_fail(err, "%s: its section headers lie outside the file: not a whole ELF object", path);
    Elf64_Sym found = {0};
    bool have = false;
    for (uint64_t i = 0; i < shnum; i++) {
        Elf64_Shdr sh = section(data, &eh, i);
        if (shstrndx < shnum) {
            Elf64_Shdr names = section(data, &eh, shstrndx);
            const char *sname = string_at(data, len, &names, sh.sh_name);
            if (sname && !strncmp(sname, ".gnu.lto_", 9))
                out->lto = true;
        }
        if (sh.sh_type != SHT_SYMTAB)
            continue;
        if (sh.sh_entsize != sizeof(Elf64_Sym) || sh.sh_link >= shnum ||
            !inside(len, sh.sh_offset, sh.sh_size / sizeof(Elf64_Sym), sizeof(Elf64_Sym)))
            return mfb_fail(err, "%s: its symbol table lies outside the file: not a whole ELF object", path);
        Elf64_Shdr strtab = section(data, &eh, sh.sh_link);
        for (uint64_t k = 1; k < sh.sh_size / sizeof(Elf64_Sym); k++) {
            Elf64_Sym s;
            memcpy(&s, data + sh.sh_offset + k * sizeof s, sizeof s);
            const char *sname = string_at(data, len, &strtab, s.st_name);
            if (!sname || strcmp(sname, name) != 0)
                continue;
            /* a definition wins over a reference of the same name */
            if (!have || (found.st_shndx == SHN_UNDEF && s.st_shndx != SHN_UNDEF)) {
                found = s;
                have = true;
            }
        }
    }
    if (!have) {
        out->kind = MFB_ELF_ABSENT;
        return 0;
    }
    out->kind = kind_of(&found);
    out->local = ELF64_ST_BIND(found.st_info) == STB_LOCAL;
    out->hidden = ELF64_ST_VISIBILITY(found.st_other) != STV_DEFAULT;
    out->size = found.st_size;
    if (out->kind != MFB_ELF_FUNCTION)
        return 0;
    if (found.st_shndx >= shnum)
        return mfb_fail(err, "%s: %s is in section %u, which the file does not have", path, name,
                        (unsigned)found.st_shndx);
    Elf64_Shdr code = section(data, &eh, found.st_shndx);
    if (found.st_value > code.sh_size || found.st_size > code.sh_size - found.st_value)
        return mfb_fail(err, "%s: %s runs past the end of its section", path, name);
    if (found.st_size > UINT32_MAX)
        return mfb_fail(err, "%s: %s is %llu bytes of code: not a function a compiler wrote", path, name,
                        (unsigned long long)found.st_size);
    int rc = collect_fields(data, len, &eh, shnum, found.st_shndx, found.st_value, found.st_size, path, out, err);
    if (rc < 0)
        mfb_elf_symbol_free(out);
    return rc;
}

void mfb_elf_symbol_free(struct mfb_elf_symbol *s)
{
    free(s->fields);
    s->fields = NULL;
    s->nfields = 0;
}

bool mfb_elf_same_but_fields(const unsigned char *a, const unsigned char *b, size_t n, const struct mfb_elf_symbol *s)
{
    size_t at = 0;
    for (size_t f = 0; f <= s->nfields && at < n; f++) {
        /* the bytes up to the next field (or the end), then skip the field */
        size_t until = f < s->nfields && s->fields[f].offset < n ? s->fields[f].offset : n;
        if (until > at && memcmp(a + at, b + at, until - at) != 0)
            return false;
        if (f < s->nfields) {
            size_t end = (size_t)s->fields[f].offset + s->fields[f].width;
            at = end > at ? end : at;
        }
    }
    return true;
}

/* Appends name to the list in out (len used of cap), or "..." once it no longer fits. */
static void list_add(char *out, size_t cap, size_t *len, bool *cut, const char *name)
{
    size_t n = strlen(name);
    if (*cut)
        return;
    if (*len + (*len > 0) + n + 4 >= cap) {
        if (*len + 4 < cap) {
            memcpy(out + *len, *len ? " ..." : "...", *len ? 5 : 4);
            *len += *len ? 4 : 3;
        }
        *cut = true;
        return;
    }
    if (*len)
        out[(*len)++] = ' ';
    memcpy(out + *len, name, n + 1);
    *len += n;
}

/* The header and section count of a 64-bit little-endian ELF file whose section headers lie
 * inside the data; -1 for anything else. */
static int elf_open(const unsigned char *data, size_t len, Elf64_Ehdr *eh, uint64_t *shnum)
{
    uint32_t shstrndx;
    if (len < sizeof *eh || memcmp(data, ELFMAG, SELFMAG) != 0)
        return -1;
    memcpy(eh, data, sizeof *eh);
    if (eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_ident[EI_DATA] != ELFDATA2LSB)
        return -1;
    return section_count(data, len, eh, shnum, &shstrndx);
}

/* each_function's tables: a shared object's dynamic symbols, an object's symbol table (the ones
 * its callers see). */
#define CALLERS_TABLES 0x100u

/* Calls visit for every named function symbol of the symbol tables asked for (MFB_ELF_SYMTAB,
 * MFB_ELF_DYNSYM, or CALLERS_TABLES). -1 for a file that is no 64-bit little-endian ELF or whose tables lie outside it. */
static int each_function(const unsigned char *data, size_t len, unsigned tables,
                         void (*visit)(void *ctx, const Elf64_Sym *s, const char *name), void *ctx)
{
    Elf64_Ehdr eh;
    uint64_t shnum;
    if (elf_open(data, len, &eh, &shnum) < 0)
        return -1;
    if (tables == CALLERS_TABLES)
        tables = eh.e_type == ET_DYN ? MFB_ELF_DYNSYM : MFB_ELF_SYMTAB;
    for (uint64_t i = 0; i < shnum; i++) {
        Elf64_Shdr sh = section(data, &eh, i);
        bool wanted = (sh.sh_type == SHT_SYMTAB && (tables & MFB_ELF_SYMTAB)) ||
                      (sh.sh_type == SHT_DYNSYM && (tables & MFB_ELF_DYNSYM));
        if (!wanted)
            continue;
        if (sh.sh_entsize != sizeof(Elf64_Sym) || sh.sh_link >= shnum ||
            !inside(len, sh.sh_offset, sh.sh_size / sizeof(Elf64_Sym), sizeof(Elf64_Sym)))
            return -1;
        Elf64_Shdr strtab = section(data, &eh, sh.sh_link);
        for (uint64_t k = 1; k < sh.sh_size / sizeof(Elf64_Sym); k++) {
            Elf64_Sym s;
            memcpy(&s, data + sh.sh_offset + k * sizeof s, sizeof s);
            const char *name = kind_of(&s) == MFB_ELF_FUNCTION ? string_at(data, len, &strtab, s.st_name) : NULL;
            if (name && *name)
                visit(ctx, &s, name);
        }
    }
    return 0;
}

struct listing {
    char *out;
    size_t cap, used;
    bool cut;
    int count;
};

/* A function another object can call: global or weak, default visibility. */
static void list_callable(void *ctx, const Elf64_Sym *s, const char *name)
{
    struct listing *l = ctx;
    int bind = ELF64_ST_BIND(s->st_info);
    if ((bind != STB_GLOBAL && bind != STB_WEAK) || ELF64_ST_VISIBILITY(s->st_other) != STV_DEFAULT)
        return;
    l->count++;
    if (l->cap)
        list_add(l->out, l->cap, &l->used, &l->cut, name);
}

int mfb_elf_functions(const unsigned char *data, size_t len, char *out, size_t cap)
{
    if (cap)
        out[0] = '\0';
    struct listing l = {.out = out, .cap = cap};
    return each_function(data, len, CALLERS_TABLES, list_callable, &l) < 0 ? -1 : l.count;
}

/* Whether a symbol's name is `name` (n bytes) once a symbol version ("@VER", "@@VER") is left off
 * either: a shared object's table may name a definition memcpy@@GLIBC_2.14, and valgrind may too. */
static bool same_base_name(const char *sym, const char *name, size_t n)
{
    return strcspn(sym, "@") == n && strncmp(sym, name, n) == 0;
}

struct sizing {
    const char *name;
    size_t n;
    bool found, agree;
    uint64_t first;
};

static void size_of_named(void *ctx, const Elf64_Sym *s, const char *sname)
{
    struct sizing *z = ctx;
    if (!same_base_name(sname, z->name, z->n))
        return;
    if (!z->found)
        z->first = s->st_size;
    z->agree &= !z->found || s->st_size == z->first;
    z->found = true;
}

int mfb_elf_function_size(const unsigned char *data, size_t len, const char *name, unsigned tables, uint64_t *size)
{
    struct sizing z = {.name = name, .n = strcspn(name, "@"), .agree = true};
    if (each_function(data, len, tables & (MFB_ELF_SYMTAB | MFB_ELF_DYNSYM), size_of_named, &z) < 0)
        return -1;
    if (!z.found || !z.agree || z.first == 0)
        return 0;
    *size = z.first;
    return 1;
}

int mfb_elf_build_id(const unsigned char *data, size_t len, char *out, size_t cap)
{
    Elf64_Ehdr eh;
    uint64_t shnum;
    if (cap)
        out[0] = '\0';
    if (elf_open(data, len, &eh, &shnum) < 0)
        return -1;
    for (uint64_t i = 0; i < shnum; i++) {
        Elf64_Shdr sh = section(data, &eh, i);
        if (sh.sh_type != SHT_NOTE || !inside(len, sh.sh_offset, sh.sh_size, 1))
            continue;
        /* notes: a header, then the name and the descriptor, each padded to 4 bytes */
        uint64_t at = 0;
        while (sh.sh_size - at >= sizeof(Elf64_Nhdr)) {
            Elf64_Nhdr nh;
            memcpy(&nh, data + sh.sh_offset + at, sizeof nh);
            uint64_t name_at = at + sizeof nh, namesz = ((uint64_t)nh.n_namesz + 3) & ~3ull;
            uint64_t desc_at = name_at + namesz, descsz = ((uint64_t)nh.n_descsz + 3) & ~3ull;
            if (namesz > sh.sh_size - name_at || descsz > sh.sh_size - desc_at)
                break;
            if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
                !memcmp(data + sh.sh_offset + name_at, "GNU", 4)) {
                if (nh.n_descsz == 0 || 2 * (size_t)nh.n_descsz >= cap)
                    return 0;
                static const char hex[] = "0123456789abcdef";
                const unsigned char *id = data + sh.sh_offset + desc_at;
                for (uint32_t b = 0; b < nh.n_descsz; b++) {
                    out[2 * b] = hex[id[b] >> 4];
                    out[2 * b + 1] = hex[id[b] & 15];
                }
                out[2 * (size_t)nh.n_descsz] = '\0';
                return (int)(2 * nh.n_descsz);
            }
            at = desc_at + descsz;
        }
    }
    return 0;
}
