// The Prism design search at 16K context (issue 23 target: >= 10^3 candidates scored per minute
// on 2 cores, i.e. >= 16.7 per second): configs/prism_designs/tiny.yaml at 16384 tokens over
// 96 candidates (Q x weight bits x lock precision x encoding x chips x k), everything a search
// does included: cache generation, feasibility, cost model, recall of the 24 distinct tuples,
// the front. Two threads; items = candidates.
#include <benchmark/benchmark.h>

#include "lightsim/core/config_files.h"
#include "lightsim/core/context.h"
#include "lightsim/prism/design.h"
#include "shipped_configs.h"

namespace lightsim::prism {
namespace {

void BM_PrismDesign16k(benchmark::State& state) {
  const config::LoadOptions load = testing::shipped_configs();
  PrismDesignSpec spec = config::load_spec<PrismDesignSpec>(
      config::find_named("tiny", PrismDesignSpec::preset_dir, load, "prism design"), load);
  spec.workload.tokens = 16384;
  spec.space.q_loaded = {5e4, 1e5};
  spec.space.weight_bits = {4, 6, 8};
  spec.space.lock_precision = {Length::si(0.5e-12), Length::si(2e-12)};
  spec.space.query_encoding = {"intensity", "balanced"};
  spec.space.chips = {1, 2};
  spec.space.top_k = {8, 32};
  ContextOptions o;
  o.threads = 2;
  o.log_level = LogLevel::warn;
  Context ctx(o);
  std::size_t n = 0;
  for (auto _ : state) {
    const DesignResult r = search_designs(spec, ctx);
    n = r.candidates;
    benchmark::DoNotOptimize(r.front.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
}
BENCHMARK(BM_PrismDesign16k)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace lightsim::prism
