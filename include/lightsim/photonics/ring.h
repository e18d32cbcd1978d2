// Add-drop micro-ring resonator: spec, exact transfer functions over all FSR orders, and the
// derived figures (FSR, FWHM, finesse, Q, extinction, balanced weight).
//
// Source: W. Bogaerts et al., "Silicon microring resonators", Laser & Photonics Reviews 6, 47
// (2012), eqs. for the add-drop ring (docs/photonics.md, section "Ring"):
//   T_thru = (r2^2 a^2 - 2 r1 r2 a cos(phi) + r1^2) / (1 - 2 r1 r2 a cos(phi) + (r1 r2 a)^2)
//   T_drop = (1 - r1^2)(1 - r2^2) a / (same denominator)
// phi is the round-trip phase, a the single-pass amplitude transmission, r1 and r2 the
// self-coupling amplitudes of the input and drop couplers.
//
// Dispersion model: the group index n_g is constant over the band, so the round-trip phase is
//   phi(lambda) = 2 pi n_g L (1/lambda - 1/lambda_res)   (mod 2 pi)
// which puts a resonance exactly at lambda_res and makes the response exactly periodic in
// optical frequency with FSR_nu = c / (n_g L). n_eff sets the azimuthal mode order only.
#pragma once

#include <cmath>
#include <optional>
#include <string>
#include <string_view>

#include "lightsim/core/config.h"
#include "lightsim/core/units.h"

namespace lightsim::photonics {

// The ring geometry and either its couplers (coupling_in/coupling_drop, with loss) or the
// alternative parameterization by loaded Q and through-port extinction ratio (with loss),
// which is converted to the same couplers (see RingSpec::couplers in ring.cpp).
struct RingSpec {
  static constexpr std::string_view kind = "ring";

  Length wavelength = Length::si(1550e-9);  // resonance at rest (in a bank: its channel)
  Length radius = Length::si(20e-6);
  double n_eff = 1.85;
  double n_g = 2.30;
  LossPerLength loss = LossPerLength::si(30.0);  // 0.3 dB/cm propagation loss
  std::optional<double> coupling_in;             // power coupling kappa1^2 of the input coupler
  std::optional<double> coupling_drop;           // kappa2^2; defaults to coupling_in
  std::optional<double> q_loaded;                // alternative: loaded Q ...
  std::optional<Decibel> extinction_ratio;       // ... and through-port extinction (dB)

  static void describe(config::Schema<RingSpec>& s);
};

// Why a ring spec describes no realizable ring, or nullopt (used as a schema rule).
std::optional<std::string> ring_spec_problem(const RingSpec& spec);

// Through and drop power transmission (fractions of the input power).
struct PortPowers {
  double through = 0.0;
  double drop = 0.0;
};

// A ring with its couplers solved: everything in SI doubles, cheap to copy, no allocation.
class Ring {
 public:
  // Throws ConfigError when the spec is not realizable (ring_spec_problem).
  static Ring from_spec(const RingSpec& spec);
  // r1, r2 in (0, 1), a in (0, 1], n_g > 0, circumference and wavelength in metres.
  Ring(double r1, double r2, double a, double n_g, double circumference, double wavelength,
       double n_eff);

  // ---- transfer functions ------------------------------------------------------------
  // Exact response at round-trip phase phi (radians, any value: all FSR orders). Inline with
  // the phase-independent terms precomputed on construction (the same expressions, so the same
  // bits): bank preparation evaluates it N d^2 times per impairment state.
  PortPowers at_phase(double phi) const {
    // 1 - 2 x cos(phi) + x^2 written as (1 - x)^2 + 4 x sin^2(phi / 2): no cancellation near
    // resonance for high-finesse rings.
    const double s = std::sin(0.5 * phi);
    const double s2 = four_x_ * s * s;
    const double den = den0_ + s2;
    return {(thru0_ + s2) / den, drop_num_ / den};
  }
  // Round-trip phase of light at `lambda` when the resonance sits at `resonance`:
  // phase_constant() (1/lambda - 1/resonance).
  double phase(double lambda, double resonance) const {
    return phase_k_ * (1.0 / lambda - 1.0 / resonance);
  }
  // 2 pi n_g L (metres): phase(lambda, res) = phase_constant() * (1/lambda - 1/res), for
  // callers that reuse the reciprocals (the same bits as phase()).
  double phase_constant() const { return phase_k_; }
  // Exact response at `lambda` with the resonance at `resonance` (metres).
  PortPowers at(double lambda, double resonance) const {
    return at_phase(phase(lambda, resonance));
  }
  // Response to a channel at `lambda` when the resonance is detuned to lambda + detuning.
  PortPowers detuned(double lambda, double detuning) const { return at(lambda, lambda + detuning); }
  // Balanced weight through minus drop at that detuning.
  double weight(double lambda, double detuning) const {
    const PortPowers p = detuned(lambda, detuning);
    return p.through - p.drop;
  }
  // Round-trip phase in [0, pi] at which the balanced weight T - D equals w, in closed form
  // (the weight is a ratio of linear functions of sin^2(phi/2); ring.cpp): weight_min() gives
  // 0, weight_max() gives pi. nullopt when w is outside [weight_min(), weight_max()] (not
  // clamped).
  std::optional<double> phase_for_weight(double w) const;
  // Detuning (>= 0, within half an FSR) at which weight(wavelength(), detuning) == w:
  // phase_for_weight(w) turned into a detuning; nullopt when w is outside [weight_min(),
  // weight_max()].
  std::optional<double> detuning_for_weight(double w) const;

  // ---- derived figures at the resonance wavelength -----------------------------------
  double r1() const { return r1_; }
  double r2() const { return r2_; }
  double a() const { return a_; }
  double x() const { return r1_ * r2_ * a_; }  // r1 r2 a, the round-trip amplitude product
  double n_g() const { return n_g_; }
  double n_eff() const { return n_eff_; }
  double circumference() const { return length_; }
  double wavelength() const { return lambda_; }
  long mode_order() const;          // round(n_eff L / lambda)
  double fsr() const;               // lambda^2 / (n_g L), metres
  double fsr_frequency() const;     // c / (n_g L), Hz (exact period)
  bool resolvable() const;          // a half-maximum exists: x >= 3 - 2 sqrt 2
  double fwhm() const;              // exact (metres); NaN when not resolvable
  double fwhm_closed_form() const;  // FSR / F with F = pi sqrt(x) / (1 - x)
  double finesse() const { return fsr() / fwhm(); }
  double q_loaded() const { return lambda_ / fwhm(); }
  double q_intrinsic() const;  // 2 pi n_g / (lambda alpha), alpha the power loss /m
  double drop_peak() const { return at_phase(0.0).drop; }       // D0
  double through_min() const { return at_phase(0.0).through; }  // T at resonance
  double through_max() const;                                   // T half an FSR away
  double extinction_ratio_db() const;                           // 10 log10(T_max / T_min)
  double weight_min() const;                                    // w on resonance
  double weight_max() const;                                    // w half an FSR away
  // Largest |dw/d detuning| of the exact response (per metre) and where it occurs.
  double max_weight_slope() const;
  double max_weight_slope_detuning() const;

 private:
  double r1_, r2_, a_, n_g_, length_, lambda_, n_eff_;
  // Phase-independent terms of at_phase (x = r1 r2 a, d = r2 a - r1): 4 x, (1 - x)^2, d^2,
  // (1 - r1^2)(1 - r2^2) a; and phase's 2 pi n_g L.
  double four_x_, den0_, thru0_, drop_num_, phase_k_;
};

}  // namespace lightsim::photonics
