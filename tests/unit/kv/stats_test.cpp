// Each calibration statistic on a constructed case with a known answer.
#include <gtest/gtest.h>

#include <cmath>

#include "kv_test_util.h"
#include "lightsim/core/json.h"
#include "lightsim/kv/stats.h"

namespace lightsim::kv {
namespace {

TEST(KvStats, RankForVarianceOfKnownSpectrum) {
  // Channels 0..3 carry independent +-a_c with variances 8, 4, 2, 1 (the rest zero):
  // 90% of 15 = 13.5 needs 8 + 4 + 2 = 14 -> rank 3; 50% needs rank 1.
  const std::size_t rows = 16, dim = 8;
  std::vector<float> x(rows * dim, 0.0f);
  const double var[4] = {8, 4, 2, 1};
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < 4; ++c)
      x[r * dim + c] = static_cast<float>(((r >> c) & 1 ? 1 : -1) * std::sqrt(var[c]));
  EXPECT_EQ(rank_for_variance(x.data(), rows, dim, 0.9), 3u);
  EXPECT_EQ(rank_for_variance(x.data(), rows, dim, 0.5), 1u);
  EXPECT_EQ(rank_for_variance(x.data(), rows, dim, 1.0), 4u);
  std::vector<float> constant(rows * dim, 3.0f);  // a shared offset has no variance
  EXPECT_EQ(rank_for_variance(constant.data(), rows, dim, 0.9), 0u);
}

TEST(KvStats, KurtosisOfKnownDistributions) {
  // Channel 0: symmetric two-point (kurtosis 1); channel 1: one spike in n (kurtosis ~ n - 2
  // for large n: exactly (1 - 3p + 3p^2) / (p (1 - p)) with p = 1/n); channel 2: constant.
  const std::size_t n = 100;
  std::vector<float> x(n * 3, 0.0f);
  for (std::size_t r = 0; r < n; ++r) {
    x[r * 3] = r % 2 ? 1.0f : -1.0f;
    x[r * 3 + 1] = r == 0 ? 1.0f : 0.0f;
    x[r * 3 + 2] = 5.0f;
  }
  const auto k = channel_kurtosis(x.data(), n, 3);
  const double p = 1.0 / n;
  EXPECT_NEAR(k[0], 1.0, 1e-12);
  EXPECT_NEAR(k[1], (1 - 3 * p + 3 * p * p) / (p * (1 - p)), 1e-9);
  EXPECT_EQ(k[2], 0.0);
}

TEST(KvStats, OutlierChannelsAreTheLargeOnes) {
  const KvCache c = testing::random_cache({1, 1, 1, 16, 400, 1}, 2);
  std::vector<float> x = c.key_data();
  for (std::size_t r = 0; r < 400; ++r) {
    x[r * 16 + 7] *= 10;
    x[r * 16 + 15] += 12;
  }
  EXPECT_EQ(outlier_channels(x.data(), 400, 16, 4.0), (std::vector<std::size_t>{7, 15}));
  EXPECT_TRUE(outlier_channels(c.key_data().data(), 400, 16, 4.0).empty());
}

TEST(KvStats, TokensForMass) {
  const std::vector<double> uniform(100, 0.01);
  EXPECT_EQ(tokens_for_mass(uniform, 0.9), 90u);
  const std::vector<double> peaked{0.02, 0.9, 0.05, 0.03};
  EXPECT_EQ(tokens_for_mass(peaked, 0.9), 1u);
  EXPECT_EQ(tokens_for_mass(peaked, 0.95), 2u);
}

TEST(KvStats, AdjacentCosine) {
  // Rows alternate between two orthogonal unit vectors: cosine 0; identical rows: 1.
  std::vector<float> alt{1, 0, 0, 1, 1, 0, 0, 1};
  EXPECT_NEAR(adjacent_cosine(alt.data(), 4, 2, false), 0.0, 1e-12);
  std::vector<float> same{1, 2, 1, 2, 1, 2};
  EXPECT_NEAR(adjacent_cosine(same.data(), 3, 2, false), 1.0, 1e-12);
  // Offset + alternating sign: uncentered cosine high, centered cosine -1.
  std::vector<float> off{10, 1, 10, -1, 10, 1, 10, -1};
  EXPECT_GT(adjacent_cosine(off.data(), 4, 2, false), 0.97);
  EXPECT_NEAR(adjacent_cosine(off.data(), 4, 2, true), -1.0, 1e-12);
}

TEST(KvStats, SinkRecentAndAnglesOnAConstructedHead) {
  // D = 2, T = 10. All keys zero except token 0 = (s, 0); the query (1, 0). The softmax gives
  // token 0 weight e^{s/sqrt2} / (e^{s/sqrt2} + 9).
  KvCache c({1, 1, 1, 2, 10, 1});
  c.rope_base = 0;  // no pre-RoPE figure
  const double s = 4.0;
  c.keys(0, 0)[0] = static_cast<float>(s);
  for (std::size_t t = 1; t < 10; ++t) c.keys(0, 0)[2 * t + 1] = 1e-3f;  // nonzero, tiny logits
  c.queries(0, 0)[0] = 1.0f;
  Context ctx;
  StatsOptions o;
  o.recent_tokens = 3;
  const StatsReport r = calibration_report(c, o, ctx);
  ASSERT_EQ(r.heads.size(), 1u);
  const double e = std::exp(s / std::sqrt(2.0));
  EXPECT_NEAR(r.heads[0].sink_mass, e / (e + 9), 1e-6);
  EXPECT_NEAR(r.heads[0].recent_mass, 3 / (e + 9), 1e-6);
  EXPECT_EQ(r.heads[0].rank_pre, 0u);
  // Cosines: 1 with token 0, 0 with the others -> mean 0.1, max 1.
  EXPECT_NEAR(r.heads[0].qk_cos_mean, 0.1, 1e-9);
  EXPECT_NEAR(r.heads[0].qk_cos_max, 1.0, 1e-9);
  const Json j = to_json(r);
  EXPECT_NEAR(j["summary"]["sink_mass"]["mean"].get<double>(), e / (e + 9), 1e-6);
  EXPECT_NE(to_text(r).find("sink_mass"), std::string::npos);
}

TEST(KvStats, PreRopeRankIsLowerOnGeneratedKeys) {
  ContextOptions co;
  co.threads = 2;
  Context ctx(co);
  KvGeneratorSpec spec = testing::tiny_spec();
  spec.layers = {0};
  const StatsReport r = calibration_report(generate_kv_cache(spec, ctx), {}, ctx);
  for (const auto& h : r.heads) {
    EXPECT_GT(h.rank_pre, 0u);
    EXPECT_LT(h.rank_pre, h.rank_post);
    EXPECT_TRUE(h.value_outliers.empty());
    EXPECT_FALSE(h.key_outliers.empty());
  }
}

}  // namespace
}  // namespace lightsim::kv
