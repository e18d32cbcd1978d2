// parallel_for / parallel_reduce overhead. Wall-clock time (UseRealTime): workers run on
// other threads. items_per_second = chunks (or summed values) per second.
#include <benchmark/benchmark.h>

#include <cmath>
#include <vector>

#include "lightsim/core/parallel.h"

namespace lightsim {
namespace {

// Empty body, args (threads, chunks): per-call latency with 2 chunks, per-chunk cost with 256.
void BM_ParallelForEmpty(benchmark::State& state) {
  ThreadPool pool(static_cast<std::size_t>(state.range(0)));
  const auto chunks = static_cast<std::size_t>(state.range(1));
  for (auto _ : state)
    parallel_for_chunks(pool, chunks, 1,
                        [](std::size_t b, std::size_t) { benchmark::DoNotOptimize(b); });
  state.SetItemsProcessed(state.iterations() * state.range(1));
}
BENCHMARK(BM_ParallelForEmpty)
    ->ArgNames({"threads", "chunks"})
    ->Args({1, 2})
    ->Args({1, 256})
    ->Args({2, 2})
    ->Args({2, 256})
    ->UseRealTime();

// Deterministic double sum of 1 Mi values, default chunking (256 chunks).
void BM_ParallelReduceSum(benchmark::State& state) {
  ThreadPool pool(static_cast<std::size_t>(state.range(0)));
  std::vector<double> v(1 << 20);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = std::sin(static_cast<double>(i));
  for (auto _ : state) {
    const double s = parallel_reduce(
        pool, v.size(), 0.0,
        [&](std::size_t b, std::size_t e) {
          double acc = 0;
          for (std::size_t i = b; i < e; ++i) acc += v[i];
          return acc;
        },
        [](double x, double y) { return x + y; });
    benchmark::DoNotOptimize(s);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(v.size()));
}
BENCHMARK(BM_ParallelReduceSum)->ArgName("threads")->Arg(1)->Arg(2)->UseRealTime();

}  // namespace
}  // namespace lightsim
