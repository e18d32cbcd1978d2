// Heater thermal crosstalk acts on the impairment state: ring i of a row is shifted by
// sum_{j != i} c^|i-j| s_j, s_j the shift heater j was set for (docs/photonics.md, "Tuning").
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "lightsim/photonics/device.h"
#include "lightsim/photonics/mvm.h"
#include "shipped_device.h"

namespace lightsim::photonics {
namespace {

DeviceSpec soi(int channels) {
  DeviceSpec d = testing::shipped_device("soi");
  d.grid.channels = channels;
  return d;
}

ImpairmentSpec only_heat(bool on) {
  ImpairmentSpec s;
  s.crosstalk = s.quantization = s.dac_errors = s.noise = false;
  s.heater_crosstalk = on;
  return s;
}

std::vector<double> detunings(const DeviceSpec& dev, bool heat, const std::vector<float>& w) {
  return MvmKernel(dev, only_heat(heat), w).bank().detunings();
}

TEST(HeaterCrosstalk, ALoneRingIsUnaffected) {
  const DeviceSpec dev = soi(1);
  const std::vector<float> w = {0.5f, -0.3f, 0.8f};  // three rows of one ring
  EXPECT_EQ(detunings(dev, true, w), detunings(dev, false, w));
}

TEST(HeaterCrosstalk, ANeighbourShiftsByTheMatrixCoefficientTimesItsOwnShift) {
  const DeviceSpec dev = soi(2);
  const double c = dev.tuning.thermal_crosstalk;
  ASSERT_GT(c, 0.0);
  const double rest = WeightProgrammer(dev).rest_detuning();
  const std::vector<float> w = {-0.6f, 0.7f, 0.2f, -0.9f};  // two rows of two rings
  const auto off = detunings(dev, false, w), on = detunings(dev, true, w);
  for (int r = 0; r < 2; ++r) {
    const double own0 = off[2 * r] - rest, own1 = off[2 * r + 1] - rest;  // heater shifts
    ASSERT_GT(own0, 0.0);                                                 // heaters only red-shift
    EXPECT_NEAR(on[2 * r] - off[2 * r], c * own1, 1e-9 * std::abs(c * own1)) << r;
    EXPECT_NEAR(on[2 * r + 1] - off[2 * r + 1], c * own0, 1e-9 * std::abs(c * own0)) << r;
  }
}

TEST(HeaterCrosstalk, FollowsTheThermalCrosstalkMatrixAlongARow) {
  const int d = 6;
  const DeviceSpec dev = soi(d);
  const auto k = thermal_crosstalk_matrix(dev.tuning, d);
  const double rest = WeightProgrammer(dev).rest_detuning();
  std::vector<float> w(d);
  for (int j = 0; j < d; ++j) w[j] = static_cast<float>(0.8 * std::sin(1.7 * j));
  const auto off = detunings(dev, false, w), on = detunings(dev, true, w);
  for (int i = 0; i < d; ++i) {
    double expected = 0.0;
    for (int j = 0; j < d; ++j)
      if (j != i) expected += k[i * d + j] * (off[j] - rest);
    EXPECT_NEAR(on[i] - off[i], expected, 1e-9 * std::abs(expected)) << i;
  }
}

TEST(HeaterCrosstalk, PockelsTuningHasNoHeaters) {
  DeviceSpec dev = soi(4);
  dev.tuning.mechanism = TuningMechanism::pockels;
  dev.tuning.max_voltage = Voltage::si(2000.0);  // reach the same shifts with pm/V
  const std::vector<float> w = {0.1f, 0.4f, -0.5f, 0.9f};
  EXPECT_EQ(detunings(dev, true, w), detunings(dev, false, w));
}

}  // namespace
}  // namespace lightsim::photonics
