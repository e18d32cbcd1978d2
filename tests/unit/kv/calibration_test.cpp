// Calibration targets (kv_measurements) and each statistic kind on constructed caches with a
// known answer (calibration.h).
#include <gtest/gtest.h>

#include <string>

#include "lightsim/core/config.h"
#include "lightsim/core/error.h"
#include "lightsim/kv/calibration.h"

namespace lightsim::kv {
namespace {

// One query head per KV head, D = 2, T = 1024. Query of every head along channel 0 with a
// large norm; all keys zero except head h's key at token target[h] = (1, 0): that token takes
// almost all of head h's mass (logit 40 / sqrt(2) ~ 28 nats above every other token).
KvCache pointed_cache(std::vector<std::size_t> layer_ids, std::vector<std::size_t> targets) {
  KvGeometry g;
  g.layers = layer_ids.size();
  g.kv_heads = targets.size();
  g.q_heads = targets.size();
  g.head_dim = 2;
  g.tokens = 1024;
  g.steps = 2;
  KvCache c(g);
  c.layer_ids = layer_ids;
  c.rope_base = 0;
  for (std::size_t l = 0; l < g.layers; ++l)
    for (std::size_t h = 0; h < g.kv_heads; ++h) {
      c.keys(l, h)[targets[h] * 2] = 1.0f;
      for (std::size_t s = 0; s < g.steps; ++s) c.queries(l, h)[s * 2] = 40.0f;
    }
  return c;
}

TEST(KvCalibration, LayersHoldEarlyMiddleAndLast) {
  EXPECT_EQ(calibration_layers(28, 2), (std::vector<std::int64_t>{0, 1, 14, 27}));
  EXPECT_EQ(calibration_layers(32, 2, 3), (std::vector<std::int64_t>{0, 1, 11, 21, 31}));
  EXPECT_EQ(calibration_layers(28, 2, 4), (std::vector<std::int64_t>{0, 1, 8, 14, 21, 27}));
  EXPECT_EQ(calibration_layers(4, 2, 4), (std::vector<std::int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(calibration_layers(2, 2), (std::vector<std::int64_t>{0, 1}));
  EXPECT_EQ(calibration_layers(1, 2), (std::vector<std::int64_t>{0}));
}

TEST(KvCalibration, StreamingHeadHoldsSinkAndRecentMass) {
  // Head 0 attends to token 0 (sink), head 1 to the last token (recent), head 2 and head 3 to
  // token 500 (outside both windows): 2 of 4 heads are streaming.
  const KvCache c = pointed_cache({5}, {0, 1023, 500, 500});
  Context ctx;
  const Estimate e = streaming_head_fraction(c, false, 8, CalibrationOptions{}, ctx);
  EXPECT_EQ(e.n, 4u);
  EXPECT_DOUBLE_EQ(e.mean, 0.5);
  EXPECT_GT(e.ci95, 0.0);
  // Layer 5 is not early: the early statistic has nothing to measure.
  EXPECT_EQ(streaming_head_fraction(c, true, 8, CalibrationOptions{}, ctx).n, 0u);
}

TEST(KvCalibration, RetrievalHeadAttendsInsideANeedle) {
  KvCache c = pointed_cache({0}, {505, 700, 0});
  c.needles = {{500, 510}};
  Context ctx;
  const Estimate e = retrieval_head_fraction(c, true, 8, CalibrationOptions{}, ctx);
  EXPECT_EQ(e.n, 3u);
  EXPECT_NEAR(e.mean, 1.0 / 3.0, 1e-12);
  c.needles.clear();  // a cache without needles cannot give the statistic
  EXPECT_EQ(retrieval_head_fraction(c, false, 8, CalibrationOptions{}, ctx).n, 0u);
}

TEST(KvCalibration, BodyLayersStandForTheRestOfTheModel) {
  // Layer 0 (early, weight 1): both heads streaming; layer 5 (body, weight 8 - 2 = 6): none.
  KvCache a = pointed_cache({0, 5}, {0, 0});
  for (std::size_t h = 0; h < 2; ++h) {
    a.keys(1, h)[0] = 0.0f;
    a.keys(1, h)[500 * 2] = 1.0f;
  }
  Context ctx;
  const Estimate all = streaming_head_fraction(a, false, 8, CalibrationOptions{}, ctx);
  EXPECT_EQ(all.n, 4u);
  EXPECT_NEAR(all.mean, 2.0 / (2.0 + 2.0 * 6.0), 1e-12);
  const Estimate early = streaming_head_fraction(a, true, 8, CalibrationOptions{}, ctx);
  EXPECT_EQ(early.n, 2u);
  EXPECT_DOUBLE_EQ(early.mean, 1.0);
}

TEST(KvCalibration, SparsityOfUniformAndPeakedAttention) {
  Context ctx;
  // All keys zero: uniform weights, none below 1% of the maximum.
  KvCache uniform = pointed_cache({3}, {0});
  uniform.keys(0, 0)[0] = 0.0f;
  EXPECT_DOUBLE_EQ(attention_sparsity(uniform, 8, CalibrationOptions{}, ctx).mean, 0.0);
  // One dominant token: every other token is below 1% of it.
  const KvCache peaked = pointed_cache({3}, {10});
  EXPECT_DOUBLE_EQ(attention_sparsity(peaked, 8, CalibrationOptions{}, ctx).mean, 1023.0 / 1024);
}

TEST(KvCalibration, KeyRankOfRankOneKeys) {
  // Keys (x_t, 0) with varying x_t: one direction holds all the variance.
  KvCache c = pointed_cache({3}, {0});
  for (std::size_t t = 0; t < 1024; ++t) c.keys(0, 0)[t * 2] = static_cast<float>(t % 7);
  Context ctx;
  EXPECT_DOUBLE_EQ(key_rank90_post_rope(c, 8, CalibrationOptions{}, ctx).mean, 1.0);
}

const char* kGood = R"(schema_version: 1
kind: kv_measurements
statistics:
  - id: a
    model: M
    profiles: [p]
    context_tokens: 1000
    setting: s
    kind: retrieval_head_fraction
    value: 0.05
    band: [0.02, 0.08]
    source: paper
    where: Fig. 1
)";

KvMeasurements parse(const std::string& yaml) {
  return config::read_spec<KvMeasurements>(config::parse_document(yaml, "m.yaml"));
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  text.replace(text.find(from), from.size(), to);
  return text;
}

std::string error_of(const std::string& yaml) {
  try {
    (void)parse(yaml);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(KvCalibration, MeasurementsAreReadStrictly) {
  const KvMeasurements m = parse(kGood);
  ASSERT_EQ(m.statistics.size(), 1u);
  EXPECT_EQ(m.statistics[0].statistic, "retrieval_head_fraction");
  EXPECT_EQ(m.statistics[0].use, "check");
  const std::string unknown =
      error_of(replaced(kGood, "kind: retrieval_head_fraction", "kind: sink_magic"));
  EXPECT_NE(unknown.find("m.yaml"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("statistics[0].kind"), std::string::npos) << unknown;
  const std::string no_source = error_of(replaced(kGood, "    source: paper\n", ""));
  EXPECT_NE(no_source.find("source"), std::string::npos) << no_source;
  const std::string bad_band = error_of(replaced(kGood, "[0.02, 0.08]", "[0.06, 0.08]"));
  EXPECT_NE(bad_band.find("does not contain"), std::string::npos) << bad_band;
  EXPECT_THROW((void)statistic_kind("sink_magic"), ConfigError);
  EXPECT_EQ(statistic_kind_name(statistic_kind("attention_sparsity_1pct")),
            "attention_sparsity_1pct");
}

TEST(KvCalibration, AProfileWithoutTargetsIsAnError) {
  const KvMeasurements m = parse(kGood);
  EXPECT_EQ(targets_for_profile(m, "p", "m.yaml").size(), 1u);
  try {
    (void)targets_for_profile(m, "q", "m.yaml");
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("profile 'q'"), std::string::npos) << e.what();
  }
}

TEST(KvCalibration, VerdictFollowsTheBand) {
  KvMeasurements m = parse(kGood);
  m.statistics[0].statistic = "streaming_head_fraction";
  m.statistics[0].band = {0.4, 0.6};
  m.statistics[0].value = 0.5;
  const KvCache c = pointed_cache({5}, {0, 500});
  Context ctx;
  CalibrationReport r = calibrate(c, "p", 8, m.statistics, CalibrationOptions{}, ctx);
  ASSERT_EQ(r.targets.size(), 1u);
  EXPECT_EQ(r.targets[0].verdict, Verdict::within);
  EXPECT_DOUBLE_EQ(r.targets[0].deviation, 0.0);
  m.statistics[0].band = {0.45, 0.5};
  m.statistics[0].value = 0.45;
  r = calibrate(c, "p", 8, m.statistics, CalibrationOptions{}, ctx);
  EXPECT_EQ(r.targets[0].verdict, Verdict::within);  // 0.5 is the band's upper edge
  m.statistics[0].band = {0.1, 0.2};
  m.statistics[0].value = 0.1;
  r = calibrate(c, "p", 8, m.statistics, CalibrationOptions{}, ctx);
  EXPECT_EQ(r.targets[0].verdict, Verdict::outside);
  EXPECT_NEAR(r.targets[0].relative_deviation, 4.0, 1e-12);
}

}  // namespace
}  // namespace lightsim::kv
