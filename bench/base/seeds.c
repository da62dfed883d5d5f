#include "base/seeds.h"

#include "base/rng.h"

static const char *const names[MFB_STREAM_COUNT] = {
    [MFB_STREAM_PARAMS] = "params",       [MFB_STREAM_ORDER] = "order",
    [MFB_STREAM_SHIFT] = "shift",         [MFB_STREAM_VERIFY] = "verify",
    [MFB_STREAM_SELFCHECK] = "selfcheck", [MFB_STREAM_CALIBRATE] = "calibrate",
    [MFB_STREAM_OVERHEAD] = "overhead",   [MFB_STREAM_ARENA] = "arena",
    [MFB_STREAM_ENV_PAD] = "env_pad",     [MFB_STREAM_STACK] = "stack",
    [MFB_STREAM_CODE] = "code",           [MFB_STREAM_CHECK] = "placement_check",
};

const char *mfb_stream_name(enum mfb_stream s)
{
    return names[s];
}

/* Stream numbers start at 1 (0 would reuse the master's first splitmix64 output); process seeds
 * live at 1000 + i, far from the streams. */
uint64_t mfb_stream_seed(uint64_t master, enum mfb_stream s)
{
    return mfb_seed_derive(master, 1 + (uint64_t)s);
}

uint64_t mfb_class_seed(uint64_t master, enum mfb_stream s, int k)
{
    return mfb_seed_derive(mfb_stream_seed(master, s), (uint64_t)k);
}

uint64_t mfb_process_seed(uint64_t master, int i)
{
    return mfb_seed_derive(master, 1000 + (uint64_t)i);
}

/* Thread seeds live at 2000 + k, apart from the streams and the processes. */
uint64_t mfb_thread_seed(uint64_t master, int k)
{
    return mfb_seed_derive(master, 2000 + (uint64_t)k);
}
