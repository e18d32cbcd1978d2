// The generator's layer-structure and query-head knobs (early_layers, early_*_fraction,
// retrieval_group_share): off by default, and each changes only the head mix it names.
#include <gtest/gtest.h>

#include "kv_test_util.h"
#include "lightsim/kv/calibration.h"

namespace lightsim::kv {
namespace {

KvCache layers_generate(const KvGeneratorSpec& spec) {
  ContextOptions o;
  o.seed = 5;
  o.threads = 2;
  Context ctx(o);
  return generate_kv_cache(spec, ctx);
}

TEST(KvGeneratorLayers, EarlyLayersWithTheBodyMixChangeNothing) {
  KvGeneratorSpec spec = testing::tiny_spec();
  const KvCache plain = layers_generate(spec);
  spec.early_layers = 2;
  spec.early_retrieval_fraction = spec.retrieval_fraction;
  spec.early_streaming_fraction = spec.streaming_fraction;
  const KvCache same = layers_generate(spec);
  EXPECT_EQ(plain.key_data(), same.key_data());
  EXPECT_EQ(plain.value_data(), same.value_data());
  EXPECT_EQ(plain.query_data(), same.query_data());
  spec.early_streaming_fraction = 1.0;  // a different early mix moves layer 0 and 1 only
  spec.early_retrieval_fraction = 0.0;
  spec.early_layers = 1;
  const KvCache moved = layers_generate(spec);
  EXPECT_NE(plain.query_data(), moved.query_data());
  const HeadView a = plain.head(1, 0), b = moved.head(1, 0);
  EXPECT_TRUE(std::equal(a.queries, a.queries + a.group * a.steps * a.head_dim, b.queries));
}

// tiny_spec with the preset's sink logits and enough dimensions and steps for the head types
// to show in the calibration statistics.
KvGeneratorSpec small_spec() {
  KvGeneratorSpec s = testing::tiny_spec();
  s.tokens = 2048;
  s.steps = 16;
  s.head_dim = 64;
  s.key_rank = 16;
  s.q_heads = 8;  // groups of 4
  s.sink_logit = 10;
  s.sink_logit_streaming = 13;
  s.rope_base = 1e6;  // the preset's RoPE and latent placement
  s.semantic_wavelength = 4194304;
  s.outlier_pairs = 4;
  return s;
}

TEST(KvGeneratorLayers, EarlyLayersTakeTheirOwnHeadMix) {
  // Early layer 0 with mix (retrieval 0, streaming 1) and body layer 1 with mix (1, 0) are
  // bit for bit the layers of caches generated with those mixes everywhere.
  KvGeneratorSpec layered = small_spec();
  layered.retrieval_fraction = 1.0;
  layered.streaming_fraction = 0.0;
  layered.early_layers = 1;
  layered.early_retrieval_fraction = 0.0;
  layered.early_streaming_fraction = 1.0;
  KvGeneratorSpec streaming = small_spec();
  streaming.retrieval_fraction = 0.0;
  streaming.streaming_fraction = 1.0;
  KvGeneratorSpec retrieval = small_spec();
  retrieval.retrieval_fraction = 1.0;
  retrieval.streaming_fraction = 0.0;
  const KvCache c = layers_generate(layered), s = layers_generate(streaming),
                r = layers_generate(retrieval);
  auto same = [](const HeadView& a, const HeadView& b) {
    return std::equal(a.queries, a.queries + a.group * a.steps * a.head_dim, b.queries) &&
           std::equal(a.keys, a.keys + a.tokens * a.head_dim, b.keys);
  };
  for (std::size_t h = 0; h < 2; ++h) {
    EXPECT_TRUE(same(c.head(0, h), s.head(0, h))) << h;
    EXPECT_TRUE(same(c.head(1, h), r.head(1, h))) << h;
    EXPECT_FALSE(same(c.head(0, h), r.head(0, h))) << h;
  }
}

TEST(KvGeneratorLayers, GroupShareSetsHowManyQueryHeadsRetrieve) {
  KvGeneratorSpec spec = small_spec();  // groups of 4 query heads
  spec.retrieval_fraction = 1.0;
  spec.streaming_fraction = 0.0;
  spec.layers = {1};
  Context ctx;
  const double all = retrieval_head_fraction(layers_generate(spec), false, 2, {}, ctx).mean;
  spec.retrieval_group_share = 0.5;  // two of the four
  const double half = retrieval_head_fraction(layers_generate(spec), false, 2, {}, ctx).mean;
  spec.retrieval_group_share = 0.0;
  const double none = retrieval_head_fraction(layers_generate(spec), false, 2, {}, ctx).mean;
  EXPECT_GE(all, 0.75);
  EXPECT_NEAR(half, 0.5, 0.125 + 1e-12);
  EXPECT_LE(none, 0.125);
  EXPECT_GT(all, half);
  EXPECT_GT(half, none);
}

}  // namespace
}  // namespace lightsim::kv
