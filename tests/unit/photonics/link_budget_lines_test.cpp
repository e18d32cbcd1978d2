// The link budget's on-row lines: ring insertion loss (through port, per ring on the path; drop
// port) and photodiode coupling add to the critical path, and zero leaves the budget unchanged.
#include <gtest/gtest.h>

#include <cmath>

#include "fit_device.h"
#include "lightsim/core/json.h"
#include "lightsim/photonics/link_budget.h"

namespace lightsim::photonics {
namespace {

TEST(LinkBudgetLines, RingAndDetectorLossesAddToTheCriticalPath) {
  DeviceSpec dev = testing::seed_tfln_fit_device(32);
  const LinkBudget base = link_budget(dev, 1e-3);
  dev.path.ring_through_loss = Decibel::si(0.1);
  dev.path.ring_drop_loss = Decibel::si(0.5);
  dev.path.detector_coupling_loss = Decibel::si(0.3);
  const LinkBudget b = link_budget(dev, 1e-3);
  EXPECT_NEAR(b.rings_db, 31 * 0.1 + 0.5, 1e-12);  // 31 rings passed, then the drop port
  EXPECT_NEAR(b.detector_coupling_db, 0.3, 1e-12);
  EXPECT_NEAR(b.total_loss_db - base.total_loss_db, 3.9, 1e-12);
  EXPECT_NEAR(b.channel_power / base.channel_power, std::pow(10.0, -0.39), 1e-12);
  EXPECT_LT(b.snr_db, base.snr_db);
  // A drop port better than a through pass: the through pass is the worse of the two.
  dev.path.ring_drop_loss = Decibel::si(0.05);
  EXPECT_NEAR(link_budget(dev, 1e-3).rings_db, 32 * 0.1, 1e-12);
  EXPECT_TRUE(to_json(b).contains("rings_loss_db"));
  EXPECT_FALSE(to_json(base).contains("rings_loss_db"));  // zero lines stay out of reports
}

}  // namespace
}  // namespace lightsim::photonics
