// The MVM kernel per query at d = 32, N = 1024 (issue 3 targets: <= 5 us with a fixed
// impairment state and per-query detector noise; <= 40 us with every ring's drift redrawn per
// query). One thread; items = queries.
#include <benchmark/benchmark.h>

#include <span>
#include <vector>

#include "lightsim/photonics/device.h"
#include "lightsim/photonics/mvm.h"
#include "mvm_setup.h"
#include "roofline.h"

namespace lightsim::photonics {
namespace {

using bench::MvmSetup;
constexpr int kChannels = bench::kMvmChannels, kRows = bench::kMvmRows;

// Roofline counters of a query with every noise term on, counted for its blocked pass only
// (src/photonics/mvm_kernels.cpp): per ring acc += W_eff x, sum += S u, rin += W_eff^2 u^2 =
// 7 flops, W_eff and S read (8 bytes); the per-row detection (1024 normals, ADC) is in the time
// but not in the counts, so the fractions are lower bounds for the pass.
void report_pass(benchmark::State& state, lightsim::bench::RooflineTimer& timer) {
  const double nd = static_cast<double>(kRows) * kChannels;
  timer.report(state, 7.0 * nd, 8.0 * nd, static_cast<std::size_t>(nd) * 2 * sizeof(float));
}

void BM_MvmQueryFixedState(benchmark::State& state) {
  MvmSetup setup;
  MvmKernel kernel(setup.device, setup.impairments, setup.weights);
  kernel.set_state(1, 0);
  lightsim::bench::RooflineTimer timer;
  bench::time_mvm_queries(state, kernel, setup.query, /*with_drift=*/false, 2);
  report_pass(state, timer);
}
BENCHMARK(BM_MvmQueryFixedState)->Unit(benchmark::kMicrosecond);

// The same query with the per-query noise off (no detector normals, no shot or RIN sums): the
// blocked MVM pass acc = W_eff x and the offset and ADC per row.
void BM_MvmPassNoiseless(benchmark::State& state) {
  MvmSetup setup;
  setup.impairments.noise = false;
  MvmKernel kernel(setup.device, setup.impairments, setup.weights);
  kernel.set_state(1, 0);
  lightsim::bench::RooflineTimer timer;
  bench::time_mvm_queries(state, kernel, setup.query, /*with_drift=*/false, 2);
  // acc only: 2 flops and 4 bytes (W_eff) per ring.
  const double nd = static_cast<double>(kRows) * kChannels;
  timer.report(state, 2.0 * nd, 4.0 * nd, static_cast<std::size_t>(nd) * sizeof(float));
}
BENCHMARK(BM_MvmPassNoiseless)->Unit(benchmark::kMicrosecond);

void BM_MvmQueryDriftPerQuery(benchmark::State& state) {
  MvmSetup setup;
  MvmKernel kernel(setup.device, setup.impairments, setup.weights);
  kernel.set_state(1, 0);
  bench::time_mvm_queries(state, kernel, setup.query, /*with_drift=*/true, 3);
}
BENCHMARK(BM_MvmQueryDriftPerQuery)->Unit(benchmark::kMicrosecond);

// Option (i) of docs/performance.md: the local drift evolves in time (Ornstein-Uhlenbeck, time
// constant tau = range(0) ns) and is updated every K = floor(tau / (10 T)) queries, T the 10 ns
// TIA window: 200 ns gives K = 2, 1 ms (a thermal time constant) K = 10^4. Per query, averaged
// over the updates.
void BM_MvmQueryDriftTimeConstant(benchmark::State& state) {
  MvmSetup setup;
  setup.impairments.drift_time_constant = Time::si(static_cast<double>(state.range(0)) * 1e-9);
  MvmKernel kernel(setup.device, setup.impairments, setup.weights);
  kernel.set_state(1, 0);
  bench::time_mvm_queries(state, kernel, setup.query, /*with_drift=*/true, 3);
  state.counters["K"] = kernel.drift().refresh_queries();
}
BENCHMARK(BM_MvmQueryDriftTimeConstant)
    ->ArgName("tau_ns")
    ->Arg(200)
    ->Arg(1'000'000)
    ->Unit(benchmark::kMicrosecond);

// The random numbers alone that BM_MvmQueryDriftPerQuery needs per query: one float normal per
// ring (N d) for the drift plus one per row (N) for the detector noise, drawn in the same
// 1024-value fills. A lower bound for the drift query on one core.
void BM_MvmDriftRngLowerBound(benchmark::State& state) {
  RandomStream noise(1, {3});
  std::vector<float> z(static_cast<std::size_t>(kChannels) * BlockLayout::kRows);
  for (auto _ : state) {
    for (int b = 0; b < kRows / BlockLayout::kRows; ++b) noise.fill_normal(std::span<float>(z));
    benchmark::DoNotOptimize(z.data());
    z.resize(kRows);
    noise.fill_normal(std::span<float>(z));
    z.resize(static_cast<std::size_t>(kChannels) * BlockLayout::kRows);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_MvmDriftRngLowerBound)->Unit(benchmark::kMicrosecond);

// A new impairment state (per Monte-Carlo trial): DACs, static errors, drift field, and the
// crosstalk-mixed effective weights of every row (N d^2 exact ring evaluations).
void BM_MvmNewState(benchmark::State& state) {
  MvmSetup setup;
  MvmKernel kernel(setup.device, setup.impairments, setup.weights);
  std::uint64_t trial = 0;
  for (auto _ : state) kernel.set_state(1, ++trial);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_MvmNewState)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace lightsim::photonics
