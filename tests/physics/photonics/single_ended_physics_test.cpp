// Single-ended (drop-port) detection against its analytic limits: with noise off the recovered
// score is exactly sum_j x_j - 2 sum_j D_j x_j, which differs from the balanced sum_j (T_j - D_j)
// x_j by the ring's loss sum_j (1 - T_j - D_j) x_j; with only the feedback-resistor thermal
// noise (the same current noise for both) the single-ended score noise is exactly twice the
// balanced one (the factor 2 of the reference subtraction).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "lightsim/photonics/device.h"
#include "lightsim/photonics/mvm.h"

namespace lightsim::photonics {
namespace {

DeviceSpec se_device(DetectionMode mode) {
  DeviceSpec d;
  d.ring.q_loaded = 5e4;
  d.ring.extinction_ratio = Decibel::si(20.0);
  d.grid.channels = 8;
  d.grid.spacing = Length::si(0.2e-9);
  d.tuning.max_voltage = Voltage::si(20.0);
  d.bank.rows = 16;
  d.tia.gain = Resistance::si(5e3);
  d.detector.mode = mode;
  return d;
}

ImpairmentSpec se_all_off() {
  ImpairmentSpec s;
  s.crosstalk = s.quantization = s.dac_errors = s.noise = false;
  return s;
}

std::vector<float> uniform(int n, std::uint64_t id, double lo, double hi) {
  RandomStream s(3, {id});
  std::vector<float> v(static_cast<std::size_t>(n));
  for (auto& x : v) x = static_cast<float>(lo + (hi - lo) * s.uniform());
  return v;
}

TEST(SingleEnded, NoiselessScoreIsTheReferenceMinusTwiceTheDropProduct) {
  const int d = 8, rows = 16;
  const auto w = uniform(rows * d, 1, -0.9, 0.9);
  MvmKernel se(se_device(DetectionMode::single_ended), se_all_off(), w);
  MvmKernel bal(se_device(DetectionMode::balanced), se_all_off(), w);
  const Ring ring = ring_of(se_device(DetectionMode::balanced));
  RandomStream noise(1, {2});
  std::vector<float> s_se(rows), s_bal(rows);
  for (int q = 0; q < 10; ++q) {
    const auto x = uniform(d, 10 + q, 0.0, 1.0);
    se.score(x, s_se, noise);
    bal.score(x, s_bal, noise);
    for (int r = 0; r < rows; ++r) {
      double expected = 0.0, loss = 0.0;
      for (int j = 0; j < d; ++j) {
        const std::size_t i = static_cast<std::size_t>(r) * d + j;
        const PortPowers p = ring.detuned(ring.wavelength(), se.bank().detunings()[i]);
        expected += (1.0 - 2.0 * p.drop) * x[j];
        loss += (1.0 - p.through - p.drop) * x[j];
      }
      EXPECT_NEAR(s_se[r], expected, 1e-4) << "row " << r;
      EXPECT_NEAR(s_se[r] - s_bal[r], loss, 1e-4) << "row " << r;
    }
  }
}

TEST(SingleEnded, ThermalNoiseOnlyDoublesTheScoreNoise) {
  const int d = 8, rows = 16, queries = 4000;
  ImpairmentSpec imp = se_all_off();
  imp.noise = true;
  auto dev_se = se_device(DetectionMode::single_ended),
       dev_bal = se_device(DetectionMode::balanced);
  for (DeviceSpec* dev : {&dev_se, &dev_bal}) {
    dev->noise = NoiseSpec{false, true, false, false, false, false};  // thermal only
    dev->tia.gain = Resistance::si(50.0);  // thermal noise large against the signal scale
  }
  const auto w = uniform(rows * d, 5, -0.9, 0.9);
  MvmKernel se(dev_se, imp, w), bal(dev_bal, imp, w);
  const auto x = uniform(d, 6, 0.0, 1.0);
  std::vector<float> clean_se(rows), clean_bal(rows), s(rows);
  {
    MvmKernel a(dev_se, se_all_off(), w), b(dev_bal, se_all_off(), w);
    RandomStream n(0, {0});
    a.score(x, clean_se, n);
    b.score(x, clean_bal, n);
  }
  double v_se = 0, v_bal = 0;
  for (int q = 0; q < queries; ++q) {
    RandomStream n1(7, {static_cast<std::uint64_t>(q)}), n2(8, {static_cast<std::uint64_t>(q)});
    se.score(x, s, n1);
    for (int r = 0; r < rows; ++r) v_se += std::pow(s[r] - clean_se[r], 2);
    bal.score(x, s, n2);
    for (int r = 0; r < rows; ++r) v_bal += std::pow(s[r] - clean_bal[r], 2);
  }
  // 64000 samples each: the variance ratio's relative standard error is ~0.8%.
  EXPECT_NEAR(std::sqrt(v_se / v_bal), 2.0, 0.05);
}

TEST(SingleEnded, PerQueryDriftIsRejected) {
  const auto w = uniform(16 * 8, 9, -0.5, 0.5);
  MvmKernel se(se_device(DetectionMode::single_ended), se_all_off(), w);
  RandomStream n(1, {1});
  std::vector<float> x(8, 0.5f), s(16);
  EXPECT_THROW(se.score_with_drift(x, s, n), InputError);
}

}  // namespace
}  // namespace lightsim::photonics
