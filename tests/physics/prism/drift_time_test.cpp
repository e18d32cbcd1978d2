// Realistic drift in time (prism/drift_time.h): the local drift's Ornstein-Uhlenbeck time
// constant from the walks and the relocks, its refresh step from the sensor scan, and the
// matching of a restarted random walk that the formula rests on.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "lightsim/core/error.h"
#include "lightsim/core/rng.h"
#include "lightsim/photonics/device.h"
#include "lightsim/photonics/mvm.h"
#include "lightsim/prism/calibration.h"
#include "lightsim/prism/drift_time.h"
#include "lightsim/prism/thermal.h"

namespace lightsim::prism {
namespace {

struct Specs {
  photonics::DeviceSpec device;  // TFLN: d lambda / dT = 17 pm/K
  ThermalSpec thermal;           // ring_walk 0.1 pm/sqrt(s), local_walk 2 mK/sqrt(s), scan 1 ms
  CalibrationSpec cal;           // relock every 1 s (trigger both, threshold 0.05 K)
};

TEST(DriftTime, RingWalkAloneGivesTheRelockPeriod) {
  Specs s;
  s.thermal.local_walk = TemperatureWalk::si(0.0);
  const DriftTimeScale t = drift_time_scale(s.device, s.thermal, s.cal);
  EXPECT_DOUBLE_EQ(t.time_constant.si(), 1.0);
  EXPECT_DOUBLE_EQ(t.refresh.si(), 1e-3);  // the scan period, shorter than tau / 10
  EXPECT_DOUBLE_EQ(t.ring_walk_share, 1.0);
}

TEST(DriftTime, BothWalksGiveTheDiffusionWeightedRestartPeriod) {
  Specs s;
  const double dr = 0.1e-12 * 0.1e-12, dg = std::pow(0.002 * 17e-12, 2);
  const DriftTimeScale t = drift_time_scale(s.device, s.thermal, s.cal);
  EXPECT_NEAR(t.time_constant.si(), (dr * 1.0 + dg * 1e-3) / (dr + dg), 1e-12);
  EXPECT_NEAR(t.time_constant.si(), 0.8965, 1e-3);  // the default: the relocks set it
  // Regional walk alone: the sensor scan restarts it.
  s.thermal.ring_walk = LengthWalk::si(0.0);
  const DriftTimeScale g = drift_time_scale(s.device, s.thermal, s.cal);
  EXPECT_DOUBLE_EQ(g.time_constant.si(), 1e-3);
  EXPECT_DOUBLE_EQ(g.refresh.si(), 1e-4);  // tau / 10 is now the shorter
}

TEST(DriftTime, TemperatureTriggerRelocksAtTheMeanExitTime) {
  Specs s;
  s.cal.trigger = RecalibrationTrigger::temperature;
  const DriftTimeScale t = drift_time_scale(s.device, s.thermal, s.cal);
  EXPECT_NEAR(t.relock_period.si(), std::pow(0.05 / 0.002, 2), 1e-9);  // 625 s
  s.cal.trigger = RecalibrationTrigger::both;  // the periodic relock comes first
  EXPECT_DOUBLE_EQ(drift_time_scale(s.device, s.thermal, s.cal).relock_period.si(), 1.0);
}

TEST(DriftTime, NoWalkIsAStaticFieldAndAnUnremovedWalkIsRefused) {
  Specs s;
  s.thermal.ring_walk = LengthWalk::si(0.0);
  s.thermal.local_walk = TemperatureWalk::si(0.0);
  EXPECT_TRUE(std::isinf(drift_time_scale(s.device, s.thermal, s.cal).time_constant.si()));
  s.thermal.ring_walk = LengthWalk::si(0.1e-12);  // walks, but nothing ever relocks it
  s.cal.trigger = RecalibrationTrigger::temperature;
  EXPECT_THROW(drift_time_scale(s.device, s.thermal, s.cal), UsageError);
}

// The formula's premise: a walk of diffusion D restarted every P has the mean variance D P / 2
// and short-time increments of variance D h, so the OU with both has tau = 2 var / D = P.
TEST(DriftTime, RestartedWalkHasTheMatchedVarianceAndIncrements) {
  const double p = 1.0, dt = 1e-3, d = 1.0;
  const int steps = static_cast<int>(p / dt);
  RandomStream rng(7, {25});
  std::vector<double> z(static_cast<std::size_t>(steps));
  double sum2 = 0.0, inc2 = 0.0;
  long n = 0, m = 0;
  for (int period = 0; period < 4000; ++period) {
    rng.fill_normal(std::span<double>(z));
    double x = 0.0;
    for (int i = 0; i < steps; ++i) {
      const double step = std::sqrt(d * dt) * z[static_cast<std::size_t>(i)];
      if (i > 0) {
        inc2 += step * step;
        ++m;
      }
      x += step;
      sum2 += x * x;
      ++n;
    }
  }
  const double var = sum2 / static_cast<double>(n), inc = inc2 / static_cast<double>(m) / dt;
  // Per period the mean of W^2 has relative sd sqrt(1/12) / (1/2) = 0.58: 4000 periods give a
  // 0.9 % standard error, so 5 % is 5.5 of them.
  EXPECT_NEAR(var, d * p / 2.0, 0.05 * d * p / 2.0);
  EXPECT_NEAR(inc, d, 0.01 * d);
  EXPECT_NEAR(2.0 * var / inc, p, 0.06 * p);
}

TEST(DriftTime, RealisticDriftReachesTheKernel) {
  Specs s;
  photonics::ImpairmentSpec imp;
  imp.drift_local_sigma = Length::si(5e-12);
  EXPECT_EQ(with_thermal_drift(imp, s.device, s.thermal, s.cal).drift_time_constant.si(), 0.0);
  imp.thermal_drift = true;
  const photonics::ImpairmentSpec r = with_thermal_drift(imp, s.device, s.thermal, s.cal);
  EXPECT_NEAR(r.drift_time_constant.si(), 0.8965, 1e-3);
  EXPECT_DOUBLE_EQ(r.drift_refresh.si(), 1e-3);
  s.device.ring.q_loaded = 1e4;
  s.device.ring.extinction_ratio = Decibel::si(20.0);
  s.device.bank.rows = 32;
  s.device.grid.channels = 8;
  s.device.tuning.max_voltage = Voltage::si(20.0);
  const std::vector<float> w(32 * 8, 0.25f);
  // One 10 ns query per TIA window: 1 ms / 10 ns = 10^5 queries per update.
  EXPECT_EQ(photonics::MvmKernel(s.device, r, w).drift().refresh_queries(), 100000);
}

}  // namespace
}  // namespace lightsim::prism
