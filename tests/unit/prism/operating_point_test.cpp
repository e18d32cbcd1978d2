// One heater operating point for calibration and cost: the cost model's static heater power is
// N_rings x the operating-point power, which has a closed form in the configuration, and the
// calibration holds the same power; both move with the bias point.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

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

TEST(OperatingPoint, HeaterPowerHasItsClosedForm) {
  const AcceleratorSpec a = soi();
  for (double bias : {-1.0, 0.0, 0.5, 1.0}) {
    CalibrationSpec cal = a.calibration;
    cal.heater_bias = bias;
    const TunerOperatingPoint op = operating_point(a.device, cal);
    ASSERT_TRUE(op.heater);
    EXPECT_TRUE(op.covers) << op.reason;
    EXPECT_NEAR(op.power, closed_form_power(a.device, bias), 1e-12) << bias;
    EXPECT_GT(op.power, 0.0);
    EXPECT_LT(op.power, a.device.tuning.max_heater_power.si());
    // The lock reaches from zero heater power to P_max.
    const double slope = photonics::tuning_slope(a.device.tuning);
    EXPECT_NEAR(op.lock.hi - op.lock.lo, op.span, 1e-18);
    EXPECT_NEAR(op.lock.lo, -op.power * slope, 1e-18);
    // The fabrication trim and drift can be corrected in both directions.
    EXPECT_LE(op.lock.lo, -op.margin);
    EXPECT_GE(op.lock.hi, op.margin);
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
    EXPECT_NEAR(static_tuning(r), rings * closed_form_power(a.device, bias), 1e-6) << bias;
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
