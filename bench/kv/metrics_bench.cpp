// The retrieval metrics of docs/metrics.md (kv::evaluate): per (KV head, step) the exact
// attention oracle (softmax over every token for each of the group's query heads), the
// scorer's top-k, Recall@k, mass recall, the sparse attention output's error and the union
// over the layer's KV heads (docs/performance.md, generated tables).
#include <benchmark/benchmark.h>

#include <vector>

#include "bench_setup.h"
#include "lightsim/kv/metrics.h"
#include "lightsim/kv/scorer.h"
#include "lightsim/kv/scorer_specs.h"

namespace lightsim::kv {
namespace {

// One layer of the Qwen-like preset (4 KV heads, 7 query heads each, 16 steps) at 8K tokens,
// the quest scorer (min/max summaries, no fit), k = 8, 16, 32, one thread. Items = samples
// (KV head, step).
void BM_EvaluateMetrics8K(benchmark::State& state) {
  const KvGeneratorSpec spec = bench::one_layer(4, 28, 8192);
  Context ctx(bench::one_thread());
  const KvCache cache = generate_kv_cache(spec, ctx);
  const std::vector<ScorerSetup> setups = {{"quest", quest_scorer({})}};
  const EvalOptions options;
  for (auto _ : state) {
    const EvalReport report = evaluate(cache, setups, options, ctx);
    benchmark::DoNotOptimize(report.scorers.data());
  }
  state.SetItemsProcessed(state.iterations() *
                          static_cast<std::int64_t>(spec.kv_heads * cache.geometry().steps));
}
BENCHMARK(BM_EvaluateMetrics8K)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace lightsim::kv
