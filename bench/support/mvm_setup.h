// The bench device of the MVM-kernel benchmarks (bench_photonics' mvm_bench, bench_prism's
// drift_time_bench): the seed_tfln_fit design at d = 32, N = 1024 (Q 5e4, 32 channels at 0.2 nm,
// +-15 V, TIA 15 kOhm) with the drift sigmas of the issue-3 targets, random weights in
// [-0.9, 0.9] and a query in [0, 1] from stream (1, {1}); and the loop that times one query per
// iteration. One definition, so both programs time the same kernel on the same state.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "lightsim/photonics/device.h"
#include "lightsim/photonics/mvm.h"

namespace lightsim::bench {

inline constexpr int kMvmChannels = 32, kMvmRows = 1024;

struct MvmSetup {
  photonics::DeviceSpec device;
  photonics::ImpairmentSpec impairments;
  std::vector<float> weights, query;
  MvmSetup() {
    device.ring.q_loaded = 5e4;
    device.ring.extinction_ratio = Decibel::si(20.0);
    device.grid.channels = kMvmChannels;
    device.grid.spacing = Length::si(0.2e-9);
    device.tuning.max_voltage = Voltage::si(15.0);
    device.bank.rows = kMvmRows;
    device.tia.gain = Resistance::si(15e3);
    impairments.calibration_residual = Length::si(2e-12);
    impairments.drift_global_sigma = Length::si(5e-12);
    impairments.drift_local_sigma = Length::si(10e-12);
    impairments.correlation_rings = 4.0;
    RandomStream s(1, {1});
    weights.resize(static_cast<std::size_t>(kMvmRows) * kMvmChannels);
    for (auto& w : weights) w = static_cast<float>(0.9 * (2.0 * s.uniform() - 1.0));
    query.resize(kMvmChannels);
    for (auto& x : query) x = static_cast<float>(s.uniform());
  }
};

// Times one query per iteration through `kernel` (its state already set): `score` on the fixed
// state, or `score_with_drift` when `with_drift`, with detector noise from stream (1,
// {noise_id}). Items = queries.
inline void time_mvm_queries(benchmark::State& state, photonics::MvmKernel& kernel,
                             const std::vector<float>& query, bool with_drift,
                             std::uint64_t noise_id) {
  RandomStream noise(1, {noise_id});
  std::vector<float> scores(kMvmRows), currents(kMvmRows);
  for (auto _ : state) {
    if (with_drift)
      kernel.score_with_drift(query, scores, noise, currents);
    else
      kernel.score(query, scores, noise, currents);
    benchmark::DoNotOptimize(scores.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());
}

}  // namespace lightsim::bench
