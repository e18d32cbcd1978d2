// WDM crosstalk against the Lorentzian closed forms (docs/photonics.md, "WDM crosstalk").
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "lightsim/photonics/wdm.h"

namespace lightsim::photonics {
namespace {

constexpr double kCrosstalkPi = std::numbers::pi;
constexpr double kCrosstalkLambda = 1550e-9;

Ring test_ring(double r) {
  return Ring(r, r, 0.9995, 2.30, 2.0 * kCrosstalkPi * 20e-6, kCrosstalkLambda, 1.85);
}

TEST(Crosstalk, MatchesLorentzianClosedFormForSpacingMuchLargerThanFwhm) {
  const Ring ring = test_ring(0.985);
  const double fwhm = ring.fwhm(), fsr = ring.fsr();
  for (double k : {5.0, 8.0, 12.0}) {
    const double dl = k * fwhm;
    const std::vector<double> channels = {kCrosstalkLambda, kCrosstalkLambda + dl};
    const CrosstalkMatrix m = crosstalk_matrix(ring, channels);
    // Ring 0 is first on the bus: its leak of channel 1 is the bare response.
    const double leak = m.at(0, 1) / m.drop_peak;
    double periodic = 0.0;  // sum over FSR orders of the Lorentzian
    for (int order = -50; order <= 50; ++order)
      periodic += 1.0 / (1.0 + std::pow(2.0 * (dl - order * fsr) / fwhm, 2));
    SCOPED_TRACE(k);
    EXPECT_NEAR(leak / periodic, 1.0, 0.02);
    // The nearest-order term alone: (FWHM / (2 dl))^2 for dl >> FWHM.
    EXPECT_NEAR(leak / std::pow(fwhm / (2.0 * dl), 2), 1.0, 0.08);
    EXPECT_NEAR(lorentzian_isolation(fwhm, dl) / std::pow(fwhm / (2.0 * dl), 2), 1.0,
                1.0 / (4 * k * k) + 1e-12);
  }
}

TEST(Crosstalk, BusOrderAttenuatesLaterRings) {
  const Ring ring = test_ring(0.985);
  const std::vector<double> channels = {kCrosstalkLambda, kCrosstalkLambda + 0.5e-9,
                                        kCrosstalkLambda + 1.0e-9};
  const CrosstalkMatrix m = crosstalk_matrix(ring, channels);
  // Ring 1 sees channel 0 only after ring 0's through port took it.
  const double expected =
      ring.at(channels[0], channels[1]).drop * ring.at(channels[0], channels[0]).through;
  EXPECT_NEAR(m.at(1, 0), expected, 1e-15);
  // Ring 2's own channel has passed rings 0 and 1 off resonance.
  const double bus =
      ring.at(channels[2], channels[0]).through * ring.at(channels[2], channels[1]).through;
  EXPECT_NEAR(m.at(2, 2), ring.drop_peak() * bus, 1e-15);
  // Power is conserved up to ring loss: sum of drops + through <= 1 per channel.
  for (int j = 0; j < 3; ++j) {
    double total = m.through[j];
    for (int i = 0; i < 3; ++i) total += m.at(i, j);
    EXPECT_LE(total, 1.0);
    EXPECT_GT(total, 0.95);
  }
}

TEST(Crosstalk, AliasedChannelsLeakAsIfOnResonance) {
  const Ring ring = test_ring(0.985);
  // Channel 1 sits exactly one FSR (in frequency) from channel 0.
  const double next = 1.0 / (1.0 / kCrosstalkLambda - 1.0 / (2.30 * 2.0 * kCrosstalkPi * 20e-6));
  const std::vector<double> channels = {kCrosstalkLambda, next};
  const CrosstalkMatrix m = crosstalk_matrix(ring, channels);
  EXPECT_NEAR(m.at(0, 1), m.drop_peak, 1e-9);
  EXPECT_GT(summarize(m).worst_db, -0.01);
}

TEST(Crosstalk, SpacingForIsolationMatchesTheReference) {
  // Reference: -15 / -20 / -30 dB need 2.77 / 4.97 / 15.8 FWHM.
  EXPECT_NEAR(spacing_for_isolation(1.0, -15.0), 2.77, 0.01);
  EXPECT_NEAR(spacing_for_isolation(1.0, -20.0), 4.97, 0.01);
  EXPECT_NEAR(spacing_for_isolation(1.0, -30.0), 15.8, 0.01);
  for (double db : {-15.0, -20.0, -30.0})
    EXPECT_NEAR(10.0 * std::log10(lorentzian_isolation(1.0, spacing_for_isolation(1.0, db))), db,
                1e-9);
}

}  // namespace
}  // namespace lightsim::photonics
