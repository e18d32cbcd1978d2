// Binary-search bias lock: convergence within the bound, failure with a reason, crosstalk.
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "lightsim/photonics/device.h"
#include "lightsim/prism/calibration.h"
#include "lightsim/prism/operating_point.h"

namespace lightsim::prism {
namespace {

constexpr double kPm = 1e-12;

photonics::DeviceSpec small_device() {
  photonics::DeviceSpec d;
  d.ring.q_loaded = 1e4;
  d.ring.extinction_ratio = Decibel::si(20.0);
  return d;
}

CalibrationSpec noiseless() {
  CalibrationSpec c;
  c.measurement_noise = Length::si(0.0);
  return c;
}

TEST(CalibrationLock, EveryOffsetInRangeLocksWithinTargetAndBound) {
  const CalibrationSpec spec = noiseless();
  const LockRange range{-175 * kPm, 175 * kPm};
  RandomStream noise(1, {1});
  int max_iter = 0;
  for (int k = -1000; k <= 1000; ++k) {
    const double offset = 0.17 * k * kPm;  // -170 .. +170 pm
    const LockResult r = lock_ring(spec, range, offset, noise);
    ASSERT_TRUE(r.locked) << offset << ": " << r.reason;
    EXPECT_LE(std::abs(r.residual), spec.target.si()) << offset;
    EXPECT_LE(r.iterations, spec.max_iterations);
    EXPECT_NEAR(r.residual, offset + r.correction, 1e-18);
    max_iter = std::max(max_iter, r.iterations);
  }
  // 350 pm to a width under 4 pm: 7 halvings (+ an edge reading at most).
  EXPECT_GE(max_iter, 7);
  EXPECT_LE(max_iter, 8);
}

TEST(CalibrationLock, OffsetBeyondTheRangeFailsWithAReason) {
  const CalibrationSpec spec = noiseless();
  const LockRange range{-20 * kPm, 20 * kPm};
  RandomStream noise(1, {2});
  for (double offset : {25 * kPm, -40 * kPm, 300 * kPm}) {
    const LockResult r = lock_ring(spec, range, offset, noise);
    EXPECT_FALSE(r.locked) << offset;
    EXPECT_NE(r.reason.find("outside the tuner's correction range"), std::string::npos) << r.reason;
    EXPECT_LE(r.iterations, spec.max_iterations);
  }
  // Just inside the range (within the target of an edge) still locks.
  EXPECT_TRUE(lock_ring(spec, range, 21.5 * kPm, noise).locked);
}

TEST(CalibrationLock, IterationBoundAndDacResolutionAreChecked) {
  CalibrationSpec spec = noiseless();
  spec.max_iterations = 3;
  RandomStream noise(1, {3});
  LockResult r = lock_ring(spec, {-175 * kPm, 175 * kPm}, 0.0, noise);
  EXPECT_FALSE(r.locked);
  EXPECT_NE(r.reason.find("the bound is 3"), std::string::npos) << r.reason;
  spec = noiseless();
  spec.bias_dac_bits = 4;  // 350 pm / 15 codes = 23 pm steps, coarser than +-2 pm
  r = lock_ring(spec, {-175 * kPm, 175 * kPm}, 0.0, noise);
  EXPECT_FALSE(r.locked);
  EXPECT_NE(r.reason.find("too coarse"), std::string::npos) << r.reason;
}

TEST(CalibrationLock, MeasurementNoiseWidensTheResidual) {
  CalibrationSpec spec;
  spec.measurement_noise = Length::si(1.5 * kPm);
  RandomStream noise(7, {4});
  const LockRange range{-175 * kPm, 175 * kPm};
  int outside = 0;
  for (int k = 0; k < 2000; ++k) {
    const LockResult r = lock_ring(spec, range, (k % 200 - 100) * 1.3 * kPm, noise);
    if (std::abs(r.residual) > spec.target.si()) ++outside;
  }
  EXPECT_GT(outside, 0);  // misread signs near the end push some rings past the target
}

TEST(CalibrationLock, BankLocksEveryRingAndHandsItsResidualToPhotonics) {
  photonics::DeviceSpec dev = small_device();
  dev.bank.rows = 16;
  dev.grid.channels = 8;
  const CalibrationSpec spec = noiseless();
  std::vector<double> offsets(16 * 8);
  RandomStream s(3, {5});
  for (auto& o : offsets) o = (2.0 * s.uniform() - 1.0) * 20 * kPm;  // range +-25 pm
  const CalibrationReport rep = calibrate_bank(dev, spec, offsets, 11);
  EXPECT_EQ(rep.locked, 128);
  EXPECT_EQ(rep.failed, 0);
  EXPECT_LE(rep.residual_max, spec.target.si());
  EXPECT_LE(rep.max_iterations, spec.max_iterations);
  // Rows in parallel, rings of a row in sequence.
  EXPECT_LE(rep.time, 8 * rep.max_iterations * spec.iteration_time.si() + 1e-15);
  EXPECT_NEAR(rep.energy, rep.mean_iterations * 128 * spec.iteration_energy.si(), 1e-18);
  const photonics::ImpairmentSpec imp = with_calibration({}, rep);
  EXPECT_DOUBLE_EQ(imp.calibration_residual.si(), rep.residual_rms);
  // Deterministic for a seed.
  EXPECT_EQ(calibrate_bank(dev, spec, offsets, 11).residual_rms, rep.residual_rms);
}

// A heater row with thermal crosstalk c = 0.1 and +-300 pm of fabrication error. Its
// operating point must leave each ring's own heater enough power to correct the margin towards
// blue: with sharing an inside ring's heater holds only (1 - c)/(1 + c) of its shift, so at the
// middle of the weight range (bias 0) it does not, and the operating point names the least bias
// that does.
photonics::DeviceSpec crosstalk_row(double crosstalk) {
  photonics::DeviceSpec dev = small_device();
  dev.bank.rows = 4;
  dev.grid.channels = 16;
  dev.tuning.mechanism = photonics::TuningMechanism::thermo_optic;
  dev.tuning.thermal_shift = ThermalShift::si(69e-12);
  dev.tuning.heater_thermal_resistance = ThermalResistance::si(3600.0);
  dev.tuning.max_heater_power = Power::si(10e-3);
  dev.requirements.fabrication_trim = Length::si(300e-12);
  dev.tuning.thermal_crosstalk = crosstalk;
  return dev;
}

std::vector<double> fabrication_offsets(std::size_t n) {
  std::vector<double> offsets(n);
  RandomStream s(3, {6});
  for (auto& o : offsets) o = (2.0 * s.uniform() - 1.0) * 300 * kPm;
  return offsets;
}

TEST(CalibrationLock, ThermalCrosstalkNeedsMoreSweeps) {
  CalibrationSpec spec = noiseless();
  const TunerOperatingPoint middle = operating_point(crosstalk_row(0.1), spec);
  ASSERT_FALSE(middle.covers);
  ASSERT_GT(middle.covering_bias, 0.0) << middle.reason;
  ASSERT_LE(middle.covering_bias, 1.0);
  spec.heater_bias = middle.covering_bias;
  const TunerOperatingPoint op = operating_point(crosstalk_row(0.1), spec);
  ASSERT_TRUE(op.covers) << op.reason;
  EXPECT_LE(op.lock.lo, -300 * kPm);
  EXPECT_NEAR(op.power, middle.covering_power, 1e-15);
  const std::vector<double> offsets = fabrication_offsets(64);
  const CalibrationReport alone = calibrate_bank(crosstalk_row(0.0), spec, offsets, 1);
  const CalibrationReport coupled = calibrate_bank(crosstalk_row(0.1), spec, offsets, 1);
  EXPECT_EQ(alone.sweeps, 1);
  EXPECT_EQ(alone.failed, 0) << alone.first_failure;
  EXPECT_GT(coupled.sweeps, 1);
  EXPECT_EQ(coupled.failed, 0) << coupled.first_failure;
  EXPECT_LE(coupled.residual_max, spec.target.si() + 1e-15);
  EXPECT_GT(coupled.heater_power, 0.0);
}

// At bias 0 the same row's own heaters cannot take every ring fabricated too red back to its
// target: those rings fail, each with the reason, and the rest lock.
TEST(CalibrationLock, AnOperatingPointShortOfTheMarginFailsRingsWithAReason) {
  const CalibrationSpec spec = noiseless();
  const photonics::DeviceSpec dev = crosstalk_row(0.1);
  const TunerOperatingPoint op = operating_point(dev, spec);
  ASSERT_FALSE(op.covers);
  EXPECT_NE(op.reason.find("short of the"), std::string::npos) << op.reason;
  EXPECT_GT(op.lock.lo, -300 * kPm);
  const CalibrationReport rep = calibrate_bank(dev, spec, fabrication_offsets(64), 1);
  EXPECT_GT(rep.failed, 0);
  EXPECT_GT(rep.locked, 0);
  EXPECT_NE(rep.first_failure.find("outside the tuner's correction range"), std::string::npos)
      << rep.first_failure;
}

}  // namespace
}  // namespace lightsim::prism
