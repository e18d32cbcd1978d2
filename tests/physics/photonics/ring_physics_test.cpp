// Analytic limits of the add-drop ring (Bogaerts et al., Laser Photonics Rev. 2012).
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "lightsim/photonics/ring.h"
#include "lightsim/photonics/tuning.h"

namespace lightsim::photonics {
namespace {

constexpr double kPi = std::numbers::pi;
constexpr double kLambda = 1550e-9;
constexpr double kNg = 2.30;
const double kLength = 2.0 * kPi * 20e-6;

Ring symmetric(double r, double a) {
  return Ring(r, r, a, kNg, kLength, kLambda, 1.85);
}

// Half-maximum wavelengths of the drop port found by bisection on the exact response.
double numeric_fwhm(const Ring& ring) {
  const double half = 0.5 * ring.drop_peak();
  auto edge = [&](double sign) {
    double lo = 0.0, hi = 0.5 * ring.fsr();  // detuning of the probe from the resonance
    for (int i = 0; i < 200; ++i) {
      const double mid = 0.5 * (lo + hi);
      (ring.at(kLambda + sign * mid, kLambda).drop > half ? lo : hi) = mid;
    }
    return 0.5 * (lo + hi);
  };
  return edge(+1.0) + edge(-1.0);
}

TEST(Ring, FwhmIsTheExactHalfMaximumForAnyFinesse) {
  for (double r : {0.5, 0.7, 0.8, 0.9, 0.95, 0.99, 0.999}) {
    for (double a : {1.0, 0.999, 0.98}) {
      const Ring ring = symmetric(r, a);
      if (!ring.resolvable()) continue;
      SCOPED_TRACE(::testing::Message() << "r " << r << " a " << a << " x " << ring.x());
      EXPECT_NEAR(ring.fwhm() / numeric_fwhm(ring), 1.0, 1e-9);
      EXPECT_NEAR(ring.q_loaded(), kLambda / ring.fwhm(), 1e-9 * ring.q_loaded());
    }
  }
}

TEST(Ring, HighFinesseFwhmMatchesLambdaOverQAndTheClosedForm) {
  // r a close to 1: closed form FSR / F, F = pi sqrt(x) / (1 - x), within 1%.
  for (double r : {0.97, 0.99, 0.995, 0.999}) {
    const Ring ring = symmetric(r, 0.9995);
    SCOPED_TRACE(r);
    EXPECT_NEAR(kLambda / ring.q_loaded() / ring.fwhm_closed_form(), 1.0, 0.01);
    EXPECT_NEAR(ring.finesse(), kPi * std::sqrt(ring.x()) / (1.0 - ring.x()),
                0.01 * ring.finesse());
  }
}

TEST(Ring, LowFinesseNeedsTheExactSolve) {
  // r a < 0.9: the closed form is off by more than 1%, the exact FWHM still matches the
  // numerically found half maximum.
  const Ring ring = symmetric(std::sqrt(0.5), 1.0);  // x = 0.5
  EXPECT_LT(ring.x(), 0.9);
  EXPECT_GT(std::abs(ring.fwhm_closed_form() / ring.fwhm() - 1.0), 0.01);
  EXPECT_NEAR(ring.fwhm() / numeric_fwhm(ring), 1.0, 1e-9);
  // Below x = 3 - 2 sqrt 2 the drop response never falls to half its peak.
  EXPECT_FALSE(symmetric(0.4, 1.0).resolvable());
  EXPECT_TRUE(std::isnan(symmetric(0.4, 1.0).fwhm()));
}

TEST(Ring, ThroughPlusDropNeverExceedsOneAndIsOneWhenLossless) {
  for (double r1 : {0.6, 0.9, 0.99})
    for (double r2 : {0.7, 0.95, 0.999})
      for (double a : {1.0, 0.99, 0.9}) {
        const Ring ring(r1, r2, a, kNg, kLength, kLambda, 1.85);
        for (int k = 0; k <= 2000; ++k) {
          const double phi = -3.0 * kPi + 6.0 * kPi * k / 2000.0;
          const PortPowers p = ring.at_phase(phi);
          EXPECT_GE(p.through, 0.0);
          EXPECT_GE(p.drop, 0.0);
          if (a == 1.0)
            EXPECT_NEAR(p.through + p.drop, 1.0, 1e-12) << r1 << " " << r2 << " " << phi;
          else
            EXPECT_LT(p.through + p.drop, 1.0) << r1 << " " << r2 << " " << a << " " << phi;
        }
      }
}

// at_phase keeps its phase-independent terms from construction and callers may reuse
// 1 / resonance (BankState::compute_static): both must give the textbook formula's bits.
TEST(Ring, PrecomputedTermsGiveTheFormulasBits) {
  const Ring ring(0.97, 0.95, 0.995, kNg, kLength, kLambda, 1.85);
  const double r1 = 0.97, r2 = 0.95, a = 0.995;
  for (double offset : {-3e-9, -0.4e-9, -1e-12, 0.0, 2e-12, 0.2e-9, 5e-9}) {
    const double lambda = kLambda + 0.2e-9, res = kLambda + offset;
    const double phi = 2.0 * kPi * kNg * kLength * (1.0 / lambda - 1.0 / res);
    const double x = r1 * r2 * a, s = std::sin(0.5 * phi), s2 = 4.0 * x * s * s;
    const double den = (1.0 - x) * (1.0 - x) + s2, d = r2 * a - r1;
    const PortPowers p = ring.at(lambda, res);
    EXPECT_EQ(p.through, (d * d + s2) / den);
    EXPECT_EQ(p.drop, (1.0 - r1 * r1) * (1.0 - r2 * r2) * a / den);
    const double inv_res = 1.0 / res;
    EXPECT_EQ(ring.at_phase(ring.phase_constant() * (1.0 / lambda - inv_res)).drop, p.drop);
  }
}

TEST(Ring, ResponseIsPeriodicOverTheFsr) {
  const Ring ring = symmetric(0.98, 0.999);
  // Exactly periodic in optical frequency: one FSR is 1 / (n_g L) in 1 / lambda.
  for (double offset : {0.0, 13e-12, 77e-12, 1.3e-9, 3.9e-9}) {
    const double lambda = kLambda + offset;
    const double next = 1.0 / (1.0 / lambda - 1.0 / (kNg * kLength));
    for (int m = 1; m <= 3; ++m) {
      const double order_m = 1.0 / (1.0 / lambda - m / (kNg * kLength));
      EXPECT_NEAR(ring.at(order_m, kLambda).drop, ring.at(lambda, kLambda).drop, 1e-9);
      EXPECT_NEAR(ring.at(order_m, kLambda).through, ring.at(lambda, kLambda).through, 1e-9);
    }
    // In wavelength, the period is lambda^2 / (n_g L) to first order (next order: FSR/lambda).
    EXPECT_NEAR((next - lambda) / (lambda * lambda / (kNg * kLength)), 1.0, 0.01);
  }
  // The resonances one FSR away are full resonances (all orders are modelled).
  const double red = 1.0 / (1.0 / kLambda - 1.0 / (kNg * kLength));
  EXPECT_NEAR(ring.at(red, kLambda).drop, ring.drop_peak(), 1e-12);
}

TEST(Ring, DropIsThePeriodicLorentzian) {
  // D = D0 / (1 + (2F/pi)^2 sin^2(phi / 2)) exactly, F = pi sqrt(x) / (1 - x).
  const Ring ring = symmetric(0.97, 0.998);
  const double f = kPi * std::sqrt(ring.x()) / (1.0 - ring.x());
  for (int k = 0; k <= 100; ++k) {
    const double phi = 2.0 * kPi * k / 100.0;
    const double s = std::sin(0.5 * phi);
    const double expected = ring.drop_peak() / (1.0 + std::pow(2.0 * f / kPi, 2) * s * s);
    EXPECT_NEAR(ring.at_phase(phi).drop, expected, 1e-12);
  }
}

TEST(Ring, MaxBalancedWeightSlopeIsThreeRootThreeOverTwoD0OverFwhm) {
  for (double r : {0.98, 0.99, 0.995}) {
    const Ring ring = symmetric(r, 1.0);  // lossless: w = 1 - 2 D
    const double expected = 3.0 * std::sqrt(3.0) / 2.0 * ring.drop_peak() / ring.fwhm();
    SCOPED_TRACE(r);
    EXPECT_NEAR(ring.max_weight_slope() / expected, 1.0, 0.01);
    EXPECT_NEAR(ring.max_weight_slope_detuning() / (ring.fwhm() / (2.0 * std::sqrt(3.0))), 1.0,
                0.01);
    // The slope agrees with a finite difference of the exact weight.
    const double d = ring.max_weight_slope_detuning(), h = 1e-3 * ring.fwhm();
    const double fd = (ring.weight(kLambda, d + h) - ring.weight(kLambda, d - h)) / (2 * h);
    EXPECT_NEAR(fd / ring.max_weight_slope(), 1.0, 1e-4);
  }
}

TEST(Ring, ReferenceExampleQ1e4Er20dB) {
  // Reference: Q = 1e4 at 1550 nm (FWHM 155 pm), ER 20 dB -> 0.0166 per pm.
  RingSpec spec;
  spec.q_loaded = 1e4;
  spec.extinction_ratio = Decibel::si(20.0);
  spec.loss = LossPerLength::si(0.0);
  const Ring ring = Ring::from_spec(spec);
  EXPECT_NEAR(ring.fwhm(), 155e-12, 1e-15);
  // Lossless: D0 = 1 - T_min, and D0 ~ 1 - 10^(-ER/10) (ER = T_max / T_min, T_max ~ 1).
  EXPECT_NEAR(ring.drop_peak() + ring.through_min(), 1.0, 1e-12);
  EXPECT_NEAR(ring.drop_peak(), 1.0 - std::pow(10.0, -2.0), 1e-4);
  EXPECT_NEAR(ring.max_weight_slope() * 1e-12, 0.0166, 0.0002);
  // Seed ring: R = 20 um, n_g = 2.30 -> FSR 8.31 nm.
  EXPECT_NEAR(ring.fsr(), 8.31e-9, 0.01e-9);
}

TEST(Ring, QAndExtinctionConvertToCouplersConsistently) {
  for (double q : {3e3, 1e4, 5e4})
    for (double er : {6.0, 15.0, 25.0})
      for (double loss_db_per_cm : {0.0, 0.3, 3.0}) {
        RingSpec spec;
        spec.q_loaded = q;
        spec.extinction_ratio = Decibel::si(er);
        spec.loss = LossPerLength::si(loss_db_per_cm * 100.0);
        SCOPED_TRACE(::testing::Message() << q << " " << er << " " << loss_db_per_cm);
        ASSERT_FALSE(ring_spec_problem(spec).has_value()) << *ring_spec_problem(spec);
        const Ring ring = Ring::from_spec(spec);
        EXPECT_NEAR(ring.q_loaded() / q, 1.0, 1e-6);
        EXPECT_NEAR(ring.extinction_ratio_db(), er, 1e-9);
        EXPECT_GT(ring.r1(), ring.r2() * ring.a());  // under-coupled branch
        // The same couplers given as power couplings give the same ring.
        RingSpec by_coupling;
        by_coupling.loss = spec.loss;
        by_coupling.coupling_in = 1.0 - ring.r1() * ring.r1();
        by_coupling.coupling_drop = 1.0 - ring.r2() * ring.r2();
        const Ring again = Ring::from_spec(by_coupling);
        EXPECT_NEAR(again.q_loaded() / q, 1.0, 1e-6);
        EXPECT_NEAR(again.extinction_ratio_db(), er, 1e-6);
      }
  // A loaded Q above the intrinsic Q cannot be reached.
  RingSpec lossy;
  lossy.q_loaded = 1e5;
  lossy.extinction_ratio = Decibel::si(20.0);
  lossy.loss = LossPerLength::si(3000.0);  // 30 dB/cm -> intrinsic Q ~1.4e4
  ASSERT_TRUE(ring_spec_problem(lossy).has_value());
  EXPECT_NE(ring_spec_problem(lossy)->find("intrinsic Q"), std::string::npos);
}

TEST(Ring, WeightInversionReturnsTheRequestedWeight) {
  const Ring ring = symmetric(0.985, 0.9995);
  for (double w = -0.95; w <= 0.95; w += 0.05) {
    const auto detuning = ring.detuning_for_weight(w);
    ASSERT_TRUE(detuning.has_value()) << w;
    EXPECT_NEAR(ring.weight(kLambda, *detuning), w, 1e-9);
    EXPECT_GE(*detuning, 0.0);
  }
  EXPECT_FALSE(ring.detuning_for_weight(ring.weight_min() - 1e-3).has_value());
  EXPECT_FALSE(ring.detuning_for_weight(1.0).has_value());
}

// The closed-form inversion (Ring::phase_for_weight): w(S) = (A - Dn + 4xS) / (B + 4xS) in
// S = sin^2(phi/2) inverts exactly, so weight -> phase -> weight returns the weight within
// 1e-12, at high and low finesse, under- and over-coupled. Through the detuning in metres the
// round trip also carries the rounding of lambda + delta (an ulp of lambda, 2e-22 m) times the
// curve's slope (up to ~2e10 per metre at high finesse).
TEST(Ring, ClosedFormInversionRoundTripsToRounding) {
  for (const Ring& ring : {symmetric(0.985, 0.9995), symmetric(0.6, 0.99),
                           Ring(0.999, 0.9985, 0.99995, kNg, kLength, kLambda, 1.85),
                           Ring(0.95, 0.99, 0.999, kNg, kLength, kLambda, 1.85)}) {
    const double lo = ring.weight_min(), hi = ring.weight_max();
    const double ulp = std::nextafter(kLambda, 1.0) - kLambda;
    const double via_metres = 1e-12 + 4.0 * ulp * ring.max_weight_slope();
    for (int k = 0; k <= 1000; ++k) {
      const double w = lo + (hi - lo) * k / 1000.0;
      const auto detuning = ring.detuning_for_weight(w);
      ASSERT_TRUE(detuning.has_value()) << w;
      EXPECT_NEAR(ring.weight(kLambda, *detuning), w, via_metres) << w;
      const double phi = *ring.phase_for_weight(w);
      const PortPowers p = ring.at_phase(phi);
      EXPECT_NEAR(p.through - p.drop, w, 1e-12) << w;
    }
  }
}

TEST(Ring, ClosedFormInversionIsExactAtTheEndsAndRefusesWeightsBeyondThem) {
  const Ring ring = symmetric(0.985, 0.9995);
  // The curve's extremes: on resonance (phi = 0, no detuning) and half an FSR away (phi = pi).
  EXPECT_EQ(*ring.phase_for_weight(ring.weight_min()), 0.0);
  EXPECT_NEAR(*ring.detuning_for_weight(ring.weight_min()), 0.0, 1e-21);  // 1/(1/lambda) - lambda
  EXPECT_EQ(*ring.phase_for_weight(ring.weight_max()), kPi);
  // phi = pi: 1/lambda - 1/(lambda + delta) = 1/(2 n_g L).
  EXPECT_NEAR(*ring.detuning_for_weight(ring.weight_max()),
              1.0 / (1.0 / kLambda - 0.5 / (kNg * kLength)) - kLambda, 1e-21);
  // Weight 0: through and drop equal at the returned phase.
  const double phi0 = *ring.phase_for_weight(0.0);
  EXPECT_GT(phi0, 0.0);
  EXPECT_LT(phi0, kPi);
  EXPECT_NEAR(ring.at_phase(phi0).through, ring.at_phase(phi0).drop, 1e-15);
  // Out of the reachable range: an error (nullopt), never a clamped phase.
  EXPECT_FALSE(ring.phase_for_weight(std::nextafter(ring.weight_min(), -2.0)).has_value());
  EXPECT_FALSE(ring.phase_for_weight(std::nextafter(ring.weight_max(), 2.0)).has_value());
  EXPECT_FALSE(ring.phase_for_weight(1.0).has_value());
  EXPECT_FALSE(ring.phase_for_weight(-1.0).has_value());
  EXPECT_FALSE(ring.phase_for_weight(std::nan("")).has_value());
}

TEST(Tuning, ResonanceShiftFromVoltageHeaterAndTemperature) {
  TuningSpec pockels;
  pockels.pockels_efficiency = TuningEfficiency::si(2.5e-12);
  pockels.max_voltage = Voltage::si(8.0);
  pockels.thermal_shift = ThermalShift::si(17e-12);
  EXPECT_NEAR(resonance_shift(pockels, 4.0, 0.0), 10e-12, 1e-18);
  EXPECT_NEAR(resonance_shift(pockels, -4.0, 0.1), -10e-12 + 1.7e-12, 1e-18);
  EXPECT_NEAR(tuning_span(pockels), 40e-12, 1e-18);
  EXPECT_NEAR(control_for_shift(pockels, 20e-12), 8.0, 1e-12);

  TuningSpec heater;
  heater.mechanism = TuningMechanism::thermo_optic;
  heater.heater_thermal_resistance = ThermalResistance::si(3600.0);
  heater.thermal_shift = ThermalShift::si(69e-12);
  heater.max_heater_power = Power::si(10e-3);
  // 1 mW heats the ring by 3.6 K: 248.4 pm.
  EXPECT_NEAR(resonance_shift(heater, 1e-3, 0.0), 248.4e-12, 1e-16);
  EXPECT_NEAR(tuning_span(heater), 2484e-12, 1e-15);
  heater.thermal_crosstalk = 0.1;
  const auto k = thermal_crosstalk_matrix(heater, 3);
  EXPECT_DOUBLE_EQ(k[0], 1.0);
  EXPECT_DOUBLE_EQ(k[1], 0.1);
  EXPECT_NEAR(k[2], 0.01, 1e-15);
  EXPECT_DOUBLE_EQ(k[3], 0.1);
}

}  // namespace
}  // namespace lightsim::photonics
