// The thermal drift simulation (docs/thermal.md): one simulated second of the seed accelerator
// (256 x 32 rings, 512 sensors of 16 rings, 1 ms loop steps, 10 ms ring/trace steps, one
// periodic relock), and one bank-wide bias lock. Items = simulated seconds / rings locked.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <vector>

#include "lightsim/core/config.h"
#include "lightsim/prism/accelerator.h"
#include "lightsim/prism/thermal.h"
#include "shipped_configs.h"

namespace lightsim::prism {
namespace {

photonics::DeviceSpec seed_device() {
  return config::load_spec<AcceleratorSpec>(
             std::filesystem::path(LIGHTSIM_SOURCE_DIR) / "configs/accelerators/seed.yaml",
             testing::shipped_configs())
      .device;
}

void BM_DriftOneSecond(benchmark::State& state) {
  const photonics::DeviceSpec device = seed_device();
  const ThermalSpec thermal;
  const CalibrationSpec cal;
  DriftOptions options;
  options.duration = Time::si(1.0);
  options.heat = Power::si(1.86);  // the seed accelerator's on-chip heat (`prism cost seed`)
  for (auto _ : state) {
    const DriftRun run = simulate_drift(device, thermal, cal, options);
    benchmark::DoNotOptimize(run.error_rms);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_DriftOneSecond)->Unit(benchmark::kMillisecond);

void BM_LockBank(benchmark::State& state) {
  const photonics::DeviceSpec device = seed_device();
  const CalibrationSpec cal;
  const std::size_t n = static_cast<std::size_t>(device.bank.rows) * device.grid.channels;
  std::vector<double> offsets(n);
  for (std::size_t i = 0; i < n; ++i) offsets[i] = (static_cast<double>(i % 41) - 20.0) * 0.4e-12;
  for (auto _ : state) {
    const CalibrationReport rep = calibrate_bank(device, cal, offsets, 3);
    benchmark::DoNotOptimize(rep.residual_rms);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(n));
}
BENCHMARK(BM_LockBank)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace lightsim::prism
