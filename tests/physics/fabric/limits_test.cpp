// Analytic limits of the collective models: bandwidth-bound at large sizes, latency-bound at
// small sizes, and bandwidth scaling linearly with the optical lane count.
#include <gtest/gtest.h>

#include "lightsim/fabric/collective.h"

namespace lightsim::fabric {
namespace {

Topology one_tier(std::int64_t n, double bw, double alpha, double eff, bool in_switch) {
  Topology t;
  t.name = "limit";
  Tier tier;
  tier.name = "t";
  tier.domain_size = n;
  tier.bandwidth = tier.line_bandwidth = bw;
  tier.alpha = alpha;
  tier.efficiency = eff;
  tier.in_switch = in_switch;
  tier.in_switch_efficiency = eff;
  t.tiers.push_back(tier);
  return t;
}

TEST(Limits, LargeMessagesReachTheBandwidthBounds) {
  for (std::int64_t n : {2, 8, 72, 1152}) {
    const Topology t = one_tier(n, 1e11, 5e-6, 0.9, true);
    const double S = 1e15;  // alpha negligible
    const auto ring = collective(t, CollectiveOp::all_reduce, n, S, Algorithm::ring);
    EXPECT_NEAR(ring.busbw / 0.9e11, 1.0, 1e-6) << n;
    const auto sw = collective(t, CollectiveOp::all_reduce, n, S, Algorithm::in_switch);
    EXPECT_NEAR(sw.busbw / (2.0 * (n - 1) / n * 0.9e11), 1.0, 1e-6) << n;
    const auto a2a = collective(t, CollectiveOp::all_to_all, n, S);
    EXPECT_NEAR(a2a.busbw / 0.9e11, 1.0, 1e-6) << n;
  }
}

TEST(Limits, SmallMessagesCostOnlyLatencySteps) {
  const double alpha = 3e-6, tiny = 1e-3;  // a thousandth of a byte
  const Topology t = one_tier(64, 1e11, alpha, 1.0, true);
  EXPECT_NEAR(collective(t, CollectiveOp::all_reduce, 64, tiny, Algorithm::ring).time,
              2 * 63 * alpha, 1e-12);
  EXPECT_NEAR(collective(t, CollectiveOp::all_gather, 64, tiny, Algorithm::ring).time, 63 * alpha,
              1e-12);
  EXPECT_NEAR(collective(t, CollectiveOp::all_reduce, 64, tiny, Algorithm::in_switch).time,
              2 * alpha, 1e-12);
  EXPECT_NEAR(collective(t, CollectiveOp::all_to_all, 64, tiny).time, alpha, 1e-12);
}

TEST(Limits, CpoBandwidthIsLinearInEveryLaneCount) {
  CpoSpec c;
  const double base = derive(c).per_gpu_per_direction;
  c.fibers_per_tile *= 2;
  EXPECT_DOUBLE_EQ(derive(c).per_gpu_per_direction, 2 * base);
  c.wavelengths_per_fiber /= 4;
  EXPECT_DOUBLE_EQ(derive(c).per_gpu_per_direction, base / 2);
  c.modulation = "pam8";
  EXPECT_DOUBLE_EQ(derive(c).per_gpu_per_direction, base / 2 * 1.5);
}

}  // namespace
}  // namespace lightsim::fabric
