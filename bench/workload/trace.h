/* Call traces (memfbench record --trace N, memfbench run --trace FILE): the calls of a recorded
 * program in the order it made them, replayed in that order. Real call sites repeat sizes, so a
 * branch predictor learns them; a histogram replayed in random order, and a fixed synthetic
 * sequence, both misstate that. */
#ifndef MFB_TRACE_H
#define MFB_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "base/functions.h"
#include "workload/distribution.h"

/* A replayed trace holds at most this many calls (the recorder's window bound). */
#define MFB_MAX_TRACE_CALLS (1u << 24)

struct mfb_trace_call {
    uint64_t size;
    uint32_t src_align, dst_align; /* exact alignments (powers of two up to 4096) */
};

struct mfb_trace {
    struct mfb_trace_call *c;
    size_t n, cap;
    size_t next; /* where the next window of the replay starts */
};

/* Turns the recorder's trace-<pid>.txt files in raw_dir into out_dir/FUNCTION_trace.csv (each
 * function's calls in order, processes one after another by pid) and out_dir/callsites.csv
 * (function, caller, calls, bytes; most bytes first). Returns the number of calls written. */
long mfb_trace_convert(const char *raw_dir, const char *out_dir, struct mfb_err *err);
/* Loads a FUNCTION_trace.csv (header size,src_alignment,dst_alignment,caller). */
int mfb_trace_load(struct mfb_trace *t, const char *path, struct mfb_err *err);
/* The trace as a distribution (its sizes and alignments, counted), which verification and
 * calibration use; the replay itself follows the trace's order. */
int mfb_trace_dist(const struct mfb_trace *t, const char *path, enum mfb_func f, const char *dist_dir,
                   struct mfb_dist *d, struct mfb_err *err);
void mfb_trace_free(struct mfb_trace *t);

#endif
