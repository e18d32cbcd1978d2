// Weight-space noise (impairments.weight_noise): with every physical impairment off, each ring's
// achieved weight is its requested weight plus a Gaussian of sigma = weight_noise x
// requirements.weight_range, drawn per trial; 0 leaves the state bit-identical.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "fit_device.h"
#include "lightsim/photonics/bank_state.h"
#include "lightsim/photonics/device.h"

namespace lightsim::photonics {
namespace {

ImpairmentSpec nothing_but_weight_noise(double sigma) {
  ImpairmentSpec imp;
  imp.crosstalk = false;
  imp.quantization = false;
  imp.dac_errors = false;
  imp.heater_crosstalk = false;
  imp.noise = false;
  imp.weight_noise = sigma;
  return imp;
}

TEST(WeightNoise, AchievedWeightsAreRequestedPlusGaussianOfTheStatedSigma) {
  const DeviceSpec dev = testing::seed_tfln_fit_device(16);
  const int rows = 256;
  std::vector<float> w(static_cast<std::size_t>(rows) * 16);
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = 0.4f * std::sin(0.37 * static_cast<double>(i));
  const double sigma = 0.05, expected = sigma * dev.requirements.weight_range;
  BankState state(dev, nothing_but_weight_noise(sigma), w, false);
  state.set_state(7, 0);
  const std::vector<float> got = state.effective_weights();
  double sum = 0, sum2 = 0;
  for (std::size_t i = 0; i < w.size(); ++i) {
    const double e = got[i] - w[i];
    sum += e;
    sum2 += e * e;
  }
  const double n = static_cast<double>(w.size());
  const double mean = sum / n, sd = std::sqrt(sum2 / n - mean * mean);
  EXPECT_NEAR(mean, 0.0, 4 * expected / std::sqrt(n));
  EXPECT_NEAR(sd, expected, 0.05 * expected);  // 4096 draws: the sd's own error is ~1.1%
  // Another trial draws other noise; the same trial the same.
  BankState again(dev, nothing_but_weight_noise(sigma), w, false);
  again.set_state(7, 0);
  EXPECT_EQ(std::memcmp(again.effective_weights().data(), got.data(), got.size() * 4), 0);
  again.set_state(7, 1);
  EXPECT_NE(std::memcmp(again.effective_weights().data(), got.data(), got.size() * 4), 0);
}

TEST(WeightNoise, ZeroIsTheStateWithoutIt) {
  const DeviceSpec dev = testing::seed_tfln_fit_device(16);
  std::vector<float> w(64 * 16);
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = 0.8f * std::cos(0.11 * static_cast<double>(i));
  ImpairmentSpec imp;  // every default impairment on, weight_noise 0
  imp.drift_local_sigma = Length::si(5e-12);
  BankState a(dev, imp, w, false);
  a.set_state(3, 2);
  imp.weight_noise = 0.05;
  BankState b(dev, imp, w, false);
  b.set_state(3, 2);
  std::size_t moved = 0;
  for (std::size_t i = 0; i < w.size(); ++i) moved += a.detunings()[i] != b.detunings()[i];
  EXPECT_GT(moved, w.size() / 4);  // through the DAC codes, most rings move
  imp.weight_noise = 0.0;
  BankState c(dev, imp, w, false);
  c.set_state(3, 2);
  EXPECT_EQ(std::memcmp(a.detunings().data(), c.detunings().data(), w.size() * 8), 0);
}

}  // namespace
}  // namespace lightsim::photonics
