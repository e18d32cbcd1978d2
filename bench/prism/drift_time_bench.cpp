// Realistic drift (issue 25 part 3): one MVM query at N = 1024, d = 32 whose local drift is the
// Ornstein-Uhlenbeck process with the time constant and refresh step of the thermal model
// (prism::with_thermal_drift: the default thermal and calibration specs give tau = 0.90 s,
// refreshed every 1 ms = 10^5 queries of 10 ns). Target <= 5 us per query, about a
// fixed-state query. Same bench device and impairment sigmas as bench_photonics'
// BM_MvmQueryDriftPerQuery (the stress option, target <= 30 us). One thread; items = queries;
// counters: K (queries per field update) and tau_s.
#include <benchmark/benchmark.h>

#include <vector>

#include "lightsim/photonics/device.h"
#include "lightsim/photonics/mvm.h"
#include "lightsim/prism/calibration.h"
#include "lightsim/prism/drift_time.h"
#include "lightsim/prism/thermal.h"

namespace lightsim::prism {
namespace {

constexpr int kChannels = 32, kRows = 1024;

void BM_MvmQueryDriftRealistic(benchmark::State& state) {
  photonics::DeviceSpec d;  // as bench_photonics: Q 5e4, 32 channels at 0.2 nm, +-15 V
  d.ring.q_loaded = 5e4;
  d.ring.extinction_ratio = Decibel::si(20.0);
  d.grid.channels = kChannels;
  d.grid.spacing = Length::si(0.2e-9);
  d.tuning.max_voltage = Voltage::si(15.0);
  d.bank.rows = kRows;
  d.tia.gain = Resistance::si(15e3);
  photonics::ImpairmentSpec imp;
  imp.calibration_residual = Length::si(2e-12);
  imp.drift_global_sigma = Length::si(5e-12);
  imp.drift_local_sigma = Length::si(10e-12);
  imp.correlation_rings = 4.0;
  imp.thermal_drift = true;
  imp = with_thermal_drift(imp, d, ThermalSpec{}, CalibrationSpec{});
  RandomStream s(1, {1});
  std::vector<float> weights(static_cast<std::size_t>(kRows) * kChannels), query(kChannels);
  for (auto& w : weights) w = static_cast<float>(0.9 * (2.0 * s.uniform() - 1.0));
  for (auto& x : query) x = static_cast<float>(s.uniform());
  photonics::MvmKernel kernel(d, imp, weights);
  kernel.set_state(1, 0);
  RandomStream noise(1, {3});
  std::vector<float> scores(kRows), currents(kRows);
  for (auto _ : state) {
    kernel.score_with_drift(query, scores, noise, currents);
    benchmark::DoNotOptimize(scores.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["K"] = kernel.drift().refresh_queries();
  state.counters["tau_s"] = imp.drift_time_constant.si();
}
BENCHMARK(BM_MvmQueryDriftRealistic)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace lightsim::prism
