// Random stream throughput; items_per_second = values (or Philox blocks) per second, one core.
#include <benchmark/benchmark.h>

#include <vector>

#include "lightsim/core/rng.h"

namespace lightsim {
namespace {

constexpr std::size_t kBatch = 4096;

template <typename T>
void fill_normal_bulk(benchmark::State& state) {
  RandomStream rs(42, {1, 2});
  std::vector<T> buf(kBatch);
  for (auto _ : state) {
    rs.fill_normal(std::span<T>(buf));
    benchmark::DoNotOptimize(buf.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(kBatch));
}
void BM_NormalFloatBulk(benchmark::State& state) {
  fill_normal_bulk<float>(state);
}
void BM_NormalDoubleBulk(benchmark::State& state) {
  fill_normal_bulk<double>(state);
}
BENCHMARK(BM_NormalFloatBulk);
BENCHMARK(BM_NormalDoubleBulk);

// The float kernel on each SIMD path (0 baseline x86-64, 1 AVX2, 2 AVX-512).
void BM_NormalFloatPath(benchmark::State& state) {
  const auto level = static_cast<detail::SimdLevel>(state.range(0));
  if (!detail::simd_level_supported(level)) {
    state.SkipWithError("path not supported by this CPU");
    return;
  }
  const StreamKey key = StreamKey::derive(42, {1});
  std::vector<float> buf(kBatch);
  std::uint64_t pos = 0;
  for (auto _ : state) {
    detail::normal_float_at(level, key, pos, buf);
    pos += kBatch;
    benchmark::DoNotOptimize(buf.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(kBatch));
}
BENCHMARK(BM_NormalFloatPath)->DenseRange(0, 2)->ArgName("path");

void BM_NormalDoubleScalar(benchmark::State& state) {
  RandomStream rs(42, {3});
  for (auto _ : state) benchmark::DoNotOptimize(rs.normal());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_NormalDoubleScalar);

void BM_UniformDoubleScalar(benchmark::State& state) {
  RandomStream rs(42, {4});
  for (auto _ : state) benchmark::DoNotOptimize(rs.uniform());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_UniformDoubleScalar);

template <typename T>
void fill_uniform_bulk(benchmark::State& state) {
  RandomStream rs(42, {5});
  std::vector<T> buf(kBatch);
  for (auto _ : state) {
    rs.fill_uniform(std::span<T>(buf));
    benchmark::DoNotOptimize(buf.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(kBatch));
}
void BM_UniformFloatBulk(benchmark::State& state) {
  fill_uniform_bulk<float>(state);
}
void BM_UniformDoubleBulk(benchmark::State& state) {
  fill_uniform_bulk<double>(state);
}
BENCHMARK(BM_UniformFloatBulk);
BENCHMARK(BM_UniformDoubleBulk);

// Philox4x32-10 blocks per second: bulk kernel (best path) and one block at a time.
void BM_PhiloxBlocksBulk(benchmark::State& state) {
  const StreamKey key = StreamKey::derive(42, {6});
  std::vector<std::uint32_t> words(kBatch);
  std::uint64_t block = 0;
  for (auto _ : state) {
    detail::philox_words_at(detail::best_simd_level(), key, block, words);
    block += kBatch / 4;
    benchmark::DoNotOptimize(words.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(kBatch / 4));
}
BENCHMARK(BM_PhiloxBlocksBulk);

void BM_PhiloxBlockScalar(benchmark::State& state) {
  const StreamKey key = StreamKey::derive(42, {7});
  std::uint64_t block = 0;
  for (auto _ : state) benchmark::DoNotOptimize(philox_block(key, block++));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_PhiloxBlockScalar);

}  // namespace
}  // namespace lightsim
