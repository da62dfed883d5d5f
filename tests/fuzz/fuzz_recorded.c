/* Fuzz target: the readers added for sweeps, size classes and recordings. The first input byte
 * picks the reader, the rest is its input:
 *   0  --sweep SIZES (mfb_sweep_parse_sizes)      1  --unpredictable (mfb_sweep_parse_mode)
 *   2  --by-class edges (mfb_classes_parse_edges) 3  a trace CSV (mfb_trace_load, then mfb_trace_dist)
 *   4  a recorder raw file (mfb_recording_add_raw) 5  a bpftrace histogram (mfb_recording_add_bpftrace)
 * Each success is checked against what the reader promises. Built again with FUZZ_ONLY_PICK=5 as
 * fuzz_bpftrace, so that the bpftrace reader gets every execution of a run, not a sixth. */
#include "fuzz_common.h"
#include "workload/classes.h"
#include "workload/recording.h"
#include "workload/sweep.h"
#include "workload/trace.h"

#ifndef MFB_FUZZ_DIST_DIR
#error "MFB_FUZZ_DIST_DIR: the distributions/ folder (set by tests/fuzz/meson.build)"
#endif

static void check_recording(const struct mfb_recording *r)
{
    for (int f = 0; f < MFB_FUNC_COUNT; f++) {
        const struct mfb_rec_func *c = &r->f[f];
        for (size_t i = 0; i < c->nsizes; i++) {
            FUZZ_CHECK(c->sizes[i].lo <= c->sizes[i].hi);
            FUZZ_CHECK(i == 0 || c->sizes[i].lo >= c->sizes[i - 1].lo);
            FUZZ_CHECK(i == 0 || c->sizes[i].lo != c->sizes[i - 1].lo || c->sizes[i].hi != c->sizes[i - 1].hi);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct fuzz_file file;
    static struct mfb_sweep sweep; /* 32 KiB: not on the stack */
#ifdef FUZZ_ONLY_PICK
    /* one reader's own target (fuzz_bpftrace): all of its inputs for that reader */
    unsigned pick = FUZZ_ONLY_PICK;
#else
    if (size < 1)
        return 0;
    unsigned pick = data[0] % 6;
    data++;
    size--;
#endif
    struct mfb_err err = {{0}};
    if (pick <= 2) {
        char *s = fuzz_strdup(data, size);
        if (pick == 0 && mfb_sweep_parse_sizes(&sweep, s, &err) == 0) {
            FUZZ_CHECK(sweep.n >= 1 && sweep.n <= MFB_MAX_SWEEP_POINTS);
            for (size_t i = 0; i < sweep.n; i++)
                FUZZ_CHECK(sweep.sizes[i] <= MFB_MAX_SIZE && (i == 0 || sweep.sizes[i] > sweep.sizes[i - 1]));
        } else if (pick == 1 && mfb_sweep_parse_mode(&sweep, s, &err) == 0) {
            FUZZ_CHECK(sweep.mode == MFB_SWEEP_CLASS || (sweep.spread_pct > 0 && sweep.spread_pct < 100));
        } else if (pick == 2) {
            struct mfb_classes cl = {0};
            if (mfb_classes_parse_edges(&cl, s, &err) == 0) {
                FUZZ_CHECK(cl.nedges >= 1 && cl.nedges <= MFB_MAX_CLASS_EDGES);
                for (int i = 0; i < cl.nedges; i++)
                    FUZZ_CHECK(cl.edges[i] <= MFB_MAX_SIZE && (i == 0 || cl.edges[i] > cl.edges[i - 1]));
            }
        }
        free(s);
        return 0;
    }
    fuzz_file_set(&file, data, size);
    if (pick == 3) {
        struct mfb_trace t;
        if (mfb_trace_load(&t, file.path, &err) == 0) {
            FUZZ_CHECK(t.n >= 1);
            for (size_t i = 0; i < t.n; i++)
                FUZZ_CHECK(t.c[i].size <= MFB_MAX_SIZE && fuzz_is_pow2(t.c[i].src_align) &&
                           fuzz_is_pow2(t.c[i].dst_align) && t.c[i].dst_align <= MFB_MAX_ALIGN);
            struct mfb_dist d;
            if (mfb_trace_dist(&t, file.path, MFB_MEMCPY, MFB_FUZZ_DIST_DIR, &d, &err) == 0) {
                fuzz_check_table(&d.size, MFB_T_SIZE);
                fuzz_check_table(&d.src_align, MFB_T_ALIGN);
                fuzz_check_table(&d.dst_align, MFB_T_ALIGN);
            }
            mfb_dist_free(&d);
            mfb_trace_free(&t);
        }
    } else {
        struct mfb_recording r = {0};
        int rc = pick == 4 ? mfb_recording_add_raw(&r, file.path, &err)
                           : mfb_recording_add_bpftrace(&r, file.path, MFB_MEMCPY, &err);
        if (rc == 0) {
            FUZZ_CHECK(r.sources == 1);
            check_recording(&r);
        } else {
            FUZZ_CHECK(err.msg[0] != '\0');
        }
        mfb_recording_free(&r);
    }
    return 0;
}
