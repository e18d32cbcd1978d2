// The context study's per-cache work (src/studies/context_study.cpp) on a Qwen2.5-7B-class
// synthetic cache of one layer (4 KV heads, group 7, D = 128), 16K tokens, 8 decode steps:
//   - BM_ExactBlockMass/layouts: the exact-attention oracle (7 query heads' softmax over the
//     context) and its block masses at 1 or 2 block sizes (128, 256) from one pass; items are
//     (head, step) pairs.
//   - BM_PcaFit: the shared PCA projection (d = 32) of the 4 heads; items are heads.
//   - BM_ContextEvaluate/joint: kv::evaluate of the study's two setups (ideal signature,
//     seed_fit Prism) at both block sizes, as two calls (0) or one joint call (1) sharing the
//     PCA fit and the exact attention; items are (block size, head, step) triples.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <vector>

#include "lightsim/core/config.h"
#include "lightsim/kv/attention.h"
#include "lightsim/kv/generator.h"
#include "lightsim/kv/metrics.h"
#include "lightsim/kv/scorer_specs.h"
#include "lightsim/prism/accelerator.h"
#include "lightsim/prism/scorer.h"
#include "shipped_configs.h"

namespace lightsim::studies {
namespace {

const kv::KvCache& cache16k() {
  static const kv::KvCache cache = [] {
    Context ctx(ContextOptions{.seed = 1, .threads = 1});
    kv::KvGeneratorSpec w = config::load_spec<kv::KvGeneratorSpec>(
        std::filesystem::path(LIGHTSIM_SOURCE_DIR) / "configs/kv/qwen2.5-7b.yaml",
        testing::shipped_configs());
    w.tokens = 16384;
    w.steps = 8;
    return kv::generate_kv_cache(w, ctx);
  }();
  return cache;
}

std::vector<kv::BlockOptions> block_sizes(std::size_t n) {
  std::vector<kv::BlockOptions> b(n);
  for (std::size_t i = 0; i < n; ++i) b[i].block_tokens = 128 << i;
  return b;
}

void BM_ExactBlockMass(benchmark::State& state) {
  const kv::KvCache& cache = cache16k();
  const auto g = cache.geometry();
  std::vector<kv::BlockLayout> layouts;
  for (const auto& b : block_sizes(static_cast<std::size_t>(state.range(0))))
    layouts.emplace_back(g.tokens, b);
  std::vector<double> p;
  std::vector<std::vector<double>> masses;
  for (auto _ : state)
    for (std::size_t h = 0; h < g.kv_heads; ++h)
      for (std::size_t s = 0; s < g.steps; ++s) {
        kv::group_block_mass(cache.head(0, h), layouts, s, p, masses);
        benchmark::DoNotOptimize(masses.front().front());
      }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(g.kv_heads * g.steps));
}
BENCHMARK(BM_ExactBlockMass)->ArgName("layouts")->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);

void BM_PcaFit(benchmark::State& state) {
  const kv::KvCache& cache = cache16k();
  Context ctx(ContextOptions{.seed = 1, .threads = 1});
  const kv::ProjectionFitter pca = kv::standard_projection("pca");
  for (auto _ : state) {
    const NpyArray a = kv::fit_head_projections(cache, pca, 32, ctx);
    benchmark::DoNotOptimize(a.values.front());
  }
  state.SetItemsProcessed(state.iterations() *
                          static_cast<std::int64_t>(cache.geometry().kv_heads));
}
BENCHMARK(BM_PcaFit)->Unit(benchmark::kMillisecond);

void BM_ContextEvaluate(benchmark::State& state) {
  const bool joint = state.range(0) != 0;
  const kv::KvCache& cache = cache16k();
  Context ctx(ContextOptions{.seed = 1, .threads = 1});
  // Both setups take the evaluation's shared PCA (d = 32).
  const std::vector<kv::ScorerSetup> setups{
      {"signature_ideal", kv::signature_scorer({.dim = 32})},
      {"prism", prism::prism_scorer(prism::load_accelerator("seed_fit", testing::shipped_configs()),
                                    {.dim = 32})}};
  kv::EvalOptions o;
  o.ks = {8, 32};
  o.shared_projection = kv::SharedProjection{kv::standard_projection("pca"), 32};
  o.reference = 0;
  o.output_error = false;
  const std::vector<kv::BlockOptions> blocks = block_sizes(2);
  for (auto _ : state) {
    if (joint) {
      const auto r = kv::evaluate(cache, setups, o, blocks, ctx);
      benchmark::DoNotOptimize(r.back().scorers.back().per_k.back().recall.mean);
    } else {
      for (const kv::BlockOptions& b : blocks) {
        o.blocks = b;
        const kv::EvalReport r = kv::evaluate(cache, setups, o, ctx);
        benchmark::DoNotOptimize(r.scorers.back().per_k.back().recall.mean);
      }
    }
  }
  const auto g = cache.geometry();
  state.SetItemsProcessed(state.iterations() *
                          static_cast<std::int64_t>(2 * g.layers * g.kv_heads * g.steps));
}
BENCHMARK(BM_ContextEvaluate)->ArgName("joint")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace lightsim::studies
