// Drift simulation against analytic limits: self-heating through R_pkg, the loops' suppression,
// random-walk growth, sensor correction, relock counts and determinism.
#include <cmath>

#include <gtest/gtest.h>

#include "lightsim/photonics/device.h"
#include "lightsim/prism/thermal.h"

namespace lightsim::prism {
namespace {

constexpr double kPm = 1e-12;

// The default device with a realizable ring (Q 1e4, 20 dB extinction).
photonics::DeviceSpec small_device() {
  photonics::DeviceSpec d;
  d.ring.q_loaded = 1e4;
  d.ring.extinction_ratio = Decibel::si(20.0);
  return d;
}

// A small TFLN bank, every random source off, relocks off.
struct Quiet {
  photonics::DeviceSpec device;
  ThermalSpec thermal;
  CalibrationSpec cal;
  DriftOptions options;
  Quiet() {
    device = small_device();
    device.bank.rows = 32;
    device.grid.channels = 8;
    thermal.ambient_swing = TemperatureDelta::si(0.0);
    thermal.ambient_walk = TemperatureWalk::si(0.0);
    thermal.local_walk = TemperatureWalk::si(0.0);
    thermal.ring_walk = LengthWalk::si(0.0);
    cal.measurement_noise = Length::si(0.0);
    cal.trigger = RecalibrationTrigger::periodic;
    cal.interval = Time::si(1e6);
    options.duration = Time::si(2.0);
    options.heat = Power::si(0.2);  // chip heat at the operating point (cost model's figure)
  }
};

TEST(ThermalDrift, SelfHeatingWithoutTecFollowsPackageResistance) {
  Quiet q;
  q.thermal.tec.enabled = false;
  q.options.load_step = Power::si(2.0);  // at t = 1 s; tau = 0.5 K/W x 0.2 J/K = 0.1 s
  const DriftRun run = simulate_drift(q.device, q.thermal, q.cal, q.options);
  const double heat = q.options.heat.si();
  EXPECT_NEAR(run.steady.chip, 25.0 + 0.6 * heat, 1e-12);
  const DriftSample& end = run.trace.back();
  // After 10 time constants: R_pkg dP above the start.
  EXPECT_NEAR(end.chip - run.steady.chip, 0.5 * 2.0, 1e-3);
  // Every ring moves by (d lambda/dT) R dP, uncorrected (no relock, no TEC).
  EXPECT_NEAR(end.uncorrected_rms, 17e-12 * 1.0, 0.02 * kPm);
  // One time constant after the step: 1 - 1/e of the rise.
  const DriftSample& tau = run.trace[100 + 10];
  EXPECT_NEAR(tau.chip - run.steady.chip, 1.0 * (1.0 - std::exp(-1.0)), 0.02);
}

TEST(ThermalDrift, TecSuppressesSelfHeatingAndAmbient) {
  Quiet q;
  q.options.load_step = Power::si(2.0);
  q.thermal.ambient_swing = TemperatureDelta::si(1.0);
  q.thermal.ambient_period = Time::si(2.0);
  const DriftRun run = simulate_drift(q.device, q.thermal, q.cal, q.options);
  double worst = 0.0, worst_ambient = 0.0;
  for (const DriftSample& s : run.trace) {
    worst = std::max(worst, std::abs(s.chip - run.steady.chip));
    worst_ambient = std::max(worst_ambient, std::abs(s.ambient - 25.0));
  }
  EXPECT_NEAR(worst_ambient, 1.0, 0.01);
  EXPECT_LT(worst, 0.5);  // both loops act: far less than the 1 K swing + 1 K self-heating
  EXPECT_GT(worst, 0.0);
  EXPECT_GT(run.trace.back().fine_action, 0.5);  // the fine loop carries the load step
}

TEST(ThermalDrift, RingRandomWalkGrowsAsSqrtTime) {
  Quiet q;
  q.device.bank.rows = 256;
  q.thermal.ring_walk = LengthWalk::si(1e-12);  // 1 pm/sqrt(s)
  q.options.duration = Time::si(4.0);
  const DriftRun run = simulate_drift(q.device, q.thermal, q.cal, q.options);
  // 2048 rings: the sample rms is within a few % of sigma sqrt(t).
  EXPECT_NEAR(run.trace.back().uncorrected_rms, 2.0 * kPm, 0.1 * kPm);
  EXPECT_NEAR(run.trace[100].uncorrected_rms, 1.0 * kPm, 0.05 * kPm);
}

TEST(ThermalDrift, SensorsCorrectRegionalTemperatureDrift) {
  Quiet q;
  q.thermal.local_walk = TemperatureWalk::si(0.5);  // large gradients
  q.thermal.sensors.resolution = TemperatureDelta::si(0.001);
  const DriftRun run = simulate_drift(q.device, q.thermal, q.cal, q.options);
  const DriftSample& end = run.trace.back();
  EXPECT_GT(end.uncorrected_rms, 5 * kPm);  // 17 pm/K x 0.5 K/sqrt(s) x sqrt(2 s)
  // Corrected: lock residual + sensor staleness and resolution only.
  EXPECT_LT(end.error_max, q.cal.target.si() + 1.0 * kPm);
}

TEST(ThermalDrift, PeriodicRelocksAndTemperatureTrigger) {
  Quiet q;
  q.cal.interval = Time::si(0.5);
  DriftRun run = simulate_drift(q.device, q.thermal, q.cal, q.options);
  ASSERT_EQ(run.events.size(), 5u);  // initial + 4 periodic in 2 s
  EXPECT_EQ(run.events[1].trigger, "periodic");
  EXPECT_NEAR(run.events[1].t, 0.5, 1e-9);
  EXPECT_EQ(run.events[1].rows, 32);
  q.cal.trigger = RecalibrationTrigger::temperature;
  q.cal.temperature_threshold = TemperatureDelta::si(0.05);
  q.thermal.local_walk = TemperatureWalk::si(0.2);
  run = simulate_drift(q.device, q.thermal, q.cal, q.options);
  EXPECT_GT(run.events.size(), 1u);
  EXPECT_EQ(run.events[1].trigger, "temperature");
}

TEST(ThermalDrift, DriftBeyondTheTuningRangeFailsTheLock) {
  Quiet q;
  q.device.tuning.max_voltage = Voltage::si(4.0);  // +-10 pm of correction
  q.thermal.tec.enabled = false;
  q.options.load_step = Power::si(4.0);  // 2 K -> 34 pm
  q.cal.interval = Time::si(1.5);
  const DriftRun run = simulate_drift(q.device, q.thermal, q.cal, q.options);
  ASSERT_GE(run.events.size(), 2u);
  EXPECT_EQ(run.events[0].failed, 0);
  EXPECT_EQ(run.events[1].failed, 32 * 8);
  EXPECT_EQ(run.trace.back().unlocked, 32 * 8);
}

TEST(ThermalDrift, DeterministicForASeed) {
  Quiet q;
  q.thermal = ThermalSpec{};
  q.options.duration = Time::si(0.5);
  const DriftRun a = simulate_drift(q.device, q.thermal, q.cal, q.options);
  const DriftRun b = simulate_drift(q.device, q.thermal, q.cal, q.options);
  ASSERT_EQ(a.trace.size(), b.trace.size());
  for (std::size_t i = 0; i < a.trace.size(); ++i) {
    EXPECT_EQ(a.trace[i].chip, b.trace[i].chip);
    EXPECT_EQ(a.trace[i].error_rms, b.trace[i].error_rms);
  }
  q.options.seed = 9;
  const DriftRun c = simulate_drift(q.device, q.thermal, q.cal, q.options);
  EXPECT_NE(a.trace.back().error_rms, c.trace.back().error_rms);
}

TEST(ThermalDrift, ElectricalImpairmentsFromFirstPrinciples) {
  photonics::DeviceSpec dev = small_device();  // Pockels 2.5 pm/V, TIA 1 GHz, 10 ns window
  ThermalSpec spec;
  const ElectricalImpairments e = electrical_impairments(dev, spec, operating_point(dev, {}));
  EXPECT_NEAR(e.supply_sigma, 10e-3 / 6.0, 1e-15);
  EXPECT_NEAR(e.resonance_sigma, 2.5e-12 * 10e-3 / 6.0, 1e-20);
  EXPECT_NEAR(e.integration_error, std::sqrt(2.0) * 200e-15 / 10e-9, 1e-12);
  EXPECT_NEAR(e.sine_snr_db, -20.0 * std::log10(2.0 * M_PI * 1e9 * 200e-15), 1e-9);
  dev.tuning.mechanism = photonics::TuningMechanism::thermo_optic;
  const TunerOperatingPoint op = operating_point(dev, {});
  const ElectricalImpairments h = electrical_impairments(dev, spec, op);
  // P = V^2 / R: dP/dV = 2 sqrt(P_op P_max) / V_drive at the operating point; at P_max / 2
  // this is sqrt(2) P_max / V_drive.
  const double slope = 3600.0 * 17e-12;  // m/W
  EXPECT_NEAR(h.resonance_sigma, slope * 2.0 * std::sqrt(op.power * 20e-3) / 3.3 * (10e-3 / 6.0),
              1e-18);
  TunerOperatingPoint mid = op;
  mid.power = 10e-3;
  EXPECT_NEAR(electrical_impairments(dev, spec, mid).resonance_sigma,
              slope * std::sqrt(2.0) * 20e-3 / 3.3 * (10e-3 / 6.0), 1e-18);
}

}  // namespace
}  // namespace lightsim::prism

namespace lightsim::prism {
namespace {

// A TEC that cannot pump the chip's heat ends the run with the reason; nothing is simulated
// under a setpoint it cannot hold (issue #5: a result, not a clamp).
TEST(ThermalDrift, InfeasibleTecAtTheStartStopsBeforeAnyLock) {
  Quiet q;
  q.options.heat = Power::si(500.0);
  const DriftRun run = simulate_drift(q.device, q.thermal, q.cal, q.options);
  ASSERT_FALSE(run.steady.feasible);
  EXPECT_FALSE(run.feasible);
  EXPECT_NE(run.reason.find("at t = 0 s"), std::string::npos) << run.reason;
  EXPECT_NE(run.reason.find(run.steady.reason), std::string::npos) << run.reason;
  EXPECT_TRUE(run.trace.empty());
  EXPECT_TRUE(run.events.empty());
}

TEST(ThermalDrift, LoadStepBeyondTheTecStopsTheRunThere) {
  Quiet q;
  q.options.load_step = Power::si(500.0);  // from t = 1 s
  const DriftRun run = simulate_drift(q.device, q.thermal, q.cal, q.options);
  ASSERT_TRUE(run.steady.feasible);
  EXPECT_FALSE(run.feasible);
  EXPECT_NE(run.reason.find("at t = 1 s"), std::string::npos) << run.reason;
  // Samples t = 0 .. 0.99 s every 10 ms, none at or after the step.
  ASSERT_EQ(run.trace.size(), 100u);
  EXPECT_LT(run.trace.back().t, 1.0);
}

TEST(ThermalDrift, FeasibleRunIsMarkedFeasible) {
  Quiet q;
  const DriftRun run = simulate_drift(q.device, q.thermal, q.cal, q.options);
  EXPECT_TRUE(run.feasible);
  EXPECT_TRUE(run.reason.empty());
  EXPECT_EQ(run.trace.size(), 201u);
}

}  // namespace
}  // namespace lightsim::prism
