// Realistic drift (issue 25 part 3): one MVM query at N = 1024, d = 32 whose local drift is the
// Ornstein-Uhlenbeck process with the time constant and refresh step of the thermal model
// (prism::with_thermal_drift: the default thermal and calibration specs give tau = 0.90 s,
// refreshed every 1 ms = 10^5 queries of 10 ns). Target <= 5 us per query, about a
// fixed-state query. Same bench device and impairment sigmas as bench_photonics'
// BM_MvmQueryDriftPerQuery (the stress option, target <= 30 us). One thread; items = queries;
// counters: K (queries per field update) and tau_s.
#include <benchmark/benchmark.h>

#include "lightsim/photonics/device.h"
#include "lightsim/photonics/mvm.h"
#include "lightsim/prism/calibration.h"
#include "lightsim/prism/drift_time.h"
#include "lightsim/prism/thermal.h"
#include "mvm_setup.h"

namespace lightsim::prism {
namespace {

void BM_MvmQueryDriftRealistic(benchmark::State& state) {
  bench::MvmSetup setup;
  photonics::ImpairmentSpec imp = setup.impairments;
  imp.thermal_drift = true;
  imp = with_thermal_drift(imp, setup.device, ThermalSpec{}, CalibrationSpec{});
  photonics::MvmKernel kernel(setup.device, imp, setup.weights);
  kernel.set_state(1, 0);
  bench::time_mvm_queries(state, kernel, setup.query, /*with_drift=*/true, 3);
  state.counters["K"] = kernel.drift().refresh_queries();
  state.counters["tau_s"] = imp.drift_time_constant.si();
}
BENCHMARK(BM_MvmQueryDriftRealistic)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace lightsim::prism
