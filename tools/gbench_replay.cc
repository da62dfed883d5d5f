// The memfbench workload timed by Google Benchmark, for the validation report: the same
// distribution, working set and call records (memfbench's core library draws them), replayed by
// Google Benchmark's own loop, one benchmark per variant, run one after the other as GB does.
//
// Usage: gbench_replay DIST_DIR [google benchmark flags]
// Per-call time = real_time per iteration / calls per iteration (reported as a counter).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

extern "C" {
#include "base/rng.h"
#include "impl/variants.h"
#include "measure/kernels.h"
#include "measure/passes.h"
#include "machine/timer.h"
#include "measure/workset.h"
#include "workload/distribution.h"
#include "workload/sampler.h"
}

namespace {

// Many parameter arrays, cycled one per iteration, so a single unlucky draw (one 200 KiB call)
// does not decide the result, as memfbench's fresh draw per round does not.
static int kArrays = 64;  // GBENCH_ARRAYS overrides (experiments)

struct Workload {
    mfb_dist dist{};
    mfb_workset ws{};
    mfb_timer timer{};
    std::vector<mfb_call> calls;  // kArrays x P records
    std::vector<mfb_pass> passes; // one per iteration slot
    uint32_t per_array = 0;
};

Workload *setup(const char *dist_dir) {
    auto *w = new Workload;
    mfb_err err{};
    mfb_caches caches{};
    mfb_cache_detect(&caches, -1);
    mfb_workset_need need{};
    // Large calls beyond the LLC by the window's size (--large-window sized): Google Benchmark
    // times every iteration, so the flush memfbench makes between its batches would be timed here.
    need.sized = true;
    if (mfb_timer_init(&w->timer, MFB_CLOCK_AUTO, 0, &err) < 0 ||
        mfb_dist_resolve(&w->dist, "fleetbench/Memcpy_Fleet", MFB_MEMCPY, dist_dir, &err) < 0 ||
        (need.max_size = mfb_table_max(&w->dist.size), need.align_period = mfb_dist_align_period(&w->dist),
         need.overlap = mfb_dist_overlaps(&w->dist),
         mfb_workset_plan(&w->ws, MFB_MEMCPY, MFB_PL_AUTO, &caches, &need, &err) < 0) ||
        mfb_workset_alloc(&w->ws, 1, &err) < 0) {
        std::fprintf(stderr, "gbench_replay: %s\n", err.msg);
        std::exit(1);
    }
    mfb_sampler s{};
    if (mfb_sampler_init(&s, &w->dist, &w->ws.space, MFB_ALIGN_EXACT, mfb_seed_fresh(), &err) < 0) {
        std::fprintf(stderr, "gbench_replay: %s\n", err.msg);
        std::exit(1);
    }
    w->per_array = mfb_workset_params(&w->ws);
    w->calls.resize(static_cast<size_t>(kArrays) * w->per_array);
    mfb_sampler_fill(&s, w->calls.data(), w->calls.size());
    mfb_sampler_free(&s);
    mfb_rng r;
    mfb_rng_seed(&r, 7);
    w->passes.resize(4096);
    mfb_passes_draw(&r, w->passes.data(), w->passes.size(), w->ws.space.page_units);
    return w;
}

Workload *g_work;  // set once in main; Google Benchmark's registration needs a callable

void BM_replay(benchmark::State &state, const char *variant) {
    const mfb_variant *v = mfb_variant_find(MFB_MEMCPY, variant);
    mfb_variant inst;
    const char *why = "";
    if (!v || mfb_variant_instantiate(v, &inst, &why) < 0) {
        state.SkipWithError("variant not available");
        return;
    }
    Workload &w = *g_work;
    size_t it = 0;
    for (auto _ : state) {
        // One pass over one parameter array through memfbench's own timed loop; its two clock
        // reads per pass (about 20 ns over the array's calls_per_iteration calls, 512 with a
        // 48 KiB L1d) are part of what GB measures here.
        mfb_batch b{&inst, w.ws.arena, w.calls.data() + (it % kArrays) * w.per_array, w.ws.params_log2,
                    w.ws.space.large.pages_mask, 0, &w.passes[it % w.passes.size()], 1, &w.timer, false, nullptr};
        mfb_batch_result res;
        mfb_run_batch(&b, &res);
        benchmark::DoNotOptimize(res.ticks);
        ++it;
    }
    state.counters["calls_per_iteration"] = w.per_array;
}

}  // namespace

int main(int argc, char **argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: gbench_replay DIST_DIR [benchmark flags]\n");
        return 2;
    }
    if (const char *a = std::getenv("GBENCH_ARRAYS")) kArrays = std::atoi(a);
    g_work = setup(argv[1]);
    benchmark::RegisterBenchmark("replay/libc", BM_replay, "libc");
    benchmark::RegisterBenchmark("replay/avx2", BM_replay, "avx2");
    argv[1] = argv[0];
    int n = argc - 1;
    benchmark::Initialize(&n, argv + 1);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
