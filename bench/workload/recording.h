/* Recorded distributions (memfbench record, memfbench merge): the counts the recorder library
 * wrote (record/recorder.c), summed over processes and recordings, and written as the CSV tables
 * a replay loads (docs/distributions.md). Weights stay call counts, so merging recordings is
 * adding them. */
#ifndef MFB_RECORDING_H
#define MFB_RECORDING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "base/functions.h"

/* The most calls one row may count: tables keep weights as doubles, which hold whole numbers
 * exactly up to 2^53 (about 9e15 calls, years of a busy fleet); a larger count would round, and
 * one past 2^64 used to wrap to 0 without a word. */
#define MFB_MAX_CALL_COUNT (UINT64_C(1) << 53)
/* Exact first-mismatch positions kept (as the recorder counts them). */
#define MFB_REC_MISMATCH_EXACT 256u
#define MFB_REC_ALIGN_LOG_MAX 12u

struct mfb_rec_range {
    uint64_t lo, hi, count;
};

struct mfb_rec_func {
    uint64_t calls, sampled;
    struct mfb_rec_range *sizes; /* sorted by lo, keys distinct */
    size_t nsizes, cap;
    uint64_t src_align[MFB_REC_ALIGN_LOG_MAX + 1], dst_align[MFB_REC_ALIGN_LOG_MAX + 1];
    uint64_t overlap[3];         /* none, forward, backward */
    uint64_t mis_equal, mis_uniform, mis_last, mis_at[MFB_REC_MISMATCH_EXACT];
};

struct mfb_recording {
    struct mfb_rec_func f[MFB_FUNC_COUNT];
    uint64_t rate;       /* the sampling rate of the raw files (1: every call); 0 before any */
    int sources;         /* raw files or folders added */
};

/* Adds one raw file of the recorder; -1 with "path:line: what" for anything it did not write
 * (a torn file has no "end" line and is refused whole). */
int mfb_recording_add_raw(struct mfb_recording *r, const char *path, struct mfb_err *err);
/* Adds a folder of recorded tables (FUNCTION_size.csv and siblings), read by the strict loader;
 * their weights are call counts, so each must be a whole number. A table the recorder would not
 * have written there (a sibling of a function without that trait, or without its size table, or a
 * combined FUNCTION_alignment.csv) is refused: merge would drop it. */
int mfb_recording_add_tables(struct mfb_recording *r, const char *dir, struct mfb_err *err);
/* Adds a bpftrace histogram of sizes as calls of f: every line is "@[SIZE]: COUNT", blank, or
 * bpftrace's "Attaching N probes..." line, each size once; anything else is refused with its line. */
int mfb_recording_add_bpftrace(struct mfb_recording *r, const char *path, enum mfb_func f, struct mfb_err *err);
/* Adds one recording's counts into another (merge reads each folder on its own, to hold it to its
 * provenance, then adds it); -1 when a function's calls would pass MFB_MAX_CALL_COUNT. */
int mfb_recording_sum(struct mfb_recording *into, const struct mfb_recording *from, struct mfb_err *err);
/* Writes the tables of every function with calls into dir (which exists); returns the number of
 * functions written, -1 on a write error. */
int mfb_recording_write(const struct mfb_recording *r, const char *dir, struct mfb_err *err);
void mfb_recording_free(struct mfb_recording *r);

#endif
