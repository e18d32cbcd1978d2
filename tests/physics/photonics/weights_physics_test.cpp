// Weight programming: inversion of the real balanced response, DAC quantization and errors.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "lightsim/photonics/device.h"

namespace lightsim::photonics {
namespace {

DeviceSpec tfln_like(int bits) {
  DeviceSpec d;
  d.ring.q_loaded = 1e4;
  d.ring.extinction_ratio = Decibel::si(20.0);
  d.tuning.max_voltage = Voltage::si(70.0);
  d.dac.bits = bits;
  return d;
}

// Worst weight error of an ideal DAC: half a detuning step at the steepest slope.
double quantization_bound(const WeightProgrammer& p) {
  return 0.5 * p.detuning_lsb() * p.ring().max_weight_slope() * (1.0 + 1e-9) + 1e-12;
}

TEST(Weights, IdealDacAchievesTheRequestWithinHalfAStep) {
  for (int bits : {4, 6, 10, 16}) {
    const DeviceSpec d = tfln_like(bits);
    const WeightProgrammer prog(d);
    const DacInstance dac = DacInstance::ideal(d.dac);
    const double bound = quantization_bound(prog);
    for (double w = -0.9; w <= 0.9 + 1e-12; w += 0.05) {
      const ProgrammedWeight p = prog.program(w, dac);
      EXPECT_FALSE(p.out_of_range) << bits << " " << w;
      EXPECT_LE(std::abs(p.achieved - w), bound) << bits << " " << w;
      // Achieved weight is the physics at the achieved detuning.
      EXPECT_DOUBLE_EQ(p.achieved, prog.ring().weight(prog.ring().wavelength(), p.detuning));
    }
  }
  // 16 bits: the inversion itself is exact.
  const DeviceSpec d = tfln_like(16);
  const WeightProgrammer prog(d);
  EXPECT_NEAR(prog.program(0.3, DacInstance::ideal(d.dac)).achieved, 0.3, 1e-4);
}

TEST(Weights, GainErrorIsCorrectedByTheCalibrationTable) {
  DeviceSpec d = tfln_like(10);
  d.dac.gain_error = 0.05;
  const WeightProgrammer prog(d);
  DacInstance dac = DacInstance::ideal(d.dac);
  dac.gain = 1.05;            // +5% gain
  dac.calibrated_gain = 1.0;  // uncalibrated
  double worst_uncal = 0.0, worst_cal = 0.0;
  for (double w = -0.9; w <= 0.9; w += 0.1)
    worst_uncal = std::max(worst_uncal, std::abs(prog.program(w, dac).achieved - w));
  dac.calibrated_gain = 1.05;  // the table knows the gain
  for (double w = -0.9; w <= 0.9; w += 0.1)
    worst_cal = std::max(worst_cal, std::abs(prog.program(w, dac).achieved - w));
  EXPECT_GT(worst_uncal, 0.05);
  EXPECT_LE(worst_cal, quantization_bound(prog) * 1.06);
}

TEST(Weights, SampledDacErrorsStayWithinTheirSpecification) {
  DacSpec spec;
  spec.bits = 4;
  spec.inl = 1.2;
  spec.dnl = 0.5;
  spec.gain_error = 0.05;
  spec.calibration_residual = 0.01;
  for (std::uint64_t id = 0; id < 200; ++id) {
    RandomStream stream(7, {id});
    const DacInstance d = DacInstance::sample(spec, stream);
    EXPECT_LE(std::abs(d.gain - 1.0), 0.05);
    EXPECT_LE(std::abs(d.calibrated_gain - d.gain), 0.01);
    const double top = 15.0;
    for (std::size_t k = 0; k < d.code_error.size(); ++k) {
      EXPECT_LE(std::abs(d.code_error[k]), 1.2 + 0.25);
      if (k + 1 < d.code_error.size()) {
        EXPECT_LE(std::abs(d.code_error[k + 1] - d.code_error[k]),
                  0.5 + std::numbers::pi * 1.2 / top);
      }
    }
    // Deterministic: the same stream key gives the same DAC.
    RandomStream again(7, {id});
    EXPECT_EQ(DacInstance::sample(spec, again).code_error, d.code_error);
  }
}

TEST(Weights, DriftMovesTheAchievedWeightThroughTheRing) {
  const DeviceSpec d = tfln_like(16);
  const WeightProgrammer prog(d);
  const DacInstance dac = DacInstance::ideal(d.dac);
  // At the steepest point a drift of delta_t moves w by ~ slope * (d lambda/dT) delta_t.
  const double w0 =
      prog.ring().weight(prog.ring().wavelength(), prog.ring().max_weight_slope_detuning());
  const ProgrammedWeight p0 = prog.program(w0, dac);
  const ProgrammedWeight p1 = prog.program(w0, dac, 0.1);  // +0.1 K: +1.7 pm
  const double expected = prog.ring().max_weight_slope() * d.tuning.thermal_shift.si() * 0.1;
  EXPECT_NEAR(p1.achieved - p0.achieved, expected, 0.02 * expected);
}

TEST(Weights, HeaterTuningUsesNonNegativePowerAndFlagsUnreachableWeights) {
  DeviceSpec d = tfln_like(8);
  d.tuning.mechanism = TuningMechanism::thermo_optic;
  d.tuning.max_heater_power = Power::si(5e-3);
  d.tuning.heater_thermal_resistance = ThermalResistance::si(3600.0);
  d.tuning.thermal_shift = ThermalShift::si(69e-12);
  const WeightProgrammer prog(d);
  const DacInstance dac = DacInstance::ideal(d.dac);
  EXPECT_GE(prog.program(-0.9, dac).control, 0.0);
  EXPECT_NEAR(prog.program(0.5, dac).achieved, 0.5, quantization_bound(prog));
  EXPECT_TRUE(prog.program(1.0, dac).out_of_range);  // beyond the ring's w(FSR/2)
}

}  // namespace
}  // namespace lightsim::photonics
