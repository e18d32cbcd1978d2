#include <gtest/gtest.h>

#include <cmath>

#include "kv_test_util.h"
#include "lightsim/core/error.h"
#include "lightsim/kv/attention.h"

namespace lightsim::kv {
namespace {

KvCache generate(const KvGeneratorSpec& spec, std::size_t threads, std::uint64_t seed = 11) {
  ContextOptions o;
  o.seed = seed;
  o.threads = threads;
  Context ctx(o);
  return generate_kv_cache(spec, ctx);
}

TEST(KvGenerator, BitIdenticalAcrossThreadCounts) {
  KvGeneratorSpec spec = testing::tiny_spec();
  for (bool exact_sink : {false, true}) {
    spec.sink_logit_exact = exact_sink;
    const KvCache a = generate(spec, 1), b = generate(spec, 2), c = generate(spec, 3);
    EXPECT_EQ(a.key_data(), b.key_data());
    EXPECT_EQ(a.value_data(), b.value_data());
    EXPECT_EQ(a.query_data(), b.query_data());
    EXPECT_EQ(a.key_data(), c.key_data());
    EXPECT_EQ(a.query_data(), c.query_data());
    EXPECT_NE(a.key_data(), generate(spec, 1, 12).key_data());
  }
}

TEST(KvGenerator, LayerSubsetMatchesFullGeneration) {
  KvGeneratorSpec spec = testing::tiny_spec();
  const KvCache full = generate(spec, 2);
  spec.layers = {1};
  const KvCache one = generate(spec, 2);
  ASSERT_EQ(one.geometry().layers, 1u);
  EXPECT_EQ(one.layer_ids, std::vector<std::size_t>{1});
  const HeadView a = full.head(1, 1), b = one.head(0, 1);
  EXPECT_TRUE(std::equal(a.keys, a.keys + a.tokens * a.head_dim, b.keys));
}

TEST(KvGenerator, NeedlesSitAtTheirDepths) {
  const KvCache c = generate(testing::tiny_spec(), 1);
  ASSERT_EQ(c.needles.size(), 3u);
  EXPECT_EQ(c.needles[0].begin, static_cast<std::size_t>(std::floor(0.1 * (512 - 8))));
  EXPECT_EQ(c.needles[1].end - c.needles[1].begin, 8u);
}

TEST(KvGenerator, RopeIsAnIsometryAndInvertible) {
  std::vector<float> x(16), y;
  RandomStream rng(1, {2});
  rng.fill_normal(std::span<float>(x));
  y = x;
  apply_rope(y.data(), 16, 12345.0, 1e4);
  double nx = 0, ny = 0;
  for (std::size_t i = 0; i < 16; ++i) {
    nx += x[i] * x[i];
    ny += y[i] * y[i];
  }
  EXPECT_NEAR(nx, ny, 1e-4 * nx);
  apply_rope(y.data(), 16, 12345.0, 1e4, true);
  for (std::size_t i = 0; i < 16; ++i) EXPECT_NEAR(y[i], x[i], 1e-4);
  // Position 0 is the identity; pair 0 rotates by exactly pos radians.
  std::vector<float> e(16, 0.0f);
  e[0] = 1;
  apply_rope(e.data(), 16, 0.5, 1e4);
  EXPECT_NEAR(e[0], std::cos(0.5), 1e-6);
  EXPECT_NEAR(e[8], std::sin(0.5), 1e-6);
}

TEST(KvGenerator, SinkDominatesStreamingHeads) {
  // With every head streaming, token 0 holds a large share of attention (StreamingLLM).
  KvGeneratorSpec spec = testing::tiny_spec();
  spec.retrieval_fraction = 0;
  spec.streaming_fraction = 1;
  spec.sink_logit_streaming = 8;
  const KvCache c = generate(spec, 2);
  std::vector<double> p;
  double sink = 0;
  for (std::size_t s = 0; s < 4; ++s) {
    attention_weights(c.head(0, 0), 0, s, p);
    sink += p[0] / 4;
  }
  EXPECT_GT(sink, 0.2);
}

// What token 0's sink vector adds to each query's logit (nats), for every query of every head:
// the cache with sink logits `sink` minus the same cache with sink logits 0 (the sink vector
// takes no random draw, so the two differ in that vector alone).
std::vector<double> sink_excess(KvGeneratorSpec spec, double sink) {
  spec.sink_logit = spec.sink_logit_streaming = sink;
  const KvCache with = generate(spec, 2);
  spec.sink_logit = spec.sink_logit_streaming = 0;
  const KvCache without = generate(spec, 2);
  const KvGeometry& g = with.geometry();
  std::vector<double> excess;
  for (std::size_t l = 0; l < g.layers; ++l)
    for (std::size_t h = 0; h < g.kv_heads; ++h) {
      const HeadView a = with.head(l, h), b = without.head(l, h);
      for (std::size_t gq = 0; gq < a.group; ++gq)
        for (std::size_t s = 0; s < a.steps; ++s) {
          double da = 0, db = 0;
          for (std::size_t d = 0; d < a.head_dim; ++d) {
            da += static_cast<double>(a.query(gq, s)[d]) * a.key(0)[d];
            db += static_cast<double>(b.query(gq, s)[d]) * b.key(0)[d];
          }
          excess.push_back((da - db) / std::sqrt(static_cast<double>(a.head_dim)));
        }
    }
  return excess;
}

TEST(KvGenerator, ExactSinkLogitIsTheSameForEveryQueryAndContext) {
  // Streaming heads at the presets' RoPE placement, whose latent target is the latest token
  // (redrawn for every context length): with sink_logit_exact every query scores the sink
  // vector its sink logit (up to the anchor pairs' RoPE rotation, < 0.1% here); the raw draw
  // adds a content term of several nats that moves with the query and with T.
  KvGeneratorSpec spec = testing::tiny_spec();
  spec.head_dim = 64;
  spec.key_rank = 16;
  spec.outlier_pairs = 4;
  spec.rope_base = 1e6;
  spec.semantic_wavelength = 4194304;
  spec.retrieval_fraction = 0;
  spec.streaming_fraction = 1;
  constexpr double kSink = 12;
  for (std::int64_t tokens : {1024, 2048}) {
    spec.tokens = tokens;
    spec.sink_logit_exact = true;
    for (double e : sink_excess(spec, kSink)) EXPECT_NEAR(e, kSink, 0.01 * kSink) << tokens;
    spec.sink_logit_exact = false;
    double worst = 0;
    for (double e : sink_excess(spec, kSink)) worst = std::max(worst, std::abs(e - kSink));
    EXPECT_GT(worst, 2.0) << tokens;  // the term the exact draw removes
  }
}

}  // namespace
}  // namespace lightsim::kv
