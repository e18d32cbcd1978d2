// Die area against the reticle limit and the yield models (prism/die.h).
#include <gtest/gtest.h>

#include <cmath>

#include "lightsim/prism/cost.h"
#include "lightsim/prism/die.h"
#include "shipped_configs.h"

namespace lightsim::prism {
namespace {

TEST(Die, TheSeedsSingleDieExceedsTheReticleLimit) {
  const AcceleratorSpec a = load_accelerator("seed", testing::shipped_configs());
  const CostReport r = cost(a, 0.0);
  ASSERT_EQ(a.interposer.chips, 1);
  const DieReport d = die_report(a, r.area_total);
  EXPECT_NEAR(d.die_area * 1e6, 1053.2, 0.1);
  EXPECT_FALSE(d.fits);
  EXPECT_EQ(d.chips_needed, 2);
  EXPECT_NE(d.reason.find("858 mm^2 reticle limit"), std::string::npos) << d.reason;
}

TEST(Die, YieldFollowsPoissonAndNegativeBinomial) {
  AcceleratorSpec a = load_accelerator("seed", testing::shipped_configs());
  a.area.defect_density = 0.1;
  a.area.defect_clustering = 2.0;
  const DieReport d = die_report(a, 400e-6);  // 4 cm^2: A D0 = 0.4
  EXPECT_TRUE(d.fits);
  EXPECT_TRUE(d.reason.empty());
  EXPECT_NEAR(d.yield_poisson, std::exp(-0.4), 1e-12);
  EXPECT_NEAR(d.yield_negative_binomial, std::pow(1.2, -2.0), 1e-12);
  EXPECT_GT(d.yield_negative_binomial, d.yield_poisson);  // clustering spares more dies
  a.area.defect_clustering = 1e6;                         // -> Poisson
  EXPECT_NEAR(die_report(a, 400e-6).yield_negative_binomial, std::exp(-0.4), 1e-6);
  a.interposer.chips = 4;  // the area splits over the chips
  EXPECT_NEAR(die_report(a, 2000e-6).die_area, 500e-6, 1e-12);
  EXPECT_TRUE(die_report(a, 2000e-6).fits);
}

}  // namespace
}  // namespace lightsim::prism
