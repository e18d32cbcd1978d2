// The bias lock's power (prism/lock_power.h): its closed form against the binary search it
// prices and against the drift simulation that runs that search, its limits (zero drift, a
// finer target) and the design search's use of it (prism/design.h).
#include <gtest/gtest.h>

#include <cmath>

#include "lightsim/core/config_files.h"
#include "lightsim/prism/cost.h"
#include "lightsim/prism/design.h"
#include "lightsim/prism/lock_power.h"
#include "lightsim/prism/operating_point.h"
#include "shipped_configs.h"

namespace lightsim::prism {
namespace {

AcceleratorSpec lock_seed_fit() {
  return load_accelerator("seed_fit", testing::shipped_configs());
}

LockPower lock_of(const AcceleratorSpec& a, double rings = 1.0) {
  const CostReport r = cost(a);
  return lock_power(a, r.tuner.lock, r.thermal, rings);
}

TEST(LockPower, PeriodicClosedFormCountsTheHalvingsOfTheSearchItPrices) {
  AcceleratorSpec a = lock_seed_fit();
  a.calibration.trigger = RecalibrationTrigger::periodic;
  a.calibration.measurement_noise = Length::si(0.0);
  const LockRange range = operating_point(a.device, a.calibration).lock;
  const LockPower p = lock_of(a, 1000.0);
  ASSERT_TRUE(p.search.feasible) << p.search.reason;
  EXPECT_GT(p.search.halvings, 2);
  EXPECT_DOUBLE_EQ(p.power_per_ring, p.search.halvings * a.calibration.iteration_energy.si() /
                                         a.calibration.interval.si());
  EXPECT_DOUBLE_EQ(p.power, 1000.0 * p.power_per_ring);
  // lock_ring's own measurements for offsets inside the range (away from its edges): the
  // halvings are an upper bound within one (an odd interval's smaller half saves one).
  RandomStream noise(7, {1});
  double sum = 0;
  const int n = 401;
  for (int k = 0; k < n; ++k) {
    const double offset = -(range.lo + (range.hi - range.lo) * (0.05 + 0.9 * k / (n - 1.0)));
    const LockResult r = lock_ring(a.calibration, range, offset, noise);
    ASSERT_TRUE(r.locked) << r.reason;
    EXPECT_LE(r.iterations, p.search.halvings);
    EXPECT_GE(r.iterations, p.search.halvings - 1);
    sum += r.iterations;
  }
  EXPECT_GT(sum / n, p.search.halvings - 1);
}

TEST(LockPower, AgreesWithTheDriftSimulationsRelockEnergy) {
  AcceleratorSpec a = lock_seed_fit();
  a.device.bank.rows = 4;
  a.calibration.trigger = RecalibrationTrigger::periodic;
  a.calibration.interval = Time::si(0.5);
  const CostReport r = cost(a);
  const double rings = 4.0 * a.device.grid.channels;
  const LockPower p = lock_power(a, r.tuner.lock, r.thermal, rings);
  DriftOptions o;
  o.duration = Time::si(3.0);
  o.heat = Power::si(r.dissipated_power);
  o.seed = 11;
  const DriftRun run = simulate_drift(a.device, a.thermal, a.calibration, o);
  ASSERT_TRUE(run.feasible) << run.reason;
  const double simulated = (run.calibration_energy - run.initial.energy) / o.duration.si();
  const double h = p.search.halvings;
  EXPECT_GT(simulated, 0);
  EXPECT_LE(simulated, p.power * (h + 1) / h);  // an edge reading at most
  EXPECT_GE(simulated, p.power * (h - 1) / h);  // a saved halving at most
}

TEST(LockPower, ZeroDriftWithTheTemperatureTriggerCostsNothingBeyondTheBias) {
  AcceleratorSpec a = lock_seed_fit();
  a.thermal.ambient_swing = TemperatureDelta::si(0.0);
  a.thermal.ambient_walk = TemperatureWalk::si(0.0);
  a.thermal.local_walk = TemperatureWalk::si(0.0);
  a.calibration.trigger = RecalibrationTrigger::temperature;
  const LockPower none = lock_of(a, 1e4);
  ASSERT_TRUE(none.search.feasible);
  EXPECT_EQ(none.relock_rate, 0.0);
  EXPECT_EQ(none.power, 0.0);
  // With the periodic relocks as well only they remain.
  a.calibration.trigger = RecalibrationTrigger::both;
  const LockPower both = lock_of(a, 1e4);
  EXPECT_DOUBLE_EQ(both.relock_rate, 1.0 / a.calibration.interval.si());
  // A local walk relocks a row at n_s sigma^2 / th^2 (mean first exit from +-th).
  a.calibration.trigger = RecalibrationTrigger::temperature;
  a.thermal.local_walk = TemperatureWalk::si(0.002);
  const double th = a.calibration.temperature_threshold.si();
  const double ns =
      std::ceil(a.device.grid.channels / static_cast<double>(a.thermal.sensors.rings_per_sensor));
  EXPECT_DOUBLE_EQ(lock_of(a).relock_rate, ns * 0.002 * 0.002 / (th * th));
}

TEST(LockPower, AHalvedTargetCostsOneMoreHalvingAndAZeroTargetNoLock) {
  AcceleratorSpec a = lock_seed_fit();
  a.calibration.target = Length::si(2e-12);
  const LockPower coarse = lock_of(a);
  a.calibration.target = Length::si(1e-12);
  const LockPower fine = lock_of(a);
  EXPECT_EQ(fine.search.halvings, coarse.search.halvings + 1);
  EXPECT_GT(fine.power_per_ring, coarse.power_per_ring);
  a.calibration.target = Length::si(0.0);
  const LockPower zero = lock_of(a, 1e4);
  EXPECT_FALSE(zero.search.feasible);
  EXPECT_NE(zero.search.reason.find("too coarse"), std::string::npos) << zero.search.reason;
  EXPECT_EQ(zero.power, 0.0);
}

PrismDesignSpec tiny_design() {
  const config::LoadOptions load = testing::shipped_configs();
  PrismDesignSpec s = config::load_spec<PrismDesignSpec>(
      config::find_named("tiny", PrismDesignSpec::preset_dir, load, "prism design"), load);
  s.space = {};
  return s;
}

TEST(LockPower, TheDesignLocksToSqrt3TimesItsPrecisionAndRemovesAPerfectLock) {
  PrismDesignSpec s = tiny_design();
  s.space.lock_precision = {Length::si(0.0), Length::si(1e-12)};
  const std::vector<DesignVariables> v = enumerate_designs(s);
  ASSERT_EQ(v.size(), 2u);
  const AcceleratorSpec a = design_accelerator(s, v[1]);
  EXPECT_NEAR(a.calibration.target.si(), std::sqrt(3.0) * 1e-12, 1e-24);
  EXPECT_EQ(a.impairments.calibration_residual.si(), 1e-12);
  // Without the axis the base's lock stays.
  PrismDesignSpec base = tiny_design();
  EXPECT_EQ(design_accelerator(base, enumerate_designs(base).front()).calibration.target.si(),
            base.accelerator.calibration.target.si());
  // A perfect lock (p = 0) takes no finite search: removed by `lock` before any score.
  s.space.lock_precision = {Length::si(0.0)};
  Context ctx;
  const DesignResult r = search_designs(s, ctx);
  ASSERT_EQ(r.candidates, 1u);
  EXPECT_FALSE(r.all[0].feasible);
  EXPECT_EQ(r.all[0].removed_by, "lock");
  EXPECT_EQ(r.binding, "lock");
  const DesignConstraint& lock = r.all[0].constraints.back();
  EXPECT_EQ(lock.name, "lock");
  EXPECT_TRUE(std::isinf(lock.margin));
}

TEST(LockPower, TheDesignChargesTheLockToItsStaticPowerAndEnergyPerQuery) {
  PrismDesignSpec s = tiny_design();
  s.workload.tokens = 2048;
  s.workload.steps = 1;
  s.space.lock_precision = {Length::si(0.5e-12)};
  Context ctx;
  const DesignResult r = search_designs(s, ctx);
  ASSERT_EQ(r.candidates, 1u);
  ASSERT_TRUE(r.all[0].feasible) << r.all[0].removed_by;
  const DesignFigures& f = *r.all[0].figures;
  const AcceleratorSpec a = design_accelerator(s, r.all[0].variables);
  const CostReport c = cost(a);
  const double rings =
      c.banks * physical_rows(a) * a.interposer.chips * static_cast<double>(a.device.grid.channels);
  const LockPower p = lock_power(a, c.tuner.lock, c.thermal, rings);
  EXPECT_GT(f.lock_power, 0);
  EXPECT_DOUBLE_EQ(f.lock_power, p.power);
  EXPECT_DOUBLE_EQ(f.static_power, c.static_power_total + p.power);
  EXPECT_DOUBLE_EQ(f.energy_per_query, c.total_energy + p.power / c.system_qps);
}

}  // namespace
}  // namespace lightsim::prism
