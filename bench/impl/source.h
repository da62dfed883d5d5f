/* Variants from the user's code that memfbench builds itself (-v FILE.c:SYMBOL, FILE.o:SYMBOL,
 * FILE.a:SYMBOL): the code is linked once per code placement (base/code_placement.h) into a
 * shared object whose text opens at that placement's offset into a page, as the built-ins are
 * compiled (orchestrate/varbuild.c builds them into a cache), and this loads the copies, checks
 * that they are the same machine code up to where they sit, and hands the run each placement's
 * entry point. A prebuilt .so (impl/plugin.h) has the one layout its linker gave it; a source
 * variant is then timed as a built-in is: a placement per process, balanced over the study. */
#ifndef MFB_SOURCE_H
#define MFB_SOURCE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/code_placement.h"
#include "base/elfobj.h"
#include "base/error.h"
#include "impl/variants.h"

/* What the user gave, by its file's suffix. */
enum mfb_source_kind {
    MFB_SOURCE_C,       /* FILE.c: compiled with the variant compiler and flags */
    MFB_SOURCE_OBJECT,  /* FILE.o: linked as it is (position-independent) */
    MFB_SOURCE_ARCHIVE  /* FILE.a: the members that define SYMBOL and what they need */
};

/* Where the compiler flags came from. */
enum mfb_flags_source { MFB_FLAGS_DEFAULT, MFB_FLAGS_ENV, MFB_FLAGS_OPTION };

const char *mfb_source_kind_name(enum mfb_source_kind k);
const char *mfb_flags_source_name(enum mfb_flags_source s);

/* Whether a --variant value names a source variant (PATH:SYMBOL[=NAME] with PATH ending in .c,
 * .o or .a); its kind in *kind. */
bool mfb_source_spec(const char *spec, enum mfb_source_kind *kind);

/* The files of a built source variant: one shared object per placement and the object they were
 * linked from, in one folder. */
#define MFB_SOURCE_OBJECT_NAME "code.o"
#define MFB_SOURCE_PLACED_FMT "p%u.so"

/* --pgo (orchestrate/pgo.c): the compiler family whose profile flags a build takes, and what a
 * build of the source is for. */
enum mfb_pgo_family { MFB_PGO_GCC, MFB_PGO_CLANG };
enum mfb_pgo_stage {
    MFB_PGO_NONE,         /* the variant as the user wrote it */
    MFB_PGO_INSTRUMENTED, /* counts its branches and calls as it runs: trained, never timed */
    MFB_PGO_TRAINED       /* built with the profile the instrumented copy wrote */
};

const char *mfb_pgo_family_name(enum mfb_pgo_family f);

/* What NAME-pgo was built from, for the file (report/document.c). */
struct mfb_pgo {
    enum mfb_pgo_family family;
    char *of;                     /* NAME: the same source without the profile */
    char *instrument_flags;       /* added to the variant's flags for the instrumented build */
    char *use_flags;              /* added for the trained build (with the profile's path) */
    char *train_spec;             /* the training distribution as given, or the study's */
    bool train_own;               /* the study's own distribution (no --pgo-train) */
    char *train_table;            /* the size table the replay read (a record folder's FUNC_size.csv) */
    uint64_t train_seed;
    bool seed_given;              /* --pgo-seed, else the fixed default */
    uint32_t train_calls;
    uint64_t verified_calls;      /* the training replay's verification */
    double train_s;               /* seconds the training took (read back with a cached profile) */
    char instrumented_key[65];
    char *merge_tool;             /* clang: the llvm-profdata that merged the raw profiles; NULL: gcc */
    char *profile_file;           /* in the cache */
    char profile_sha[65];
    bool cached;                  /* the profile was found in the cache: nothing was trained */
};

struct mfb_source {
    /* asked for: -v PATH:SYMBOL[=NAME] */
    char *spec, *path, *symbol, *name;
    enum mfb_source_kind kind;
    /* built (orchestrate/varbuild.c) */
    char *compiler;          /* as given (CC, else "cc") */
    char *compiler_path;     /* the executable it resolved to */
    char *compiler_version;  /* the first line of its --version */
    char *flags;             /* the flags every compile and link of the variant got */
    enum mfb_flags_source flags_source;
    char *dir;               /* the cache entry holding the build */
    char key[65];            /* SHA-256 of the build's inputs (the entry's name, the code identity) */
    bool cached;             /* found in the cache: nothing was compiled */
    double build_s;          /* seconds to find or build it */
    /* loaded (mfb_source_load) */
    void *handle[MFB_CODE_PLACEMENTS];
    uintptr_t address[MFB_CODE_PLACEMENTS];
    struct mfb_elf_symbol sym; /* the symbol as the object has it: its size, and the byte ranges the
                                * linker fills in, left out of the copies' comparison */
    char *description;       /* "source FILE:SYMBOL, built by CC FLAGS", for the variant */
    bool line_offsets_all;   /* its placements open at every 16-byte offset of a 64-byte line */
    /* --pgo (orchestrate/pgo.c), set before the build */
    enum mfb_pgo_stage pgo_stage;
    enum mfb_pgo_family pgo_family; /* INSTRUMENTED, TRAINED: whose flags */
    const char *extra_flags; /* added after the flags for this build (the profile's flags, or --param's) */
    char *param_flags;       /* --param's setting for this build ("-DA=1 -DB=2"), owned; extra_flags points at it */
    const char *profile;     /* TRAINED: the profile file, its digest part of the key */
    struct mfb_pgo *pgo;     /* TRAINED: what the file says of it (owned) */
};

/* The folder of built variants: $MEMFBENCH_CACHE, else $XDG_CACHE_HOME/memfbench, else
 * $HOME/.cache/memfbench; "" when none is set (no HOME). */
void mfb_source_cache_root(char *out, size_t cap);

/* A source variant as asked for: spec parsed into path, symbol and name (the symbol when no =NAME),
 * the file checked to be a readable regular file. NULL with one line naming the option's value. */
struct mfb_source *mfb_source_new(const char *spec, struct mfb_err *err);

/* Checks that `symbol` of the relocatable object at object (the user's file named display) is a
 * function that a shared object can export: one line naming the file for anything else (absent,
 * only referenced, a variable, static, hidden, LTO bytecode). sym is filled (free it with
 * mfb_elf_symbol_free) on success. */
int mfb_source_check_symbol(const char *object, const char *display, const char *symbol, struct mfb_elf_symbol *sym,
                            struct mfb_err *err);

/* Loads the build in s->dir (every placement's shared object), checks that the copies are the same
 * machine code but for the fields the linker fills in, and fills at[] with each placement's entry
 * point and s's addresses. -1 with one line naming the variant's file. */
int mfb_source_load(struct mfb_source *s, union mfb_fn at[MFB_CODE_PLACEMENTS], struct mfb_err *err);

/* Whether the code at a and b (two of s's placements) is the same but for the linker's fields. */
bool mfb_source_same_code(const struct mfb_source *s, uintptr_t a, uintptr_t b);

/* Frees p and what it holds. NULL does nothing. */
void mfb_pgo_free(struct mfb_pgo *p);

/* Closes the libraries and frees everything s holds (s itself too). NULL does nothing. */
void mfb_source_free(struct mfb_source *s);

#endif
