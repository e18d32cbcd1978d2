// Cost of one full-model cost analysis (DeepSeek-V3, 61 layers, prefill of 4096 tokens).
#include <benchmark/benchmark.h>

#include "lightsim/model/cost.h"

namespace lightsim::model {
namespace {

void BM_AnalyzeDeepSeekV3Prefill(benchmark::State& state) {
  const Transformer m = load_hf_config(std::filesystem::path(LIGHTSIM_SOURCE_DIR) /
                                       "configs/models/deepseek_v3.json");
  for (auto _ : state) {
    const CostReport r = analyze(m, DTypePolicy{}, Workload::prefill(4096, 4));
    benchmark::DoNotOptimize(r.flops);
  }
}
BENCHMARK(BM_AnalyzeDeepSeekV3Prefill)->Unit(benchmark::kMicrosecond);

void BM_LoadAndAnalyze(benchmark::State& state) {
  for (auto _ : state) {
    const Transformer m = load_hf_config(std::filesystem::path(LIGHTSIM_SOURCE_DIR) /
                                         "configs/models/deepseek_v3.json");
    const CostReport r = analyze(m, DTypePolicy{}, Workload::decode(32768, 64));
    benchmark::DoNotOptimize(r.flops);
  }
}
BENCHMARK(BM_LoadAndAnalyze)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace lightsim::model

BENCHMARK_MAIN();
