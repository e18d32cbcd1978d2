// One heater operating point for calibration and cost: the cost model's static heater power is
// N_rings x the operating-point power (the photonics holding power, thermal sharing solved
// exactly), which has a closed form in the configuration, and the calibration holds the same
// power; both move with the bias point.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "lightsim/core/rng.h"
#include "lightsim/photonics/weights.h"
#include "lightsim/prism/calibration.h"
#include "lightsim/prism/cost.h"
#include "lightsim/prism/operating_point.h"
#include "shipped_configs.h"

namespace lightsim::prism {
namespace {

AcceleratorSpec soi() {
  return load_accelerator("soi", testing::shipped_configs());
}

double static_tuning(const CostReport& r) {
  for (const CostItem& c : r.static_power)
    if (c.name == "static_tuning") return c.value;
  return -1.0;
}

// P_op = (delta(b w) - delta(-w) + trim + (d lambda/dT) stability) / (R_th d lambda/dT).
double closed_form_power(const photonics::DeviceSpec& dev, double bias) {
  const photonics::Ring ring = photonics::ring_of(dev);
  const double w = std::min({dev.requirements.weight_range, -ring.weight_min(), ring.weight_max()});
  const double kappa = dev.tuning.thermal_shift.si();
  const double margin =
      dev.requirements.fabrication_trim.si() + kappa * dev.tuning.temperature_stability.si();
  const double shift = *ring.detuning_for_weight(bias * w) - *ring.detuning_for_weight(-w) + margin;
  return shift / (dev.tuning.heater_thermal_resistance.si() * kappa);
}

// With every ring of a row held at one shift S (closed_form_power: S / slope), K P = S/slope 1
// for K_jk = c^|j-k|, whose inverse is tridiagonal (an AR(1) correlation matrix):
// K^-1 = (1 / (1 - c^2)) tridiag(-c, 1 + c^2, -c) with 1 at both corner diagonals. So P_j =
// S/slope (1 - c)/(1 + c) inside the row and S/slope / (1 + c) at its two ends.
struct SharedPower {
  double inside, end, mean;
};
SharedPower shared_power(const photonics::DeviceSpec& dev, double bias) {
  const double p0 = closed_form_power(dev, bias);
  const double c = dev.tuning.thermal_crosstalk;
  const double n = dev.grid.channels;
  SharedPower s{p0 * (1 - c) / (1 + c), p0 / (1 + c), 0.0};
  s.mean = (2 * s.end + (n - 2) * s.inside) / n;
  return s;
}

TEST(OperatingPoint, HeaterPowerHasItsClosedForm) {
  const AcceleratorSpec a = soi();
  for (double bias : {-1.0, 0.0, 0.5, 1.0}) {
    CalibrationSpec cal = a.calibration;
    cal.heater_bias = bias;
    const TunerOperatingPoint op = operating_point(a.device, cal);
    ASSERT_TRUE(op.heater);
    const SharedPower sp = shared_power(a.device, bias);
    ASSERT_EQ(op.ring_power.size(), static_cast<std::size_t>(a.device.grid.channels));
    EXPECT_NEAR(op.ring_power.front(), sp.end, 1e-12 * sp.end) << bias;
    EXPECT_NEAR(op.ring_power.back(), sp.end, 1e-12 * sp.end) << bias;
    for (std::size_t j = 1; j + 1 < op.ring_power.size(); ++j)
      EXPECT_NEAR(op.ring_power[j], sp.inside, 1e-12 * sp.end) << bias << " ring " << j;
    EXPECT_NEAR(op.power, sp.mean, 1e-12 * sp.mean) << bias;
    EXPECT_GT(op.power, 0.0);
    EXPECT_LT(op.power, a.device.tuning.max_heater_power.si());
    // Each ring's own heater goes from 0 to P_max: the least-powered ring (inside) sets the
    // blue side of the lock, the most-powered (the ends) its red side.
    const double slope = photonics::tuning_slope(a.device.tuning);
    EXPECT_NEAR(op.lock.lo, -sp.inside * slope, 1e-18);
    EXPECT_NEAR(op.lock.hi, (a.device.tuning.max_heater_power.si() - sp.end) * slope, 1e-18);
    EXPECT_NEAR(op.lock.hi - op.lock.lo, op.span - (sp.end - sp.inside) * slope, 1e-18);
    // Covered only when each ring's own heater can make the corrections independent offsets
    // of up to +-margin ask of it: ||K^-1||_inf x margin = (1 + c)/(1 - c) x 334.5 pm for SOI's
    // c = 0.1. An inside ring's own heater also holds only (1 - c)/(1 + c) of its shift, so the
    // blue side falls short at every bias up to 1 (reported, with the rest point that covers).
    const double c = a.device.tuning.thermal_crosstalk;
    EXPECT_NEAR(op.correction_reach, (1 + c) / (1 - c) * op.margin, 1e-12 * op.margin);
    EXPECT_EQ(op.covers, op.lock.lo <= -op.correction_reach && op.lock.hi >= op.correction_reach)
        << bias;
    EXPECT_FALSE(op.covers) << bias;
    EXPECT_NE(op.reason.find("short of the"), std::string::npos) << op.reason;
    if (bias < 1.0) {
      EXPECT_LT(op.covering_bias, 0.0) << op.reason;  // none up to 1
      EXPECT_NE(op.reason.find("no calibration.heater_bias up to 1"), std::string::npos);
      // The bluer rest point: holding powers scale with the shift until the least-powered
      // ring's own heater reaches the correction.
      const double scale = op.correction_reach / (sp.inside * slope);
      EXPECT_NEAR(op.rest_power, sp.mean * scale, 1e-9 * sp.mean) << bias;
      EXPECT_NEAR(op.rest_shortfall, (scale - 1) * sp.inside * slope * (1 + c) / (1 - c), 1e-18)
          << bias;
    }
    // Same rest point as the photonics weight programmer.
    EXPECT_DOUBLE_EQ(op.rest, photonics::WeightProgrammer(a.device).rest_detuning());
  }
}

TEST(OperatingPoint, CostChargesRingsTimesTheCalibrationsOperatingPower) {
  AcceleratorSpec a = soi();
  double previous = -1.0;
  for (double bias : {-0.5, 0.0, 0.5}) {
    a.calibration.heater_bias = bias;
    const double p_op = operating_point(a.device, a.calibration).power;
    const CostReport r = cost(a, 0.0);
    const double rings = static_cast<double>(r.banks) * physical_rows(a) * a.interposer.chips *
                         a.device.grid.channels;
    EXPECT_NEAR(static_tuning(r), rings * p_op, 1e-9 * rings * p_op) << bias;
    EXPECT_NEAR(static_tuning(r), rings * shared_power(a.device, bias).mean, 1e-6) << bias;
    // A bias towards positive weights needs more heat (the heater only red-shifts).
    EXPECT_GT(static_tuning(r), previous) << bias;
    previous = static_tuning(r);

    // The calibration holds the same power: a bank with no resonance error locks with
    // corrections within the target, so its heaters draw N x P_op within N x target / slope.
    photonics::DeviceSpec dev = a.device;
    dev.bank.rows = 8;
    CalibrationSpec cal = a.calibration;
    cal.measurement_noise = Length::si(0.0);
    const std::vector<double> zero(8 * static_cast<std::size_t>(dev.grid.channels), 0.0);
    const CalibrationReport rep = calibrate_bank(dev, cal, zero, 1);
    ASSERT_EQ(rep.failed, 0) << rep.first_failure;
    const double n = static_cast<double>(zero.size());
    const double slope = photonics::tuning_slope(dev.tuning);
    EXPECT_NEAR(rep.heater_power, n * p_op, n * cal.target.si() / slope) << bias;
  }
}

// The holding power with thermal sharing, checked against the lock itself: a row whose heaters
// all start at the no-sharing power P0 = S / slope (what a controller without a thermal model
// applies) is S x (share_j - 1) too red at ring j; locking it with the SOI crosstalk
// (lock_row: binary search per ring, sweeps until every ring is within target) must end at
// P0 + bias_j / slope = K^-1 (S / slope) 1, the holding power. Each ring ends within +-target
// of its resonance target, so the powers are within K^-1 (target / slope) of it:
// |dP_j| <= ||K^-1||_inf target / slope = (1 + c)/(1 - c) target / slope (the AR(1) inverse's
// row sum of absolute values), for the mean as for each ring.
TEST(OperatingPoint, ACrosstalkLockEndsAtTheHoldingPower) {
  const AcceleratorSpec a = soi();
  const photonics::DeviceSpec& dev = a.device;
  const TunerOperatingPoint op = operating_point(dev, a.calibration);
  const int n = dev.grid.channels;
  const double c = dev.tuning.thermal_crosstalk;
  ASSERT_GT(c, 0.0);
  const double slope = photonics::tuning_slope(dev.tuning);
  const double p0 = closed_form_power(dev, a.calibration.heater_bias);
  std::vector<double> raw(static_cast<std::size_t>(n)), bias(raw.size(), 0.0);
  for (int j = 0; j < n; ++j)
    for (int k = 0; k < n; ++k)
      if (k != j) raw[static_cast<std::size_t>(j)] += std::pow(c, std::abs(j - k)) * p0 * slope;
  std::vector<LockResult> results(raw.size());
  CalibrationSpec cal = a.calibration;
  cal.measurement_noise = Length::si(0.0);
  cal.max_sweeps = 16;
  // The lock from P0: the blue side reaches P0, the red side P_max - P0.
  const LockRange range{-p0 * slope, (dev.tuning.max_heater_power.si() - p0) * slope};
  RandomStream noise(7, {1});
  lock_row(cal, range, c, raw, bias, results, noise);
  const double tol = (1 + c) / (1 - c) * cal.target.si() / slope;
  double mean = 0;
  for (int j = 0; j < n; ++j) {
    const auto u = static_cast<std::size_t>(j);
    ASSERT_TRUE(results[u].locked) << j << ": " << results[u].reason;
    const double p = p0 + bias[u] / slope;
    EXPECT_NEAR(p, op.ring_power[u], tol) << "ring " << j;
    mean += p / n;
  }
  EXPECT_NEAR(mean, op.power, tol);
  // And it is not the no-sharing power: sharing saves ~(share - 1) / share of it.
  EXPECT_GT(p0 - mean, 10 * tol);
}

// The correction reach ||K^-1||_inf x margin is what the worst offsets ask: offsets alternating
// +margin, -margin along a row settle at corrections -K^-1 offsets, whose inside entries are
// (1 + c^2 + 2c)/(1 - c^2) x margin = (1 + c)/(1 - c) x margin. A lock reaching a little more
// takes every ring there; one reaching 5 % less leaves inside rings unlocked.
TEST(OperatingPoint, TheWorstOffsetsAskTheCorrectionReach) {
  const AcceleratorSpec a = soi();
  const TunerOperatingPoint op = operating_point(a.device, a.calibration);
  const double c = a.device.tuning.thermal_crosstalk;
  const int n = a.device.grid.channels;
  std::vector<double> offsets(static_cast<std::size_t>(n));
  for (int j = 0; j < n; ++j) offsets[static_cast<std::size_t>(j)] = (j % 2 ? -1 : 1) * op.margin;
  CalibrationSpec cal = a.calibration;
  cal.measurement_noise = Length::si(0.0);
  cal.max_sweeps = 64;
  struct Outcome {
    int failed = 0;
    double largest = 0.0;  // m, the largest correction a ring's own heater made
  };
  const auto lock = [&](double reach) {
    std::vector<double> bias(offsets.size(), 0.0);
    std::vector<LockResult> results(offsets.size());
    RandomStream noise(7, {2});
    lock_row(cal, {-reach, reach}, c, offsets, bias, results, noise);
    Outcome out;
    for (std::size_t j = 0; j < results.size(); ++j) {
      out.failed += results[j].locked ? 0 : 1;
      out.largest = std::max(out.largest, std::abs(bias[j]));
    }
    return out;
  };
  const Outcome wide = lock(1.02 * op.correction_reach);
  EXPECT_EQ(wide.failed, 0);
  EXPECT_NEAR(wide.largest, op.correction_reach, (1 + c) / (1 - c) * cal.target.si());
  EXPECT_GT(lock(0.95 * op.correction_reach).failed, 0);
}

TEST(OperatingPoint, PockelsIdlesAtItsLeakage) {
  const AcceleratorSpec a = load_accelerator("seed_fit", testing::shipped_configs());
  const TunerOperatingPoint op = operating_point(a.device, a.calibration);
  EXPECT_FALSE(op.heater);
  EXPECT_DOUBLE_EQ(op.power, a.device.tuning.static_power.si());
  const LockRange r = lock_range(a.device.tuning);
  EXPECT_DOUBLE_EQ(op.lock.lo, r.lo);
  EXPECT_DOUBLE_EQ(op.lock.hi, r.hi);
}

TEST(OperatingPoint, ATunerTooShortForTrimAndWeightsIsReportedNotClamped) {
  AcceleratorSpec a = soi();
  a.device.requirements.fabrication_trim = Length::si(2e-9);  // +-2 nm: beyond a 10 mW heater
  const TunerOperatingPoint op = operating_point(a.device, a.calibration);
  EXPECT_FALSE(op.covers);
  EXPECT_NE(op.reason.find("the tuner spans"), std::string::npos) << op.reason;
}

}  // namespace
}  // namespace lightsim::prism
