// Recall under thermal drift: a zero drift state gives the no-drift scorer's recall exactly; a
// drift larger than the lock target, with the calibration on, leaves recall at least that of
// the same run uncalibrated; the figures are deterministic for a seed and any thread count.
#include <gtest/gtest.h>

#include "lightsim/prism/drift_recall.h"
#include "shipped_configs.h"

namespace lightsim::prism {
namespace {

AcceleratorSpec seed_fit() {
  return load_accelerator("seed_fit", testing::shipped_configs());
}

DriftRecallOptions small() {
  DriftRecallOptions o;
  o.tokens = 8192;  // 64 blocks of 128 tokens
  o.steps = 6;
  o.kv_heads = 2;
  o.k = {8, 32};
  return o;
}

DriftRun run_drift(const AcceleratorSpec& a, double duration_s) {
  DriftOptions d;
  d.duration = Time::si(duration_s);
  d.trace_interval = Time::si(10e-3);
  d.seed = 5;
  return simulate_drift(a.device, a.thermal, a.calibration, d);
}

TEST(DriftRecall, ZeroDriftGivesTheNoDriftScorersRecall) {
  AcceleratorSpec a = seed_fit();
  Context ctx(ContextOptions{.seed = 3, .threads = 1});
  const auto r = recall_under(a, {{}, photonics::ImpairmentSpec{}}, small(), ctx);
  for (std::size_t ki = 0; ki < 2; ++ki) EXPECT_EQ(r[0][ki], r[1][ki]);

  // A run with every drift source off and no initial error, locked noiselessly to +-0.05 pm:
  // its state holds only that lock residual and the supply noise (0.004 pm), a hundredth of the
  // ring's 6 pm line width, so recall stays within a few blocks of the ideal's.
  a.calibration.target = Length::si(0.05e-12);
  a.calibration.measurement_noise = Length::si(0.0);
  a.thermal.ambient_swing = TemperatureDelta::si(0.0);
  a.thermal.ambient_walk = TemperatureWalk::si(0.0);
  a.thermal.local_walk = TemperatureWalk::si(0.0);
  a.thermal.ring_walk = LengthWalk::si(0.0);
  a.calibration.initial_error = Length::si(0.0);
  a.device.requirements.fabrication_trim = Length::si(0.0);
  const DriftRun run = run_drift(a, 0.1);
  ASSERT_TRUE(run.feasible) << run.reason;
  EXPECT_LE(run.impairments.calibration_residual.si(), 0.05e-12);
  EXPECT_LT(run.impairments.drift_local_sigma.si(), 0.01e-12);
  EXPECT_LT(run.impairments.drift_global_sigma.si(), 0.01e-12);
  const DriftRecall dr = drift_recall(a, run, small(), ctx);
  for (const RecallAtK& x : dr.recall) {
    EXPECT_NEAR(x.calibrated, x.ideal, 0.05) << x.k;
    EXPECT_GT(x.ideal, 0.0);
  }
}

// The lock leaves each ring within +-target plus what drifted since its last lock; without it
// the ring keeps its whole initial error and drift, which here exceed the target several
// times. A larger resonance error moves more weights, so fewer exact top-k blocks survive.
// Every other impairment off and 24-bit weights and queries (the scorer's acceptance setting,
// scorer_test.cpp), so the ideal recall is 1 and what is lost is the drift's.
TEST(DriftRecall, CalibrationRecoversRecallWhenDriftExceedsTheLockTarget) {
  AcceleratorSpec a = seed_fit();
  a.impairments.crosstalk = false;
  a.impairments.quantization = false;
  a.impairments.dac_errors = false;
  a.impairments.noise = false;
  a.programming.weight_bits = 24;
  a.electronics.query_bits = 24;
  a.calibration.initial_error = Length::si(20e-12);  // > 2 pm target, inside +-37.5 pm
  a.thermal.ring_walk = LengthWalk::si(3e-12);
  const DriftRun run = run_drift(a, 0.5);
  ASSERT_TRUE(run.feasible) << run.reason;
  const double target = a.calibration.target.si();
  EXPECT_GT(run.uncalibrated.fabrication_sigma.si(), 2 * target);
  EXPECT_LT(run.impairments.calibration_residual.si(), target);
  Context ctx(ContextOptions{.seed = 3, .threads = 1});
  const DriftRecall dr = drift_recall(a, run, small(), ctx);
  ASSERT_EQ(dr.recall.size(), 2u);
  EXPECT_EQ(dr.blocks, 64);
  for (const RecallAtK& x : dr.recall) {
    EXPECT_GE(x.calibrated, x.uncalibrated) << x.k;
    EXPECT_LE(x.calibrated, 1.0);
  }
  EXPECT_DOUBLE_EQ(dr.recall[0].ideal, 1.0);
  // The uncalibrated error is large enough to cost recall at k = 8.
  EXPECT_LT(dr.recall[0].uncalibrated, dr.recall[0].ideal);
}

TEST(DriftRecall, DeterministicForASeedAndAnyThreadCount) {
  AcceleratorSpec a = seed_fit();
  a.calibration.initial_error = Length::si(20e-12);
  const DriftRun run = run_drift(a, 0.2);
  Context one(ContextOptions{.seed = 3, .threads = 1});
  Context two(ContextOptions{.seed = 3, .threads = 2});
  const DriftRecall x = drift_recall(a, run, small(), one);
  const DriftRecall y = drift_recall(a, run, small(), two);
  for (std::size_t i = 0; i < x.recall.size(); ++i) {
    EXPECT_EQ(x.recall[i].ideal, y.recall[i].ideal);
    EXPECT_EQ(x.recall[i].calibrated, y.recall[i].calibrated);
    EXPECT_EQ(x.recall[i].uncalibrated, y.recall[i].uncalibrated);
  }
}

}  // namespace
}  // namespace lightsim::prism
