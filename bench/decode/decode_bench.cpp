// Cost of one decode step evaluation (full attention; Prism with its selection precomputed is
// the same GPU work) and of the whole shipped grid (3 GPUs x 7 batches x 6 contexts, full and
// Prism, with one prism::cost per context). Target: the grid in < 100 ms, so studies can sweep
// it freely. docs/performance.md.
#include <benchmark/benchmark.h>

#include "lightsim/decode/step.h"
#include "shipped_configs.h"

namespace lightsim::decode {
namespace {

DecodeSetup shipped_setup() {
  const config::LoadOptions o = testing::shipped_configs();
  return prepare(load_scenario("qwen2_5_7b", o), o);
}

void BM_DecodeStepFull(benchmark::State& state) {
  const DecodeSetup s = shipped_setup();
  for (auto _ : state)
    benchmark::DoNotOptimize(
        evaluate_step(s, s.scenario.gpus.back(), Attention::full, 8, 32768).step_time);
}
BENCHMARK(BM_DecodeStepFull);

void BM_DecodeGrid(benchmark::State& state) {
  const DecodeSetup s = shipped_setup();
  for (auto _ : state) benchmark::DoNotOptimize(evaluate_grid(s).size());
}
BENCHMARK(BM_DecodeGrid)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace lightsim::decode

BENCHMARK_MAIN();
