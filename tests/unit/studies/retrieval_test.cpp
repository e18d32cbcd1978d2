// The retrieval engine of the Prism studies: agreement with kv::evaluate, the projected-space
// oracle, the shared projection and determinism across thread counts.
#include "lightsim/studies/retrieval.h"

#include <filesystem>

#include <gtest/gtest.h>

#include "lightsim/kv/generator.h"
#include "lightsim/prism/scorer.h"
#include "lightsim/studies/impairments.h"
#include "shipped_configs.h"

namespace lightsim::studies {
namespace {

kv::KvCache small_cache(Context& ctx) {
  kv::KvGeneratorSpec g;
  g.model_layers = 2;
  g.layers = {1};
  g.kv_heads = 2;
  g.q_heads = 4;
  g.head_dim = 64;
  g.tokens = 3000;
  g.steps = 3;
  g.key_rank = 8;
  g.needle_depths = {0.2, 0.6};
  g.needle_tokens = 16;
  return kv::generate_kv_cache(g, ctx);
}

// The seed's machine on the feasible TFLN device: d = 32 channels.
prism::AcceleratorSpec seed_fit() {
  return prism::load_accelerator("seed_fit", testing::shipped_configs());
}

RetrievalOptions options(const ScorerCatalog& catalog) {
  RetrievalOptions o;
  o.ks = {4, 8};
  o.blocks.block_tokens = 64;
  o.projections = &catalog.projections;
  o.dim = 8;
  return o;
}

TEST(OverlapFraction, CountsTruthFoundInSelection) {
  const std::vector<std::size_t> truth{3, 4}, sel{1, 2, 3}, all{4, 3}, none{7};
  EXPECT_DOUBLE_EQ(overlap_fraction(sel, truth), 0.5);
  EXPECT_DOUBLE_EQ(overlap_fraction(all, truth), 1.0);
  EXPECT_DOUBLE_EQ(overlap_fraction(none, truth), 0.0);
  EXPECT_THROW((void)overlap_fraction(sel, {}), InternalError);
}

TEST(EvaluateRetrieval, AgreesWithKvEvaluate) {
  Context ctx(ContextOptions{.seed = 3, .threads = 2});
  const kv::KvCache cache = small_cache(ctx);
  const ScorerCatalog catalog;
  std::vector<RetrievalSetup> setups{catalog.setup("sig", "signature", 8),
                                     catalog.setup("mean", "mean_key", 8)};
  RetrievalOptions o = options(catalog);
  o.shared_projection = "";  // each scorer fits its own, as kv::evaluate's do
  const RetrievalReport ours = evaluate_retrieval(cache, setups, o, ctx);

  std::vector<kv::EvalSetup> kv_setups;
  for (const auto& s : setups) kv_setups.push_back({s.name, s.factory, s.options});
  kv::EvalOptions ko;
  ko.ks = o.ks;
  ko.blocks = o.blocks;
  const kv::EvalReport ref = kv::evaluate(cache, kv_setups, ko, ctx);
  ASSERT_EQ(ours.blocks, ref.blocks);
  ASSERT_EQ(ours.candidates, ref.candidates);
  for (std::size_t i = 0; i < setups.size(); ++i)
    for (std::size_t ki = 0; ki < o.ks.size(); ++ki) {
      const RetrievalMetrics& a = ours.setups[i][ki];
      const kv::KMetrics& b = ref.scorers[i].per_k[ki];
      EXPECT_NEAR(a.recall.mean, b.recall.mean, 1e-12);
      EXPECT_NEAR(a.mass_recall.mean, b.mass_recall.mean, 1e-9);
      EXPECT_NEAR(a.fetched_fraction.mean, b.fetched_fraction.mean, 1e-12);
      EXPECT_NEAR(a.needle_hit.mean, b.needle_hit.mean, 1e-12);
      EXPECT_NEAR(a.needle_hit_union.mean, b.needle_hit_union.mean, 1e-12);
      EXPECT_NEAR(a.union_fetched_fraction.mean, b.union_fetched_fraction.mean, 1e-12);
      EXPECT_NEAR(a.traffic_reduction, b.traffic_reduction, 1e-9 * b.traffic_reduction);
      EXPECT_EQ(a.recall_projected.n, 0u);  // no reference given
      ASSERT_EQ(a.needle_hit_by_needle.size(), 2u);
      ASSERT_EQ(a.needle_hit_by_head.size(), 2u);
      // The per-needle and per-head means average back to the overall mean (equal counts).
      EXPECT_NEAR((a.needle_hit_by_needle[0].mean + a.needle_hit_by_needle[1].mean) / 2,
                  a.needle_hit.mean, 1e-12);
      EXPECT_NEAR((a.needle_hit_by_head[0].mean + a.needle_hit_by_head[1].mean) / 2,
                  a.needle_hit.mean, 1e-12);
    }
}

TEST(EvaluateRetrieval, SharedProjectionEqualsPerScorerFit) {
  Context ctx(ContextOptions{.seed = 5, .threads = 2});
  const kv::KvCache cache = small_cache(ctx);
  const ScorerCatalog catalog;
  const std::vector<RetrievalSetup> setups{catalog.setup("sig", "signature", 8)};
  RetrievalOptions own = options(catalog), shared = options(catalog);
  own.shared_projection = "";
  shared.shared_projection = "pca";
  const RetrievalReport a = evaluate_retrieval(cache, setups, own, ctx);
  const RetrievalReport b = evaluate_retrieval(cache, setups, shared, ctx);
  for (std::size_t ki = 0; ki < 2; ++ki)
    EXPECT_DOUBLE_EQ(a.setups[0][ki].recall.mean, b.setups[0][ki].recall.mean);
}

// The projected-space oracle: the reference is its own truth, and a Prism bank with every
// impairment off and 24-bit weights and queries finds exactly the reference's top-k, while
// 2-bit weights do not; the full-attention recall of both is below 1 (the projection's loss).
TEST(EvaluateRetrieval, ProjectedTruthIsolatesHardwareLoss) {
  Context ctx(ContextOptions{.seed = 7, .threads = 2});
  const kv::KvCache cache = small_cache(ctx);
  const ScorerCatalog catalog;
  const prism::AcceleratorSpec acc = seed_fit();
  std::vector<RetrievalSetup> setups{catalog.setup("sig", "signature", 32)};
  for (int bits : {24, 2}) {
    ImpairmentKnobs k;
    if (bits < 8) k.bits = bits;
    RetrievalSetup s = catalog.setup("prism", "prism", 32);
    prism::attach_accelerator(s.options, impaired_accelerator(acc, k, 24));
    setups.push_back(std::move(s));
  }
  RetrievalOptions o = options(catalog);
  o.dim = 32;
  o.reference = 0;
  const RetrievalReport r = evaluate_retrieval(cache, setups, o, ctx);
  for (std::size_t ki = 0; ki < 2; ++ki) {
    EXPECT_DOUBLE_EQ(r.setups[0][ki].recall_projected.mean, 1.0);
    EXPECT_DOUBLE_EQ(r.setups[1][ki].recall_projected.mean, 1.0);
    EXPECT_DOUBLE_EQ(r.setups[1][ki].recall.mean, r.setups[0][ki].recall.mean);
    EXPECT_LT(r.setups[2][ki].recall_projected.mean, 1.0);
    EXPECT_LT(r.setups[0][ki].recall.mean, 1.0);
  }
}

TEST(EvaluateRetrieval, IdenticalForAnyThreadCount) {
  std::vector<double> recalls;
  for (std::size_t threads : {1u, 2u}) {
    Context ctx(ContextOptions{.seed = 11, .threads = threads});
    const kv::KvCache cache = small_cache(ctx);
    const ScorerCatalog catalog;
    const prism::AcceleratorSpec acc = seed_fit();
    ImpairmentKnobs k;
    k.bits = 4;
    k.drift = Length::si(20e-12);
    k.nep = PowerNoiseDensity::si(5e-12);
    std::vector<RetrievalSetup> setups{catalog.setup("sig", "signature", 32),
                                       catalog.setup("prism", "prism", 32)};
    prism::attach_accelerator(setups[1].options, impaired_accelerator(acc, k, 16));
    RetrievalOptions o = options(catalog);
    o.dim = 32;
    o.reference = 0;
    const RetrievalReport r = evaluate_retrieval(cache, setups, o, ctx);
    recalls.push_back(r.setups[1][1].recall_projected.mean);
    recalls.push_back(r.setups[1][1].recall.mean);
  }
  EXPECT_EQ(recalls[0], recalls[2]);
  EXPECT_EQ(recalls[1], recalls[3]);
}

}  // namespace
}  // namespace lightsim::studies
