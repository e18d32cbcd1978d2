// The retrieval engine (kv::evaluate) with the studies' Prism setups: the projected-space
// truth isolates the hardware loss, and results do not depend on the thread count.
#include <gtest/gtest.h>

#include "lightsim/kv/generator.h"
#include "lightsim/kv/metrics.h"
#include "lightsim/kv/scorer_specs.h"
#include "lightsim/prism/scorer.h"
#include "lightsim/studies/impairments.h"
#include "shipped_configs.h"
#include "small_kv_cache.h"

namespace lightsim::studies {
namespace {

// The seed's machine on the feasible TFLN device: d = 32 channels.
prism::AcceleratorSpec retrieval_seed_fit() {
  return prism::load_accelerator("seed_fit", testing::shipped_configs());
}

// ks {4, 8}, 64-token blocks, PCA (d = 32) fitted once per head and shared, setup 0 the truth.
kv::EvalOptions options() {
  kv::EvalOptions o;
  o.ks = {4, 8};
  o.blocks.block_tokens = 64;
  o.shared_projection = kv::SharedProjection{kv::standard_projection("pca"), 32};
  o.reference = 0;
  o.output_error = false;
  return o;
}

kv::ScorerSetup prism_setup(const prism::AcceleratorSpec& a) {
  return {"prism", prism::prism_scorer(a, kv::ProjectionSource{.dim = 32})};
}

// A Prism bank with every impairment off and 24-bit weights and queries finds exactly the
// reference's top-k, while 2-bit weights do not; the full-attention recall of both is below 1
// (the projection's loss).
TEST(PrismRetrieval, ProjectedTruthIsolatesHardwareLoss) {
  Context ctx(ContextOptions{.seed = 7, .threads = 2});
  const kv::KvCache cache = test::small_kv_cache(ctx);
  const prism::AcceleratorSpec acc = retrieval_seed_fit();
  std::vector<kv::ScorerSetup> setups{
      {"sig", kv::signature_scorer(kv::ProjectionSource{.dim = 32})}};
  for (int bits : {24, 2}) {
    ImpairmentKnobs k;
    if (bits < 8) k.bits = bits;
    setups.push_back(prism_setup(impaired_accelerator(acc, k, 24)));
  }
  const kv::EvalReport r = kv::evaluate(cache, setups, options(), ctx);
  for (std::size_t ki = 0; ki < 2; ++ki) {
    EXPECT_DOUBLE_EQ(r.scorers[0].per_k[ki].recall_projected.mean, 1.0);
    EXPECT_DOUBLE_EQ(r.scorers[1].per_k[ki].recall_projected.mean, 1.0);
    EXPECT_DOUBLE_EQ(r.scorers[1].per_k[ki].recall.mean, r.scorers[0].per_k[ki].recall.mean);
    EXPECT_LT(r.scorers[2].per_k[ki].recall_projected.mean, 1.0);
    EXPECT_LT(r.scorers[0].per_k[ki].recall.mean, 1.0);
  }
}

TEST(PrismRetrieval, IdenticalForAnyThreadCount) {
  std::vector<double> recalls;
  for (std::size_t threads : {1u, 2u}) {
    Context ctx(ContextOptions{.seed = 11, .threads = threads});
    const kv::KvCache cache = test::small_kv_cache(ctx);
    ImpairmentKnobs k;
    k.bits = 4;
    k.drift = Length::si(20e-12);
    k.nep = PowerNoiseDensity::si(5e-12);
    const std::vector<kv::ScorerSetup> setups{
        {"sig", kv::signature_scorer(kv::ProjectionSource{.dim = 32})},
        prism_setup(impaired_accelerator(retrieval_seed_fit(), k, 16))};
    const kv::EvalReport r = kv::evaluate(cache, setups, options(), ctx);
    recalls.push_back(r.scorers[1].per_k[1].recall_projected.mean);
    recalls.push_back(r.scorers[1].per_k[1].recall.mean);
  }
  EXPECT_EQ(recalls[0], recalls[2]);
  EXPECT_EQ(recalls[1], recalls[3]);
}

// A Prism accelerator of d channels refuses a projection of another dimension.
TEST(PrismRetrieval, PrismNeedsTheAcceleratorsDimension) {
  EXPECT_THROW((void)prism::prism_scorer(retrieval_seed_fit(), kv::ProjectionSource{.dim = 16}),
               InputError);
}

}  // namespace
}  // namespace lightsim::studies
