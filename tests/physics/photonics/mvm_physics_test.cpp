// The MVM kernel: exact product with every impairment off, noise statistics, states.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "lightsim/photonics/device.h"
#include "lightsim/photonics/mvm.h"

namespace lightsim::photonics {
namespace {

DeviceSpec device(int channels) {
  DeviceSpec d;
  d.ring.q_loaded = 5e4;
  d.ring.extinction_ratio = Decibel::si(20.0);
  d.grid.channels = channels;
  d.grid.spacing = Length::si(0.2e-9);
  d.tuning.max_voltage = Voltage::si(20.0);
  d.bank.rows = 64;
  d.tia.gain = Resistance::si(5e3);
  return d;
}

ImpairmentSpec all_off() {
  ImpairmentSpec s;
  s.crosstalk = s.quantization = s.dac_errors = s.noise = false;
  return s;
}

std::vector<float> random_weights(int n, std::uint64_t id, double range) {
  RandomStream s(11, {id});
  std::vector<float> w(static_cast<std::size_t>(n));
  for (auto& v : w) v = static_cast<float>(range * (2.0 * s.uniform() - 1.0));
  return w;
}

TEST(Mvm, EveryImpairmentOffGivesTheExactProduct) {
  const int d = 32, rows = 64;
  const DeviceSpec dev = device(d);
  const auto w = random_weights(rows * d, 1, 0.9);
  MvmKernel k(dev, all_off(), w);
  RandomStream noise(1, {2});
  std::vector<float> scores(rows), currents(rows);
  for (int q = 0; q < 20; ++q) {
    const auto xs = random_weights(d, 100 + q, 1.0);
    std::vector<float> x(d);
    for (int j = 0; j < d; ++j) x[j] = std::abs(xs[j]);
    k.score(x, scores, noise, currents);
    for (int r = 0; r < rows; ++r) {
      double exact = 0.0, magnitude = 0.0;
      for (int j = 0; j < d; ++j) {
        exact += static_cast<double>(w[r * d + j]) * x[j];
        magnitude += std::abs(static_cast<double>(w[r * d + j]) * x[j]);
      }
      // Relative to the scale of the product, sum_j |w x|: a cancelling sum has no pointwise
      // relative accuracy in any float kernel. The float product in the kernel's order:
      float same_order = 0.0f;
      for (int j = 0; j < d; ++j) same_order += w[r * d + j] * x[j];
      EXPECT_NEAR(scores[r], exact, 1e-6 * magnitude) << q << " " << r;
      EXPECT_NEAR(scores[r], same_order, 1e-6 * magnitude) << q << " " << r;
    }
  }
}

TEST(Mvm, CrosstalkStateMatchesTheBusModel) {
  const int d = 8;
  DeviceSpec dev = device(d);
  dev.grid.spacing = Length::si(0.1e-9);  // ~3 FWHM: strong crosstalk
  ImpairmentSpec imp = all_off();
  imp.crosstalk = true;
  const auto w = random_weights(4 * d, 3, 0.8);
  MvmKernel k(dev, imp, w);
  const auto weff = k.bank().effective_weights();
  const Ring ring = Ring::from_spec(dev.ring);
  const auto lambdas = channel_wavelengths(dev.grid);
  for (int r = 0; r < 4; ++r) {
    std::vector<double> det(k.bank().detunings().begin() + r * d,
                            k.bank().detunings().begin() + (r + 1) * d);
    const CrosstalkMatrix m = crosstalk_matrix(ring, lambdas, det);
    double worst = 0.0;
    for (int j = 0; j < d; ++j) {
      double drop = 0.0;
      for (int i = 0; i < d; ++i) drop += m.at(i, j);
      EXPECT_NEAR(weff[r * d + j], m.through[j] - drop, 1e-6);
      worst = std::max(worst, double(std::abs(weff[r * d + j] - w[r * d + j])));
    }
    EXPECT_GT(worst, 0.01);  // crosstalk visibly moves the weights
  }
}

TEST(Mvm, NoiseVarianceOfEachRowMatchesTheDetectionModel) {
  const int d = 16, rows = 4, queries = 100000;
  DeviceSpec dev = device(d);
  dev.noise.adc = false;
  dev.laser.rin = RinDensity::si(-130.0);  // make RIN visible
  ImpairmentSpec imp = all_off();
  imp.noise = true;
  const auto w = random_weights(rows * d, 5, 0.9);
  MvmKernel k(dev, imp, w);
  std::vector<float> x(d, 0.7f), scores(rows), currents(rows);
  std::vector<double> sum(rows), sum2(rows);
  RandomStream noise(9, {1});
  for (int q = 0; q < queries; ++q) {
    k.score(x, scores, noise, currents);
    for (int r = 0; r < rows; ++r)
      sum[r] += currents[r], sum2[r] += double(currents[r]) * currents[r];
  }
  // Expected: the DetectionModel formulas at this row's photocurrents.
  const DetectionModel det(dev.detector, dev.tia, dev.adc, dev.laser, dev.noise);
  const double loss = dev.path.coupling_loss.si() + dev.modulator.insertion_loss.si() +
                      10 * std::log10(64.0) + 6 * dev.path.splitter_excess.si() +
                      dev.path.waveguide_loss.si() * dev.path.waveguide_length.si();
  const double p_ch = dev.laser.power_per_line.si() * std::pow(10.0, -loss / 10);
  const double eps = std::pow(10.0, -dev.modulator.extinction_ratio.si() / 10);
  const auto weff = k.bank().effective_weights();
  for (int r = 0; r < rows; ++r) {
    double thru_plus_drop = 0.0, rin_w = 0.0;
    for (int j = 0; j < d; ++j) {
      const double pj = p_ch * (eps + (1 - eps) * x[j]);
      const double wj = weff[r * d + j];
      thru_plus_drop += pj;  // crosstalk off: T + D of a lone ring (lossy: slightly below 1)
      rin_w += std::pow(dev.detector.responsivity.si() * pj * wj, 2);
    }
    (void)thru_plus_drop;
    const double mean = sum[r] / queries, var = sum2[r] / queries - mean * mean;
    const NoiseTerms t = det.variances(0, 0, rin_w);
    // Shot term from the kernel's own T + D (<= 1): bound it between the lossy and lossless.
    const double shot_hi =
        2 * kElementaryCharge * det.bandwidth() * dev.detector.responsivity.si() * thru_plus_drop;
    const double lo = t.total() - t.adc, hi = lo + shot_hi;
    const double tol = 4.0 * hi * std::sqrt(2.0 / queries);
    EXPECT_GT(var, lo + 0.95 * shot_hi - tol) << r;
    EXPECT_LT(var, hi + tol) << r;
  }
}

TEST(Mvm, StatesAreDeterministicAndDrawImpairments) {
  const int d = 8;
  const DeviceSpec dev = device(d);
  ImpairmentSpec imp;
  imp.noise = false;
  imp.calibration_residual = Length::si(2e-12);
  imp.drift_global_sigma = Length::si(5e-12);
  imp.drift_local_sigma = Length::si(3e-12);
  imp.correlation_rings = 4.0;
  const auto w = random_weights(16 * d, 7, 0.8);
  MvmKernel a(dev, imp, w), b(dev, imp, w);
  a.set_state(1, 5);
  b.set_state(1, 5);
  EXPECT_EQ(a.bank().effective_weights(), b.bank().effective_weights());
  b.set_state(1, 6);
  EXPECT_NE(a.bank().effective_weights(), b.bank().effective_weights());
  // Per-query drift with sigma 0 changes nothing.
  ImpairmentSpec still = imp;
  still.drift_local_sigma = Length::si(0.0);
  MvmKernel c(dev, still, w);
  c.set_state(1, 5);
  std::vector<float> x(d, 0.5f), s1(16), s2(16);
  RandomStream n1(1, {1}), n2(1, {1});
  c.score(x, s1, n1);
  c.score_with_drift(x, s2, n2);
  for (int r = 0; r < 16; ++r) EXPECT_NEAR(s1[r], s2[r], 2e-5 * d);  // table interpolation
}

// The per-query drift path evaluates the lone-ring weight in float (mvm.cpp, drift_block):
// with zero local drift it must give back the state's own-channel weights to float accuracy
// (far below the 2e-5 d of the former interpolation table), over the whole weight range.
TEST(Mvm, PerQueryDriftRingResponseIsExactToFloatAccuracy) {
  const int d = 32, rows = 48;  // 48 rows: a partial second block of 32
  const DeviceSpec dev = device(d);
  ImpairmentSpec imp = all_off();
  imp.drift_global_sigma = Length::si(20e-12);  // states far from the programmed points
  const auto w = random_weights(rows * d, 9, 1.0);
  MvmKernel k(dev, imp, w);
  double worst = 0.0;
  for (std::uint64_t trial = 0; trial < 8; ++trial) {
    k.set_state(3, trial);
    RandomStream n1(1, {1}), n2(1, {1});
    for (int q = 0; q < 4; ++q) {
      const auto xs = random_weights(d, 200 + q, 1.0);
      std::vector<float> x(d), s1(rows), s2(rows);
      for (int j = 0; j < d; ++j) x[j] = std::abs(xs[j]);
      k.score(x, s1, n1);
      k.score_with_drift(x, s2, n2);
      for (int r = 0; r < rows; ++r) worst = std::max(worst, std::abs(double{s1[r]} - s2[r]));
    }
  }
  EXPECT_LT(worst, 1e-6 * d);
  RecordProperty("worst_abs_diff", std::to_string(worst));
}

}  // namespace
}  // namespace lightsim::photonics
