// Noise terms of the balanced detector: sample variances against their formulas (1e5 samples,
// 4 sigma of the sample-variance estimator), ADC quantization, link budget scaling.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "lightsim/photonics/device.h"
#include "lightsim/photonics/link_budget.h"

namespace lightsim::photonics {
namespace {

constexpr int kSamples = 100000;
constexpr double kQ = 1.602176634e-19, kK = 1.380649e-23;

NoiseSpec only(const char* term) {
  NoiseSpec n;
  n.shot = n.thermal = n.tia = n.nep = n.rin = n.adc = false;
  const std::string t(term);
  n.shot = t == "shot";
  n.thermal = t == "thermal";
  n.tia = t == "tia";
  n.nep = t == "nep";
  n.rin = t == "rin";
  return n;
}

// Sample variance of the noisy balanced output around its mean, with only `term` enabled.
double sample_variance(const DetectionModel& m, double i_thru, double i_drop, double rin_w,
                       std::uint64_t id) {
  RandomStream stream(42, {id});
  double sum = 0.0, sum2 = 0.0;
  for (int k = 0; k < kSamples; ++k) {
    const double x = m.sample(i_thru, i_drop, rin_w, stream) - (i_thru - i_drop);
    sum += x;
    sum2 += x * x;
  }
  const double mean = sum / kSamples;
  return sum2 / kSamples - mean * mean;
}

TEST(Noise, EachTermsSampleVarianceMatchesItsFormula) {
  DetectorSpec det;
  det.responsivity = Responsivity::si(1.0);
  det.dark_current = Current::si(10e-9);
  det.nep = PowerNoiseDensity::si(20e-12);
  TiaSpec tia;
  tia.bandwidth = Frequency::si(1e9);
  tia.input_noise = CurrentNoiseDensity::si(5e-12);
  tia.gain = Resistance::si(50.0);
  tia.temperature = TemperatureDelta::si(300.0);
  AdcSpec adc;
  LaserSpec laser;
  laser.rin = RinDensity::si(-140.0);
  const double i_thru = 60e-6, i_drop = 20e-6, rin_w = 8 * std::pow(5e-6, 2);
  const double b = 1e9;
  const struct {
    const char* term;
    double expected;
  } cases[] = {
      {"shot", 2 * kQ * (i_thru + i_drop + 2 * 10e-9) * b},
      {"thermal", 4 * kK * 300.0 * b / 50.0},  // 0.576 uA rms at 50 ohm (reference)
      {"tia", 25e-24 * b},
      {"nep", 2 * std::pow(20e-12, 2) * b},  // 632 nW rms per photodiode (reference)
      {"rin", std::pow(10.0, -14.0) * b * rin_w},
  };
  std::uint64_t id = 0;
  for (const auto& c : cases) {
    const DetectionModel m(det, tia, adc, laser, only(c.term));
    EXPECT_NEAR(m.variances(i_thru, i_drop, rin_w).total(), c.expected, 1e-12 * c.expected)
        << c.term;
    const double v = sample_variance(m, i_thru, i_drop, rin_w, id++);
    // Standard error of a Gaussian sample variance: sigma^2 sqrt(2 / (n - 1)).
    EXPECT_NEAR(v, c.expected, 4.0 * c.expected * std::sqrt(2.0 / (kSamples - 1))) << c.term;
  }
  // Reference figures: 4kTB/R at 50 ohm, 1 GHz = 0.576 uA rms; NEP 20 pW/rtHz -> 632 nW.
  EXPECT_NEAR(std::sqrt(4 * kK * 300.0 * b / 50.0), 0.576e-6, 0.001e-6);
  EXPECT_NEAR(20e-12 * std::sqrt(b), 632e-9, 1e-9);
  // All terms on: the variances add.
  const DetectionModel all(det, tia, adc, laser, NoiseSpec{});
  const NoiseTerms t = all.variances(i_thru, i_drop, rin_w);
  EXPECT_NEAR(t.total(),
              cases[0].expected + cases[1].expected + cases[2].expected + cases[3].expected +
                  cases[4].expected + t.adc,
              1e-9 * t.total());
}

TEST(Noise, AdcQuantizationErrorHasVarianceLsbSquaredOverTwelve) {
  DetectorSpec det;
  TiaSpec tia;
  tia.gain = Resistance::si(10e3);
  AdcSpec adc;
  adc.bits = 6;
  adc.full_scale = Voltage::si(1.0);
  NoiseSpec n = only("none");
  n.adc = true;
  const DetectionModel m(det, tia, adc, LaserSpec{}, n);
  const double lsb = 1.0 / 64 / 10e3;
  EXPECT_DOUBLE_EQ(m.adc_lsb_current(), lsb);
  EXPECT_NEAR(m.variances(0, 0, 0).adc, lsb * lsb / 12.0, 1e-30);
  RandomStream stream(3, {1});
  double sum2 = 0.0;
  const double half = 0.5 * m.adc_full_scale_current();
  for (int k = 0; k < kSamples; ++k) {
    const double x = (2.0 * stream.uniform() - 1.0) * (half - lsb);
    const double e = m.quantize(x) - x;
    EXPECT_LE(std::abs(e), 0.5 * lsb * (1 + 1e-9));
    sum2 += e * e;
  }
  const double v = sum2 / kSamples, expected = lsb * lsb / 12.0;
  // Uniform error: var of e^2 is lsb^4 / 180, so the mean of e^2 has sd lsb^2 / sqrt(180 n).
  EXPECT_NEAR(v, expected, 4.0 * lsb * lsb / std::sqrt(180.0 * kSamples));
  // Clipping at full scale.
  EXPECT_LE(m.quantize(1.0), half);
  EXPECT_GE(m.quantize(-1.0), -half);
}

TEST(LinkBudget, LossesAndShotLimitedScaling) {
  DeviceSpec d;
  d.bank.rows = 256;
  d.path.splitter_excess = Decibel::si(0.2);
  EXPECT_NEAR(splitter_loss_db(256, 0.2), 10 * std::log10(256.0) + 8 * 0.2, 1e-12);
  EXPECT_NEAR(splitter_loss_db(1, 0.2), 0.0, 1e-12);
  EXPECT_NEAR(splitter_loss_db(100, 0.3), 20.0 + 7 * 0.3, 1e-12);
  // Shot-noise only: SNR grows 1:1 with power (dB), so each bit needs 4x the power.
  d.noise = only("shot");
  d.detector.dark_current = Current::si(0.0);
  const LinkBudget b1 = link_budget(d, 1e-3), b4 = link_budget(d, 4e-3);
  EXPECT_NEAR(b4.snr_db - b1.snr_db, 10 * std::log10(4.0), 1e-9);
  EXPECT_NEAR(b4.enob - b1.enob, 10 * std::log10(4.0) / 6.02, 1e-9);
  // Thermal/TIA only: SNR grows 2:1, each bit needs 2x the power.
  d.noise = only("tia");
  const LinkBudget t1 = link_budget(d, 1e-3), t2 = link_budget(d, 2e-3);
  EXPECT_NEAR(t2.snr_db - t1.snr_db, 20 * std::log10(2.0), 1e-9);
  // The required power reaches the target ENOB.
  d.noise = NoiseSpec{};
  d.requirements.score_enob = 6.0;
  const LinkBudget r = link_budget(d);
  ASSERT_TRUE(std::isfinite(r.required_line_power));
  EXPECT_NEAR(link_budget(d, r.required_line_power).enob, 6.0, 1e-6);
  // RIN caps the SNR: a target above the RIN limit is unreachable.
  d.laser.rin = RinDensity::si(-100.0);
  d.requirements.score_enob = 12.0;
  EXPECT_FALSE(std::isfinite(link_budget(d).required_line_power));
}

}  // namespace
}  // namespace lightsim::photonics
