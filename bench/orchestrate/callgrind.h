/* valgrind's callgrind, as memfbench counts uses it: found on PATH, run on a command with cache and
 * branch simulation and collection limited to one function, and its output file's totals read. */
#ifndef MFB_CALLGRIND_H
#define MFB_CALLGRIND_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

/* The events callgrind counts with --cache-sim=yes --branch-sim=yes, in the order of its output
 * (Ir: instructions; Dr, Dw: data reads, writes; I1mr, D1mr, D1mw: first-level misses; ILmr,
 * DLmr, DLmw: last-level misses; Bc, Bcm: conditional branches, mispredicted; Bi, Bim: indirect
 * branches, mispredicted). */
enum mfb_cg_event {
    MFB_CG_IR, MFB_CG_DR, MFB_CG_DW, MFB_CG_I1MR, MFB_CG_D1MR, MFB_CG_D1MW, MFB_CG_ILMR, MFB_CG_DLMR, MFB_CG_DLMW,
    MFB_CG_BC, MFB_CG_BCM, MFB_CG_BI, MFB_CG_BIM, MFB_CG_EVENTS
};
const char *mfb_cg_event_name(enum mfb_cg_event e);

struct mfb_cg_result {
    uint64_t total[MFB_CG_EVENTS];
    char caches[3][96]; /* the simulated I1, D1 and LL caches as callgrind describes them */
    char out[512];      /* what the command printed on stdout */
};

/* valgrind's full path from PATH into path; -1 with a line saying to install it. */
int mfb_cg_find(char *path, size_t cap, struct mfb_err *err);
/* `valgrind --version` (e.g. valgrind-3.19.0). */
int mfb_cg_version(const char *valgrind, char *out, size_t cap, struct mfb_err *err);
/* The options memfbench counts gives callgrind besides --toggle-collect=FUNCTION and
 * --callgrind-out-file=FILE, NULL-terminated. */
extern const char *const mfb_cg_options[];
/* Runs argv (valgrind and its options, then the command), its stdout into r->out, its stderr
 * passed through; then reads outfile's totals. */
int mfb_cg_run(char *const *argv, const char *outfile, struct mfb_cg_result *r, struct mfb_err *err);

#endif
