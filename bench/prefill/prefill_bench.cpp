// Cost of one plan evaluation (target <= 20 us on one core for a 61-layer MoE) and of one
// full plan search for a scenario and GPU count (target <= 2 s). docs/performance.md.
#include <benchmark/benchmark.h>

#include "lightsim/prefill/search.h"
#include "shipped_configs.h"

namespace lightsim::prefill {
namespace {

struct Setup {
  ScenarioSpec scenario;
  model::Transformer model;
  fabric::Topology topology;
  explicit Setup(const char* name, const char* fabric_name) {
    scenario = load_scenario(name, testing::shipped_configs());
    model = load_model(scenario.model, testing::shipped_configs());
    topology = fabric::build_topology(fabric::load_fabric(fabric_name, testing::shipped_configs()));
  }
};

// DeepSeek-V3 (61 layers: 3 dense + 58 MoE) on 32 H800s, the deployed EP32 plan.
void BM_EvaluatePlanDeepSeekV3(benchmark::State& state) {
  const Setup s("deepseek_h800", "hgx_h800");
  const Evaluator ev(s.scenario, s.model, s.topology, 32);
  const Plan plan = parse_plan("TP=1,EP=32", 32);
  for (auto _ : state) {
    const Result r = ev.evaluate(plan);
    benchmark::DoNotOptimize(r.latency_s);
  }
}
BENCHMARK(BM_EvaluatePlanDeepSeekV3)->Unit(benchmark::kMicrosecond);

// The seed's 60-layer model, 128K context, ring CP across racks on copper.
void BM_EvaluatePlanSeedRing(benchmark::State& state) {
  const Setup s("seed_128k", "seed_copper_1152");
  const Evaluator ev(s.scenario, s.model, s.topology, 1152);
  const Plan plan = parse_plan("TP=8,CP=18,EP=144,DP=1", 144);
  for (auto _ : state) {
    const Result r = ev.evaluate(plan);
    benchmark::DoNotOptimize(r.latency_s);
  }
}
BENCHMARK(BM_EvaluatePlanSeedRing)->Unit(benchmark::kMicrosecond);

// Full search: the seed's 8K scenario at 1152 GPUs on copper (evaluator built once, as the
// study does; its construction is timed separately below).
void BM_SearchSeed8k1152(benchmark::State& state) {
  const Setup s("seed_8k", "seed_copper_1152");
  const Evaluator ev(s.scenario, s.model, s.topology, 1152);
  std::int64_t evaluated = 0;
  for (auto _ : state) {
    const SearchResult r = search(ev, 1152);
    evaluated = r.evaluated;
    benchmark::DoNotOptimize(r.best.latency_s);
  }
  state.counters["plans"] = static_cast<double>(evaluated);
}
BENCHMARK(BM_SearchSeed8k1152)->Unit(benchmark::kMillisecond);

void BM_BuildEvaluator(benchmark::State& state) {
  const Setup s("seed_8k", "seed_copper_1152");
  for (auto _ : state) {
    const Evaluator ev(s.scenario, s.model, s.topology, 1152);
    benchmark::DoNotOptimize(&ev);
  }
}
BENCHMARK(BM_BuildEvaluator)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace lightsim::prefill

BENCHMARK_MAIN();
