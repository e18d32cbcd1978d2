// Monte-Carlo throughput of the impairments study: decode queries per second through the full
// chain (prepare each head's banks, exact-attention oracle, Prism scoring, top-k, metrics) on
// a Qwen2.5-7B-class synthetic cache of one layer (4 KV heads, group 7), 16K tokens
// (128 blocks of 128), 16 decode steps, one ideal signature reference plus `points` Prism
// setups at the combined impairment point (4-bit, 40 pm drift, -20 dB crosstalk, noise on).
// Items = (Prism setups) x heads x steps: one item is one impaired query scored and judged.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <vector>

#include "lightsim/core/config.h"
#include "lightsim/kv/generator.h"
#include "lightsim/kv/metrics.h"
#include "lightsim/kv/scorer_specs.h"
#include "lightsim/prism/accelerator.h"
#include "lightsim/prism/scorer.h"
#include "lightsim/studies/impairments.h"
#include "shipped_configs.h"

namespace lightsim::studies {
namespace {

void BM_ImpairmentsChain(benchmark::State& state) {
  const auto points = static_cast<std::size_t>(state.range(0));
  Context ctx(ContextOptions{.seed = 1, .threads = 1});
  kv::KvGeneratorSpec w = config::load_spec<kv::KvGeneratorSpec>(
      std::filesystem::path(LIGHTSIM_SOURCE_DIR) / "configs/kv/qwen2.5-7b.yaml",
      testing::shipped_configs());
  w.tokens = 16384;
  const kv::KvCache cache = kv::generate_kv_cache(w, ctx);
  const prism::AcceleratorSpec acc =
      prism::load_accelerator("seed_fit", testing::shipped_configs());
  // Every setup takes the evaluation's shared PCA (d = 32).
  std::vector<kv::ScorerSetup> setups{{"ideal", kv::signature_scorer({.dim = 32})}};
  const ImpairmentKnobs knobs{
      4, Length::si(40e-12), Decibel::si(-20), PowerNoiseDensity::si(5e-12), Decibel::si(0.2), {}};
  for (std::size_t i = 0; i < points; ++i)
    setups.push_back(
        {"prism", prism::prism_scorer(impaired_accelerator(acc, knobs, 16), {.dim = 32})});
  kv::EvalOptions o;
  o.ks = {8, 32};
  o.shared_projection = kv::SharedProjection{kv::standard_projection("pca"), 32};
  o.reference = 0;
  o.output_error = false;
  for (auto _ : state) {
    const kv::EvalReport r = kv::evaluate(cache, setups, o, ctx);
    benchmark::DoNotOptimize(r.scorers.back().per_k.back().recall.mean);
  }
  const auto g = cache.geometry();
  state.SetItemsProcessed(state.iterations() *
                          static_cast<std::int64_t>(points * g.layers * g.kv_heads * g.steps));
}
BENCHMARK(BM_ImpairmentsChain)->Arg(1)->Arg(16)->Arg(64)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace lightsim::studies
