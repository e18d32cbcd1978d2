// The heater holding power (photonics/holding.h): analytic limits, and the feasibility check
// using it at the middle of the weight range.
#include <gtest/gtest.h>

#include <cmath>

#include "lightsim/core/error.h"
#include "lightsim/photonics/feasibility.h"
#include "lightsim/photonics/holding.h"
#include "lightsim/photonics/weights.h"
#include "shipped_device.h"

namespace lightsim::photonics {
namespace {

// The shipped SOI device (a whole design: ring, couplers, grid, link), with its thermal
// crosstalk set to `crosstalk`.
DeviceSpec soi_like(double crosstalk) {
  DeviceSpec d = testing::shipped_device("soi");
  d.tuning.thermal_crosstalk = crosstalk;
  return d;
}

TEST(HeaterHolding, WithoutCrosstalkEveryRingTakesShiftOverSlope) {
  const DeviceSpec d = soi_like(0.0);
  const HeaterHolding h = heater_holding_power(d, 0.0);
  const WeightProgrammer wp(d);
  EXPECT_DOUBLE_EQ(h.rest, wp.rest_detuning());
  EXPECT_DOUBLE_EQ(h.shift, h.bias_detuning - h.rest);
  EXPECT_GT(h.shift, 0.0);  // heaters only red-shift from the blue end
  EXPECT_DOUBLE_EQ(h.share, 1.0);
  for (double p : h.power) EXPECT_NEAR(p, h.shift / h.slope, 1e-15);
  EXPECT_NEAR(h.mean_power, h.shift / h.slope, 1e-15);
  EXPECT_TRUE(h.holds);
}

TEST(HeaterHolding, SharingFollowsTheTridiagonalInverse) {
  for (double c : {0.05, 0.1, 0.3}) {
    const DeviceSpec d = soi_like(c);
    const HeaterHolding h = heater_holding_power(d, 0.0);
    const double p0 = h.shift / h.slope;
    const std::size_t n = h.power.size();
    EXPECT_NEAR(h.power.front(), p0 / (1 + c), 1e-12 * p0) << c;
    EXPECT_NEAR(h.power.back(), p0 / (1 + c), 1e-12 * p0) << c;
    for (std::size_t j = 1; j + 1 < n; ++j)
      EXPECT_NEAR(h.power[j], p0 * (1 - c) / (1 + c), 1e-12 * p0);
    // K P reproduces the uniform shift at every ring.
    for (std::size_t j = 0; j < n; ++j) {
      double shift = 0;
      for (std::size_t k = 0; k < n; ++k)
        shift += std::pow(c, std::abs(static_cast<double>(j) - static_cast<double>(k))) *
                 h.power[k] * h.slope;
      EXPECT_NEAR(shift, h.shift, 1e-12 * h.shift);
    }
    EXPECT_NEAR(h.min_power, h.power[1], 1e-15 * p0);
    EXPECT_DOUBLE_EQ(h.max_power, h.power.front());
    // ||K^-1||_inf: the inside rows of the tridiagonal inverse, (1 + c^2 + 2c)/(1 - c^2).
    EXPECT_NEAR(h.correction_gain, (1 + c) / (1 - c), 1e-12) << c;
  }
  EXPECT_DOUBLE_EQ(heater_holding_power(soi_like(0.0), 0.0).correction_gain, 1.0);
}

TEST(HeaterHolding, RisesWithTheBiasAndReportsWhatItCannotHold) {
  const DeviceSpec d = soi_like(0.1);
  EXPECT_LT(heater_holding_power(d, -0.5).mean_power, heater_holding_power(d, 0.5).mean_power);
  DeviceSpec weak = d;
  weak.tuning.max_heater_power = Power::si(0.1e-3);
  const HeaterHolding h = heater_holding_power(weak, 0.0);
  EXPECT_FALSE(h.holds);
  EXPECT_NE(h.reason.find("outside [0,"), std::string::npos) << h.reason;
  EXPECT_THROW(heater_holding_power(d, 1.5), InputError);
  DeviceSpec pockels = d;
  pockels.tuning.mechanism = TuningMechanism::pockels;
  EXPECT_THROW(heater_holding_power(pockels, 0.0), InputError);
}

TEST(HeaterHolding, TheFeasibilityCheckUsesItAtTheBias) {
  const DeviceSpec d = soi_like(0.1);
  ASSERT_EQ(d.tuning.mechanism, TuningMechanism::thermo_optic);
  for (double bias : {0.0, 0.5}) {
    const FeasibilityReport r = check_feasibility(d, bias);
    const FeasibilityCheck* thermal = nullptr;
    for (const auto& c : r.checks)
      if (c.name == "thermal_budget") thermal = &c;
    ASSERT_NE(thermal, nullptr);
    const double rings = static_cast<double>(d.bank.rows) * d.grid.channels;
    EXPECT_NEAR(thermal->value,
                rings * heater_holding_power(d, bias).mean_power + d.tuning.tec_power.si(),
                1e-12 * thermal->value);
    if (bias == 0.0) {
      EXPECT_NE(thermal->message.find("middle of the weight range"), std::string::npos)
          << thermal->message;
      EXPECT_EQ(check_feasibility(d).checks.size(), r.checks.size());
    }
  }
}

}  // namespace
}  // namespace lightsim::photonics
