// Signature mapping, query encoding and reprogramming cost.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "lightsim/prism/programming.h"
#include "shipped_configs.h"

namespace lightsim::prism {
namespace {

AcceleratorSpec programming_preset(const std::string& name) {
  return config::load_spec<AcceleratorSpec>(
      std::filesystem::path(LIGHTSIM_SOURCE_DIR) / "configs/accelerators" / (name + ".yaml"),
      testing::shipped_configs());
}

TEST(Programming, QuantizeWeightFollowsTheQatRule) {
  // 5 bits: s = 15 levels per sign.
  EXPECT_DOUBLE_EQ(quantize_weight(0.45, 5), 7.0 / 15.0);
  EXPECT_DOUBLE_EQ(quantize_weight(-1.2, 5), -1.0);
  EXPECT_DOUBLE_EQ(quantize_weight(0.03, 5), 0.0);
  for (double w = -1; w <= 1; w += 0.01)
    EXPECT_LE(std::abs(quantize_weight(w, 8) - w), 0.5 / 127 + 1e-12);
}

TEST(Programming, WeightLevelCountIsTheStatedOption) {
  auto distinct = [](int bits, WeightLevels levels) {
    std::vector<double> seen;
    for (double w = -1.0; w <= 1.0; w += 1e-3) {
      const double q = quantize_weight(w, bits, levels);
      if (std::find(seen.begin(), seen.end(), q) == seen.end()) seen.push_back(q);
    }
    return seen.size();
  };
  // zero_centred (the default, the seed's rule): 2^b - 1 levels, so 2 bits give 3.
  EXPECT_EQ(distinct(2, WeightLevels::zero_centred), 3u);
  EXPECT_EQ(distinct(4, WeightLevels::zero_centred), 15u);
  // all_codes: all 2^b levels, the ends at +-1, no zero level.
  EXPECT_EQ(distinct(2, WeightLevels::all_codes), 4u);
  EXPECT_EQ(distinct(4, WeightLevels::all_codes), 16u);
  EXPECT_DOUBLE_EQ(quantize_weight(0.2, 2, WeightLevels::all_codes), 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(quantize_weight(-0.9, 2, WeightLevels::all_codes), -1.0);
  EXPECT_NE(quantize_weight(0.0, 4, WeightLevels::all_codes), 0.0);
  // The default argument is the zero_centred rule.
  for (double w = -1; w <= 1; w += 0.01)
    EXPECT_EQ(quantize_weight(w, 5), quantize_weight(w, 5, WeightLevels::zero_centred));
}

TEST(Programming, SignaturesScaleToTheWeightRangeAndRowSumsMatch) {
  const std::vector<float> sig = {2.0f, -4.0f, 1.0f, 0.0f};  // 2 rows x d 2
  const BankWeights b = map_signatures(sig, 2, 0.9, 24);
  EXPECT_EQ(b.rows, 2);
  EXPECT_NEAR(b.weights[1], -0.9, 1e-6);
  EXPECT_NEAR(b.weights[0], 0.45, 1e-6);
  EXPECT_NEAR(b.row_sum[0], 0.45 - 0.9, 1e-6);
  EXPECT_NEAR(b.scale, 0.9 / 4.0, 1e-12);
}

TEST(Programming, QueryEncodingIsAnOffsetIntensity) {
  const std::vector<float> q = {1.0f, -2.0f, 0.0f};
  std::vector<float> x(3);
  EXPECT_FLOAT_EQ(static_cast<float>(encode_query(q, 16, x)), 2.0f);
  EXPECT_NEAR(x[0], 0.75, 1e-4);
  EXPECT_NEAR(x[1], 0.0, 1e-6);
  EXPECT_NEAR(x[2], 0.5, 1e-4);
}

TEST(Programming, BalancedQueryEncodingGivesComplementaryRailsOfTheSignedQuery) {
  const std::vector<float> q = {1.0f, -2.0f, 0.0f, 0.5f};
  std::vector<float> plus(4), minus(4), x(4);
  EXPECT_FLOAT_EQ(static_cast<float>(encode_query_balanced(q, 16, plus, minus)), 2.0f);
  encode_query(q, 16, x);
  for (std::size_t j = 0; j < q.size(); ++j) {
    EXPECT_EQ(plus[j], x[j]);                            // rail + is the intensity encoding
    EXPECT_FLOAT_EQ(plus[j] + minus[j], 1.0f);           // complementary outputs
    EXPECT_NEAR(plus[j] - minus[j], q[j] / 2.0f, 1e-4);  // the signed u_j = q_j / max|q|
  }
}

TEST(Programming, SwitchEnergyIsDacConversionPlusDriverCharge) {
  const AcceleratorSpec a = programming_preset("seed");
  const ProgrammingCost c = programming_cost(a);
  const double v = a.device.tuning.max_voltage.si();
  EXPECT_DOUBLE_EQ(c.drive_energy, 2.0 / 3.0 * a.programming.ring_capacitance.si() * v * v);
  EXPECT_DOUBLE_EQ(c.dac_energy, a.electronics.weight_dac_step.si() * 16.0);  // 4-bit DAC
  // One bank per KV head: only completed blocks reprogram (d rings per 128 steps).
  EXPECT_EQ(c.loads_per_query, 0);
  EXPECT_DOUBLE_EQ(c.completion_switches, 32.0 / 128.0);
  // Time sharing one bank among 8 KV heads reloads all 256 x 32 rings every query.
  const ProgrammingCost t = programming_cost(a, BankSharing::time_shared);
  EXPECT_EQ(t.loads_per_query, 1);
  EXPECT_DOUBLE_EQ(t.reload_switches, 256.0 * 32.0);
  EXPECT_GT(t.energy_per_query(), 1000 * c.energy_per_query());
  EXPECT_EQ(banks_needed(a), 8);
}

TEST(Programming, TimeMultiplexingReloadsEveryPass) {
  const ProgrammingCost c = programming_cost(programming_preset("scaled"));
  EXPECT_EQ(c.loads_per_query, 8);
  EXPECT_DOUBLE_EQ(c.reload_switches, 8.0 * 1024 * 32);
  // Heaters are resistive: no C V^2 switching charge on SOI.
  EXPECT_EQ(programming_cost(programming_preset("soi")).drive_energy, 0.0);
}

}  // namespace
}  // namespace lightsim::prism
