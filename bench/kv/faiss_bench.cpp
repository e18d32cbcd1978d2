// The FAISS IVF-PQ baseline's per-query search cost on a synthetic head (bench/kv).
#include <benchmark/benchmark.h>

#include <memory>
#include <vector>

#include "lightsim/core/context.h"
#include "lightsim/kv/generator.h"
#include "lightsim/kv/scorer.h"

namespace lightsim::kv {
namespace {

// One KV head of the Qwen-like preset (T tokens, 7 query heads, 16 steps); index built once
// (not timed); each iteration scores one decode step = 7 query-head searches (nprobe 16,
// 256 tokens retrieved each) plus the block aggregation. Items = query heads.
void BM_FaissIvfPqStep(benchmark::State& state) {
  KvGeneratorSpec spec;
  spec.model_layers = 1;
  spec.kv_heads = 1;
  spec.q_heads = 7;
  spec.tokens = state.range(0);
  ContextOptions co;
  co.threads = 1;
  Context ctx(co);
  const KvCache cache = generate_kv_cache(spec, ctx);
  const HeadView head = cache.head(0, 0);
  const BlockLayout layout(head.tokens, {});
  ScorerFamily family("kv_scorer", "");
  register_scorers(family);
  std::unique_ptr<Scorer> scorer = family.get("faiss_ivfpq")(ScorerOptions{});
  scorer->prepare(head, layout, {0, 0, 1});
  std::vector<float> scores(layout.blocks());
  std::size_t step = 0;
  for (auto _ : state) {
    scorer->score(step++ % head.steps, scores);
    benchmark::DoNotOptimize(scores.data());
  }
  state.SetItemsProcessed(state.iterations() * 7);
}
BENCHMARK(BM_FaissIvfPqStep)->Arg(32768)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace lightsim::kv
