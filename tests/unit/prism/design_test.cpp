// The design-space search's enumeration, mapping and feasibility pruning (prism/design.h). No
// recall is scored here (every device fails or no search runs), so each test takes
// milliseconds; tests/cli/test_prism.py (PrismDesign) scores small grids end to end.
#include <gtest/gtest.h>

#include <cmath>

#include "lightsim/core/config_files.h"
#include "lightsim/prism/cost.h"
#include "lightsim/prism/design.h"
#include "shipped_configs.h"

namespace lightsim::prism {
namespace {

PrismDesignSpec tiny() {
  const config::LoadOptions load = testing::shipped_configs();
  return config::load_spec<PrismDesignSpec>(
      config::find_named("tiny", PrismDesignSpec::preset_dir, load, "prism design"), load);
}

TEST(PrismDesign, EnumeratesDeviceAxesOutermostAndTheLastAxisFastest) {
  PrismDesignSpec s = tiny();
  s.space = {};
  s.space.q_loaded = {2e4, 5e4};
  s.space.top_k = {8, 16, 32};
  const std::vector<DesignVariables> v = enumerate_designs(s);
  ASSERT_EQ(v.size(), 6u);
  EXPECT_EQ(v[0].q_loaded, 2e4);
  EXPECT_EQ(v[2].q_loaded, 2e4);
  EXPECT_EQ(v[3].q_loaded, 5e4);
  EXPECT_EQ(v[1].top_k, 16);
  EXPECT_EQ(v[5].top_k, 32);
  // Unlisted axes take the base accelerator's values.
  EXPECT_EQ(v[0].dim, s.accelerator.device.grid.channels);
  EXPECT_EQ(v[0].weight_bits, s.accelerator.programming.weight_bits);
}

TEST(PrismDesign, ACandidateSetsTheAcceleratorAtTheWorkloadsContext) {
  PrismDesignSpec s = tiny();
  DesignVariables v = enumerate_designs(s).front();
  v.block_tokens = 100;
  v.weight_bits = 7;
  v.dim = 16;
  const AcceleratorSpec a = design_accelerator(s, v);
  EXPECT_EQ(a.logical_rows, 82);  // ceil(8192 / 100)
  EXPECT_EQ(a.programming.weight_bits, 7);
  EXPECT_EQ(a.device.dac.bits, 7);
  EXPECT_EQ(a.device.grid.channels, 16);
  EXPECT_EQ(a.programming.kv_heads, s.workload.kv_heads);
}

TEST(PrismDesign, AnAliasingCombIsRemovedBeforeAnyScoreWithItsMargin) {
  PrismDesignSpec s = tiny();
  s.space = {};
  s.space.channel_spacing = {Length::si(0.4e-9)};  // 32 x 0.4 nm = 12.8 nm > the 8.35 nm FSR
  s.space.weight_bits = {4, 6, 8};
  Context ctx;
  const DesignResult r = search_designs(s, ctx);
  EXPECT_EQ(r.candidates, 3u);
  EXPECT_EQ(r.devices, 1u);
  EXPECT_EQ(r.feasible, 0u);
  EXPECT_EQ(r.scored_tuples, 0u);
  EXPECT_FALSE(r.best.has_value());
  EXPECT_EQ(r.binding, "aliasing");
  const DesignConstraint& alias = r.all[0].constraints[0];
  ASSERT_EQ(alias.name, "aliasing");
  EXPECT_FALSE(alias.passed);
  // FSR = lambda^2 / (n_g 2 pi R) at the grid centre; margin = FSR - d x spacing < 0.
  EXPECT_NEAR(alias.margin, alias.limit - 12.8, 1e-9);
  EXPECT_LT(alias.margin, 0);
  for (const DesignCandidate& c : r.all) EXPECT_EQ(c.removed_by, "aliasing");
}

// Every constraint's verdict agrees with its margin's sign; the TEC line compares the static
// tuning of every bank plus the modelled TEC with the per-device thermal budget x banks x chips
// (not the TEC alone against one device's budget, which passed whatever its margin).
TEST(PrismDesign, TheTecConstraintFailsWhenTuningPlusTecExceedsTheScaledBudget) {
  PrismDesignSpec s = tiny();
  s.space = {};
  const AcceleratorSpec a = design_accelerator(s, enumerate_designs(s).front());
  const CostReport c = cost(a);
  ASSERT_TRUE(c.thermal.feasible);
  ASSERT_GT(c.thermal.tec_power, 0.0);
  double tuning = 0;
  for (const CostItem& i : c.static_power)
    if (i.name == "static_tuning") tuning += i.value;
  const double units = static_cast<double>(c.banks) * a.interposer.chips;
  // A budget that holds the tuning of one device (and its device check, with no fixed TEC
  // estimate) but not the tuning plus the modelled TEC of the whole accelerator.
  const double per_unit = (tuning + 0.5 * c.thermal.tec_power) / units;
  s.accelerator.device.tuning.tec_power = Power::si(0.0);
  s.accelerator.device.requirements.thermal_budget = Power::si(per_unit);
  Context ctx;
  const DesignResult r = search_designs(s, ctx);
  ASSERT_EQ(r.candidates, 1u);
  EXPECT_EQ(r.all[0].removed_by, "tec");
  bool seen = false;
  for (const DesignConstraint& k : r.all[0].constraints) {
    if (std::isfinite(k.margin)) {
      EXPECT_EQ(k.passed, k.margin >= 0) << k.name;
    } else {
      EXPECT_FALSE(k.passed) << k.name;
    }
    if (k.name != "tec") continue;
    seen = true;
    EXPECT_FALSE(k.passed);
    EXPECT_NEAR(k.value, tuning + c.thermal.tec_power, 1e-9 * k.value);
    EXPECT_NEAR(k.limit, per_unit * units, 1e-9 * k.limit);
    EXPECT_LT(k.margin, 0.0);
  }
  EXPECT_TRUE(seen);
}

}  // namespace
}  // namespace lightsim::prism
