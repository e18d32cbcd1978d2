// The FAISS IVF-PQ baseline's per-query search cost on a synthetic head (bench/kv), beside
// the signature scorer on the same head, at the operating points of the matched-recall sweep
// (docs/kv-data.md, "FAISS at matched recall"; docs/performance.md, section kv).
#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "lightsim/core/context.h"
#include "lightsim/kv/generator.h"
#include "lightsim/kv/projection.h"
#include "lightsim/kv/scorer.h"
#include "lightsim/kv/scorer_specs.h"

namespace lightsim::kv {
namespace {

// One KV head of the Qwen-like preset defaults (T tokens, 7 query heads, 16 steps), seed 1,
// with a prepared scorer. The head view points into `cache`, so a Prepared never moves.
struct Prepared {
  KvCache cache;
  HeadView head;
  BlockLayout layout;
  std::unique_ptr<Scorer> scorer;
  Prepared(std::size_t tokens, const ScorerMaker& make)
      : cache(one_head(tokens)), head(cache.head(0, 0)), layout(head.tokens, {}) {
    scorer = make();
    scorer->prepare(head, layout, {0, 0, 1});
  }
  static KvCache one_head(std::size_t tokens) {
    KvGeneratorSpec spec;
    spec.model_layers = 1;
    spec.kv_heads = 1;
    spec.q_heads = 7;
    spec.tokens = tokens;
    ContextOptions co;
    co.threads = 1;
    Context ctx(co);
    return generate_kv_cache(spec, ctx);
  }
};

// Google Benchmark calls a benchmark function several times (iteration-count probing, each
// repetition); the index is built on the first call of each operating point and reused, so
// the (slow, untimed) FAISS training runs once per point. Owned by this benchmark program.
Prepared& prepared(const std::string& key, std::size_t tokens, const ScorerMaker& make) {
  static std::map<std::string, std::unique_ptr<Prepared>> built;
  auto& slot = built[key];
  if (!slot) slot = std::make_unique<Prepared>(tokens, make);
  return *slot;
}

// Times scorer->score for one decode step (7 query heads). Items = query heads, so items/s
// inverts to the time per query head. `key` names the operating point (tokens appended).
void time_steps(benchmark::State& state, const std::string& key, const ScorerMaker& make) {
  const auto tokens = static_cast<std::size_t>(state.range(0));
  Prepared& p = prepared(key + "/" + std::to_string(tokens), tokens, make);
  std::vector<float> scores(p.layout.blocks());
  std::size_t step = 0;
  for (auto _ : state) {
    p.scorer->score(step++ % p.head.steps, scores);
    benchmark::DoNotOptimize(scores.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(p.head.group));
}

// Args: tokens, nprobe, retrieve (tokens per query head). nlist, m = 16, 8 bits as the CLI
// defaults. The scorer runs FAISS on the calling thread only (faiss_scorer.cpp).
void BM_FaissIvfPqStep(benchmark::State& state) {
  FaissIvfPqScorerSpec o;
  o.nprobe = state.range(1);
  o.retrieve = state.range(2);
  time_steps(state, "faiss/" + std::to_string(o.nprobe) + "/" + std::to_string(o.retrieve),
             faiss_ivfpq_scorer(o));
}
// 8K: nprobe 8 matches the PCA signature's Recall@8 and nprobe 32 its Recall@32 on the 8K
// preset cache (210 lists); 16 is the CLI default. 32K: the default point.
BENCHMARK(BM_FaissIvfPqStep)
    ->Args({8192, 8, 256})
    ->Args({8192, 16, 256})
    ->Args({8192, 32, 256})
    ->Args({32768, 16, 256})
    ->Unit(benchmark::kMicrosecond);

// The signature scorer (PCA, d = 32) on the same head: sum of the group's queries, projection
// to d, and the blocked scoring kernel (no top-k; FAISS's figure has none either).
void BM_SignatureScorerStep(benchmark::State& state) {
  time_steps(state, "signature", signature_scorer({.dim = 32, .fit = standard_projection("pca")}));
}
BENCHMARK(BM_SignatureScorerStep)->Arg(8192)->Arg(32768)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace lightsim::kv
