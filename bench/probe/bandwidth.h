/* Bandwidth against buffer size: each kernel streams through its buffers, on one thread or on
 * several pinned threads started together, and bytes per second are reported. */
#ifndef MFB_BANDWIDTH_H
#define MFB_BANDWIDTH_H

#include "probe/probe.h"
#include "probe/streams.h"

/* What a bandwidth curve counts: the bytes the kernel moves once (read: read, write: written,
 * copy: copied, so a copy of n bytes counts n, as a memcpy of n bytes does). The footprint, the
 * point's size, is the total of the buffers: a copy's source and destination are half each. */
struct mfb_bw_curve {
    enum mfb_stream_kernel kernel;
    enum mfb_vector vector;
    enum mfb_pages pages;
    size_t npoints;
    struct mfb_probe_point *points; /* rep[] in GB/s (1e9 bytes), all threads together */
};

/* Measures the curve on cfg->threads threads pinned to cfg->cpus (the calling thread's CPU
 * when one); progress as for latency. */
int mfb_bandwidth_curve(const struct mfb_probe_run *run, struct mfb_bw_curve *c, void (*progress)(const struct mfb_bw_curve *, size_t, void *),
                        void *ctx, struct mfb_err *err);

#endif
