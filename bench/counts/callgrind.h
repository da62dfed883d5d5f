/* valgrind's callgrind, as memfbench counts uses it: found on PATH, run on a command with cache and
 * branch simulation and collection limited to one function, and its output file read: the totals,
 * and the functions the variant ran (its code), each with its size from its object's symbols. */
#ifndef MFB_CALLGRIND_H
#define MFB_CALLGRIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "programs/kinds.h"
#include "programs/reply.h"

/* The events callgrind counts with --cache-sim=yes --branch-sim=yes, in the order of its output
 * (Ir: instructions; Dr, Dw: data reads, writes; I1mr, D1mr, D1mw: first-level misses; ILmr,
 * DLmr, DLmw: last-level misses; Bc, Bcm: conditional branches, mispredicted; Bi, Bim: indirect
 * branches, mispredicted). */
enum mfb_cg_event {
    MFB_CG_IR, MFB_CG_DR, MFB_CG_DW, MFB_CG_I1MR, MFB_CG_D1MR, MFB_CG_D1MW, MFB_CG_ILMR, MFB_CG_DLMR, MFB_CG_DLMW,
    MFB_CG_BC, MFB_CG_BCM, MFB_CG_BI, MFB_CG_BIM, MFB_CG_EVENTS
};
const char *mfb_cg_event_name(enum mfb_cg_event e);

/* A function the variant ran: as callgrind names it, and its size. */
struct mfb_cg_function {
    char object[512]; /* the ELF object's path as valgrind saw it mapped; "???" where it knew none */
    char name[256];   /* the symbol valgrind found there, or 0x... (an address) where it found none */
    bool sized;       /* whether bytes is known */
    uint64_t bytes;   /* st_size of the symbol in the object's .symtab, else in its separate debug
                       * file's (/usr/lib/debug/.build-id), else in its .dynsym */
};

/* Functions kept per variant: a copy that calls more than this many distinct functions is no
 * memcpy; the list is then cut and marked so (code_cut). */
#define MFB_CG_MAX_CODE 64

struct mfb_cg_result {
    uint64_t total[MFB_CG_EVENTS];
    char caches[3][96]; /* the simulated I1, D1 and LL caches as callgrind describes them */
    struct mfb_reply reply; /* what the replay answered (programs/reply.h): its code's symbol, object, ... */
    /* The variant's code: the functions the counted loop called once per call (the variant's own;
     * the loop's one-off calls are the harness's), then everything callgrind saw them call, each
     * once, the first sorted by name, the rest by object and name. malloc'd; mfb_cg_result_free. */
    struct mfb_cg_function *code;
    size_t ncode;
    size_t nentry;      /* how many of code are the loop's own callees (the variant's function) */
    bool code_cut;      /* more than MFB_CG_MAX_CODE functions: the list is not all */
};

/* valgrind's full path from PATH into path; -1 with a line saying to install it. */
int mfb_cg_find(char *path, size_t cap, struct mfb_err *err);
/* `valgrind --version` (e.g. valgrind-3.19.0), run as a tool (programs/kinds.h) under dl. */
int mfb_cg_version(const char *valgrind, const struct mfb_deadlines *dl, char *out, size_t cap, struct mfb_err *err);
/* The options memfbench counts gives callgrind besides --toggle-collect=FUNCTION and
 * --callgrind-out-file=FILE, NULL-terminated. */
extern const char *const mfb_cg_options[];
/* Runs argv (valgrind and its options, then memfbench's replay) as a program of kind valgrind under
 * dl (programs/run.h: its own group, stopped on a request or at its deadline), the replay's reply
 * into r->reply; then reads outfile's totals and the code: the callees of the function `loop` (the
 * one --toggle-collect names) called at least `calls` times, and what they called in the counted
 * region, with the sizes of those functions. -1 with one line (the replay's own, or how valgrind
 * ended; *stopped is then the stop request's signal when one ended it). Free r with
 * mfb_cg_result_free, whatever it returns. */
int mfb_cg_run(char *const *argv, const struct mfb_deadlines *dl, const char *outfile, const char *loop,
               uint64_t calls, struct mfb_cg_result *r, int *stopped, struct mfb_err *err);
/* The same reading of a callgrind file already written (the tests give it one): totals, code and
 * sizes into r, which starts zeroed. */
int mfb_cg_read(const char *outfile, const char *loop, uint64_t calls, struct mfb_cg_result *r, struct mfb_err *err);
void mfb_cg_result_free(struct mfb_cg_result *r);

#endif
