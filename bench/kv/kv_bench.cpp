// bench/kv: KV generation and block scoring (docs/performance.md, section kv).
#include <benchmark/benchmark.h>

#include <vector>

#include "bench_setup.h"
#include "lightsim/kv/attention.h"
#include "lightsim/kv/kernels.h"
#include "roofline.h"

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
  lightsim::bench::RooflineTimer timer;
  for (auto _ : state) {
    const float* q = queries.data() + (i++ % 64) * dim;
    score_signatures_blocked(packed, q, scores.data());
    top_k_indices(scores, k, scratch, top.data());
    benchmark::DoNotOptimize(top.data());
  }
  state.SetItemsProcessed(state.iterations());
  // 2 N d flops (multiply and add); the fp32 signatures read once, the scores written and read
  // back by the top-k. Working set: signatures + scores.
  const auto n = static_cast<double>(blocks), nd = n * static_cast<double>(dim);
  timer.report(state, 2.0 * nd, 4.0 * nd + 8.0 * n, (blocks * dim + blocks) * sizeof(float));
}
BENCHMARK(BM_SignatureScoreTopK)->Arg(256)->Arg(1024)->Arg(8192)->Arg(65536);

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
  lightsim::bench::RooflineTimer timer;
  for (auto _ : state) {
    score_signatures_blocked(packed, q.data(), scores.data());
    benchmark::DoNotOptimize(scores.data());
  }
  const double nd = static_cast<double>(blocks * dim);
  timer.report(state, 2.0 * nd, 4.0 * nd + 4.0 * static_cast<double>(blocks),
               (blocks * dim + blocks) * sizeof(float));
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

// Top-32 of 1024 scores alone, `inputs` different score vectors cycling (64: 256 KB, in L2,
// as before; 2048: 8 MB, the fresh-query case). A branch predictor learns the outcomes of a
// branchy selection repeated over few inputs (docs/performance.md, "Kernels on the Intel VM"),
// so the time of BM_TopKReference, the previous implementation (nth_element threshold,
// std::partial_sort of the candidates; same indices), depends on `inputs` (also 1 and 8 here).
template <bool kReference>
void top_k_inputs(benchmark::State& state) {
  const std::size_t blocks = 1024, k = 32, inputs = static_cast<std::size_t>(state.range(0));
  std::vector<float> scores(blocks * inputs);
  std::vector<std::uint32_t> top(k);
  TopKScratch scratch;
  RandomStream rng(1, {2});
  rng.fill_normal(std::span<float>(scores));
  std::size_t i = 0;
  for (auto _ : state) {
    const auto s = std::span<const float>(scores).subspan((i++ % inputs) * blocks, blocks);
    if constexpr (kReference)
      detail::top_k_indices_partial_sort(s, k, scratch, top.data());
    else
      top_k_indices(s, k, scratch, top.data());
    benchmark::DoNotOptimize(top.data());
  }
}
void BM_TopKOnly(benchmark::State& state) {
  top_k_inputs<false>(state);
}
void BM_TopKReference(benchmark::State& state) {
  top_k_inputs<true>(state);
}
BENCHMARK(BM_TopKOnly)->Arg(64)->Arg(2048);
BENCHMARK(BM_TopKReference)->Arg(1)->Arg(8)->Arg(64)->Arg(2048);

// The exact-attention reference (the oracle behind every recall): softmax weights of one query
// head over `tokens` tokens at D = 128 (logits in double, kv::attention_weights). Per token 2 D
// flops for the logit (the exp and the normalisation not counted), its D fp32 key read and its
// weight written and normalised in place (16 bytes). Keys are Gaussian; the cost does not
// depend on the values.
void BM_ExactAttention(benchmark::State& state) {
  const auto tokens = static_cast<std::size_t>(state.range(0));
  const std::size_t dim = 128;
  std::vector<float> keys(tokens * dim), values(tokens * dim), queries(dim);
  RandomStream rng(1, {4});
  rng.fill_normal(std::span<float>(keys));
  rng.fill_normal(std::span<float>(queries));
  HeadView head;
  head.tokens = tokens;
  head.head_dim = dim;
  head.group = 1;
  head.steps = 1;
  head.keys = keys.data();
  head.values = values.data();
  head.queries = queries.data();
  std::vector<double> p;
  lightsim::bench::RooflineTimer timer;
  for (auto _ : state) {
    attention_weights(head, 0, 0, p);
    benchmark::DoNotOptimize(p.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(tokens));
  const double t = static_cast<double>(tokens);
  timer.report(state, 2.0 * t * static_cast<double>(dim),
               t * (4.0 * static_cast<double>(dim) + 16.0), tokens * (dim * sizeof(float) + 8));
}
BENCHMARK(BM_ExactAttention)->Arg(16384)->Arg(131072)->Unit(benchmark::kMicrosecond);

// The probes themselves, so their figures stand in the same run: triad at working sets from L1
// to DRAM (bytes in all), and the FMA peak.
void BM_RooflineTriad(benchmark::State& state) {
  const auto ws = static_cast<std::size_t>(state.range(0));
  double bw = 0.0;
  for (auto _ : state) bw = lightsim::bench::triad_bandwidth(ws);
  state.counters["triad_GB/s"] = bw * 1e-9;
}
BENCHMARK(BM_RooflineTriad)
    ->ArgName("bytes")
    ->Arg(48 << 10)
    ->Arg(128 << 10)
    ->Arg(1 << 20)
    ->Arg(8 << 20)
    ->Arg(256 << 20)
    ->Iterations(1);

void BM_RooflineFma(benchmark::State& state) {
  double peak = 0.0;
  for (auto _ : state) peak = lightsim::bench::fma_peak();
  state.counters["peak_Gflop/s"] = peak * 1e-9;
}
BENCHMARK(BM_RooflineFma)->Iterations(1);

}  // namespace
}  // namespace lightsim::kv

BENCHMARK_MAIN();
