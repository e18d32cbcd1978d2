// bench/kv: KV generation and block scoring (docs/performance.md, section kv).
#include <benchmark/benchmark.h>

#include <vector>

#include "bench_setup.h"
#include "lightsim/kv/kernels.h"

namespace lightsim::kv {
namespace {

// Generating a 128K-token cache for one KV head (Qwen2.5-7B geometry: D = 128, 7 query heads
// per KV head, 16 decode steps), one thread.
void BM_GenerateHead128K(benchmark::State& state) {
  const KvGeneratorSpec spec = bench::one_layer(1, 7, 131072);
  Context ctx(bench::one_thread());
  for (auto _ : state) benchmark::DoNotOptimize(generate_kv_cache(spec, ctx).key_data().data());
  state.SetItemsProcessed(state.iterations() * spec.tokens);
}
BENCHMARK(BM_GenerateHead128K)->Unit(benchmark::kMillisecond)->Iterations(2);

// Scoring N block signatures at d = 32 plus top-32 selection, per query (the Prism workload:
// 1024 blocks = 128K tokens / 128), signatures in the blocked layout the signature scorer
// uses (kernels.h). Target: <= 2 us per query on one core. 64 different queries cycle.
void BM_SignatureScoreTopK(benchmark::State& state) {
  const auto blocks = static_cast<std::size_t>(state.range(0));
  const std::size_t dim = 32, k = 32;
  std::vector<float> sig(blocks * dim), queries(64 * dim), scores(blocks);
  std::vector<std::uint32_t> top(k);
  BlockedSignatures packed;
  TopKScratch scratch;
  RandomStream rng(1, {1});
  rng.fill_normal(std::span<float>(sig));
  rng.fill_normal(std::span<float>(queries));
  pack_signatures(sig.data(), blocks, dim, packed);
  std::size_t i = 0;
  for (auto _ : state) {
    const float* q = queries.data() + (i++ % 64) * dim;
    score_signatures_blocked(packed, q, scores.data());
    top_k_indices(scores, k, scratch, top.data());
    benchmark::DoNotOptimize(top.data());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_SignatureScoreTopK)->Arg(256)->Arg(1024)->Arg(8192);

// The halves of the above at 1024 blocks: scoring alone (blocked layout, and the older
// [d, blocks] layout for comparison), top-32 alone.
void BM_SignatureScoreOnly(benchmark::State& state) {
  const std::size_t blocks = 1024, dim = 32;
  std::vector<float> sig(blocks * dim), q(dim), scores(blocks);
  BlockedSignatures packed;
  RandomStream rng(1, {1});
  rng.fill_normal(std::span<float>(sig));
  rng.fill_normal(std::span<float>(q));
  pack_signatures(sig.data(), blocks, dim, packed);
  for (auto _ : state) {
    score_signatures_blocked(packed, q.data(), scores.data());
    benchmark::DoNotOptimize(scores.data());
  }
}
BENCHMARK(BM_SignatureScoreOnly);

void BM_SignatureScoreTransposedOnly(benchmark::State& state) {
  const std::size_t blocks = 1024, dim = 32;
  std::vector<float> sig(blocks * dim), q(dim), scores(blocks);
  RandomStream rng(1, {1});
  rng.fill_normal(std::span<float>(sig));
  rng.fill_normal(std::span<float>(q));
  for (auto _ : state) {
    score_signatures(sig.data(), q.data(), blocks, dim, scores.data());
    benchmark::DoNotOptimize(scores.data());
  }
}
BENCHMARK(BM_SignatureScoreTransposedOnly);

void BM_TopKOnly(benchmark::State& state) {
  const std::size_t blocks = 1024, k = 32;
  std::vector<float> scores(blocks * 64);
  std::vector<std::uint32_t> top(k);
  TopKScratch scratch;
  RandomStream rng(1, {2});
  rng.fill_normal(std::span<float>(scores));
  std::size_t i = 0;
  for (auto _ : state) {
    top_k_indices(std::span<const float>(scores).subspan((i++ % 64) * blocks, blocks), k, scratch,
                  top.data());
    benchmark::DoNotOptimize(top.data());
  }
}
BENCHMARK(BM_TopKOnly);

}  // namespace
}  // namespace lightsim::kv

BENCHMARK_MAIN();
