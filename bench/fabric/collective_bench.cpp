// Cost of one collective evaluation (target: well under 1 us).
#include <benchmark/benchmark.h>

#include "lightsim/fabric/collective.h"
#include "shipped_configs.h"

namespace lightsim::fabric {
namespace {

Topology shipped(const char* name) {
  return build_topology(load_fabric(name, testing::shipped_configs()));
}

// Automatic choice over every algorithm, all-reduce across two NVL72 racks.
void BM_AllReduceAuto(benchmark::State& state) {
  const Topology t = shipped("gb200_nvl72");
  double bytes = 1 << 20;
  for (auto _ : state) {
    const CollectiveResult r = collective(t, CollectiveOp::all_reduce, 144, bytes);
    benchmark::DoNotOptimize(r.time);
    bytes = bytes < 1e10 ? bytes * 1.5 : 1 << 20;
  }
}
BENCHMARK(BM_AllReduceAuto);

void BM_AllToAllDirect(benchmark::State& state) {
  const Topology t = shipped("seed_copper_1152");
  for (auto _ : state) {
    const CollectiveResult r = collective(t, CollectiveOp::all_to_all, 1152, 256.0 * (1 << 20));
    benchmark::DoNotOptimize(r.time);
  }
}
BENCHMARK(BM_AllToAllDirect);

}  // namespace
}  // namespace lightsim::fabric

BENCHMARK_MAIN();
