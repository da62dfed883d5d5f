/* Whether user code may flush a line from every cache, and by what stride: what eviction
 * (measure/evict.c) and the window planner (measure/workset.c) ask before choosing to flush. The
 * build decides which instruction (base/target.h); the running CPU and kernel decide the rest. */
#ifndef MFB_FLUSH_H
#define MFB_FLUSH_H

#include <stdbool.h>
#include <stdint.h>

/* The instruction that flushes a line. clflush is ordered with every other clflush, so each one
 * waits for the one before to finish: on the Intel VM (family 6 model 167) 73 ns a clean line and
 * 190 ns a written one, where clflushopt, ordered only by fences, overlaps them (5-6 ns a line). */
enum mfb_flush_insn { MFB_FLUSH_NONE, MFB_FLUSH_CLFLUSH, MFB_FLUSH_CLFLUSHOPT, MFB_FLUSH_DC_CIVAC };

const char *mfb_flush_insn_name(enum mfb_flush_insn i);

struct mfb_flush {
    bool allowed;            /* the flush instruction runs in user mode here */
    enum mfb_flush_insn insn; /* which one flushes (NONE where none is allowed) */
    const char *insn_source; /* what said so */
    uint32_t line;           /* bytes from one flush to the next: the smallest data-cache line */
    const char *line_source; /* where line came from */
    const char *why_not;     /* when not allowed: why, for the warning; NULL otherwise */
};

/* Read once per process, on the first call (before any timing thread starts). */
const struct mfb_flush *mfb_flush_caps(void);

#endif
