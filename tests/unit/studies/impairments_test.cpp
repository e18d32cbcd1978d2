// The impairments study's mapping from axes to the accelerator, and drift calibration.
#include "lightsim/studies/impairments.h"

#include <cmath>
#include <filesystem>

#include <gtest/gtest.h>

#include "lightsim/photonics/wdm.h"
#include "lightsim/prism/calibration.h"
#include "shipped_configs.h"

namespace lightsim::studies {
namespace {

// Knobs with one axis set (designated initializers would warn about the others).
// The seed's machine on the feasible TFLN device (configs/accelerators/seed_fit.yaml).
prism::AcceleratorSpec seed_fit() {
  return prism::load_accelerator("seed_fit", testing::shipped_configs());
}

template <class F>
ImpairmentKnobs knobs(F set) {
  ImpairmentKnobs k;
  set(k);
  return k;
}

TEST(ImpairedAccelerator, NoKnobsIsTheIdealMachine) {
  prism::AcceleratorSpec base = seed_fit();
  base.impairments.drift_local_sigma = Length::si(30e-12);
  const prism::AcceleratorSpec a = impaired_accelerator(base, {}, 16);
  const photonics::ImpairmentSpec& i = a.impairments;
  EXPECT_FALSE(i.crosstalk || i.quantization || i.dac_errors || i.noise || i.heater_crosstalk);
  EXPECT_EQ(i.drift_local_sigma.si(), 0.0);
  EXPECT_EQ(i.calibration_residual.si(), 0.0);
  EXPECT_EQ(a.programming.weight_bits, 16);
  EXPECT_EQ(a.electronics.query_bits, 16);
}

TEST(ImpairedAccelerator, BitsSetWeightsAndDacWithQuantization) {
  prism::AcceleratorSpec base = seed_fit();
  base.electronics.query_bits = 8;
  const prism::AcceleratorSpec a =
      impaired_accelerator(base, knobs([](auto& k) { k.bits = 5; }), 16);
  EXPECT_EQ(a.programming.weight_bits, 5);
  EXPECT_EQ(a.device.dac.bits, 5);
  EXPECT_EQ(a.electronics.query_bits, 8);
  EXPECT_TRUE(a.impairments.quantization);
  EXPECT_FALSE(a.impairments.noise);
}

// The spacing chosen for an isolation X gives a Lorentzian neighbour leak of exactly X, and the
// exact leak of channel 1 into ring 0 (all FSR orders, one dominating) is close to it.
TEST(ImpairedAccelerator, CrosstalkSetsSpacingFromTheLorentzianTail) {
  const prism::AcceleratorSpec base = seed_fit();
  for (double x : {-15.0, -20.0, -30.0}) {
    const prism::AcceleratorSpec a =
        impaired_accelerator(base, knobs([x](auto& k) { k.crosstalk = Decibel::si(x); }), 16);
    EXPECT_TRUE(a.impairments.crosstalk);
    const photonics::Ring ring = photonics::ring_of(a.device);
    const double iso = photonics::lorentzian_isolation(ring.fwhm(), a.device.grid.spacing.si());
    EXPECT_NEAR(10 * std::log10(iso), x, 1e-9);
    photonics::GridSpec two = a.device.grid;
    two.channels = 2;
    const auto m = photonics::crosstalk_matrix(ring, photonics::channel_wavelengths(two));
    EXPECT_NEAR(10 * std::log10(m.at(0, 1) / m.drop_peak), x, 1.0);
  }
}

TEST(ImpairedAccelerator, NoiseAxesTurnDetectionNoiseOn) {
  const prism::AcceleratorSpec base = seed_fit();
  const auto a =
      impaired_accelerator(base, knobs([](auto& k) { k.nep = PowerNoiseDensity::si(7e-12); }), 16);
  EXPECT_TRUE(a.impairments.noise);
  EXPECT_DOUBLE_EQ(a.device.detector.nep.si(), 7e-12);
  const auto b =
      impaired_accelerator(base, knobs([](auto& k) { k.splitter_excess = Decibel::si(0.3); }), 16);
  EXPECT_TRUE(b.impairments.noise);
  EXPECT_DOUBLE_EQ(b.device.path.splitter_excess.si(), 0.3);
}

TEST(ImpairedAccelerator, CalibrationResidualReplacesDrift) {
  const prism::AcceleratorSpec base = seed_fit();
  ImpairmentKnobs k;
  k.drift = Length::si(40e-12);
  k.calibration_residual = Length::si(1e-12);
  const auto a = impaired_accelerator(base, k, 16);
  EXPECT_EQ(a.impairments.drift_local_sigma.si(), 0.0);
  EXPECT_DOUBLE_EQ(a.impairments.calibration_residual.si(), 1e-12);
}

// Drift well inside the tuner's range locks to within the target; drift far beyond it leaves
// failed rings whose raw offsets dominate the residual.
TEST(CalibrateDrift, LocksSmallDriftAndReportsFailures) {
  const prism::AcceleratorSpec acc = seed_fit();  // TFLN: Pockels tuning
  const prism::LockRange range = prism::lock_range(acc.device.tuning);
  const double reach = std::min(-range.lo, range.hi);
  ASSERT_GT(reach, 0.0);
  const DriftCalibration small = calibrate_drift(acc, Length::si(reach / 20), 16, 1);
  EXPECT_EQ(small.failed, 0);
  EXPECT_EQ(small.rings, 16 * acc.device.grid.channels);
  EXPECT_LE(small.residual_rms, acc.calibration.target.si() * 1.5);
  const DriftCalibration big = calibrate_drift(acc, Length::si(reach * 5), 16, 1);
  EXPECT_GT(big.failed, 0);
  EXPECT_GT(big.residual_rms, reach);
}

}  // namespace
}  // namespace lightsim::studies
