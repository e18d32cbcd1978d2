// Cost of one decode step evaluation (full attention; Prism with its selection precomputed is
// the same GPU work) and of the whole shipped grid (3 GPUs x 7 batches x 6 contexts, full and
// Prism, with one prism::cost per context). Target: the grid in < 100 ms, so studies can sweep
// it freely. docs/performance.md.
#include <benchmark/benchmark.h>

#include "lightsim/decode/plan_search.h"
#include "lightsim/decode/scale.h"
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

// One decode step of a 1152-GPU plan (DeepSeek-V3, DP attention over 1152 GPUs, EP288, on the
// photonic pod): the evaluator is built once, each iteration is one step_time. Target (#21):
// <= 50 us.
void BM_DecodePlan1152(benchmark::State& state) {
  const config::LoadOptions o = testing::shipped_configs();
  const StepEvaluator ev(prepare(load_scale_scenario("deepseek_v3_photonic_1152", o), o));
  const DecodePlan plan = parse_plan("TP=1,DPA=1152,EP=288", 1152);
  for (auto _ : state) benchmark::DoNotOptimize(ev.step_time(plan, 1152 * 256, 4096).step_time);
}
BENCHMARK(BM_DecodePlan1152)->Unit(benchmark::kMicrosecond);

// The whole decode plan search of that scenario (every plan, bisection over the batch).
void BM_DecodeSearch1152(benchmark::State& state) {
  const config::LoadOptions o = testing::shipped_configs();
  const StepEvaluator ev(prepare(load_scale_scenario("deepseek_v3_photonic_1152", o), o));
  for (auto _ : state) benchmark::DoNotOptimize(search(ev, 1152, 4096, 50e-3, 0, 5).best.step_time);
}
BENCHMARK(BM_DecodeSearch1152)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace lightsim::decode

BENCHMARK_MAIN();
