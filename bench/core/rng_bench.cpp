#include <benchmark/benchmark.h>

#include <vector>

#include "lightsim/core/rng.h"

namespace lightsim {
namespace {

void BM_NormalFloatBulk(benchmark::State& state) {
  RandomStream rs(42, {1, 2});
  std::vector<float> buf(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    rs.fill_normal(std::span<float>(buf));
    benchmark::DoNotOptimize(buf.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_NormalFloatBulk)->Arg(4096);

void BM_NormalFloatLevel(benchmark::State& state) {
  const auto level = static_cast<detail::SimdLevel>(state.range(0));
  if (!detail::simd_level_supported(level)) {
    state.SkipWithError("unsupported");
    return;
  }
  const StreamKey key = StreamKey::derive(42, {1});
  std::vector<float> buf(4096);
  std::uint64_t pos = 0;
  for (auto _ : state) {
    detail::normal_float_at(level, key, pos, buf);
    pos += buf.size();
    benchmark::DoNotOptimize(buf.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * 4096);
}
BENCHMARK(BM_NormalFloatLevel)->DenseRange(0, 2)->ArgName("level");

}  // namespace
}  // namespace lightsim

BENCHMARK_MAIN();
