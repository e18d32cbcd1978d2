// Add-drop ring: couplers from the spec, exact response, derived figures (see ring.h).
#include "lightsim/photonics/ring.h"

#include <cmath>
#include <limits>
#include <numbers>

#include "lightsim/core/error.h"

namespace lightsim::photonics {
namespace {

constexpr double kPi = std::numbers::pi;
constexpr double kSpeedOfLight = 299792458.0;  // m/s

struct Couplers {
  double r1 = 0.0, r2 = 0.0;
};

double single_pass_amplitude(const RingSpec& s) {
  const double length = 2.0 * kPi * s.radius.si();
  return std::pow(10.0, -s.loss.si() * length / 20.0);  // loss in dB/m, power -> amplitude
}

// x = r1 r2 a giving the exact loaded FWHM `fwhm` (metres) at `lambda`; NaN if none exists.
// The half-maximum phase phi_h satisfies sin(phi_h / 2) = (1 - x) / (2 sqrt x) (from the
// denominator (1 - x)^2 + 4 x sin^2(phi / 2)); the half-maximum wavelengths solve
// 1/lambda -+ phi_h / (2 pi n_g L), so fwhm = 2u / (s^2 - u^2) with s = 1/lambda.
double product_for_fwhm(double fwhm, double lambda, double n_g, double length) {
  const double s = 1.0 / lambda;
  const double u = (std::sqrt(1.0 + fwhm * fwhm * s * s) - 1.0) / fwhm;
  const double phi_h = 2.0 * kPi * n_g * length * u;
  if (!(phi_h < kPi)) return std::numeric_limits<double>::quiet_NaN();
  const double sigma = std::sin(phi_h / 2.0);
  const double y = -sigma + std::sqrt(sigma * sigma + 1.0);
  return y * y;
}

// Couplers from Q and extinction ratio ER = T_max / T_min (through port). With
// T_max = (r1 + r2 a)^2 / (1 + x)^2 and T_min = (r1 - r2 a)^2 / (1 - x)^2, set
// k = sqrt(ER) (1 + x) / (1 - x) = (r1 + r2 a) / (r1 - r2 a); with r1 (r2 a) = x this gives
// u = r1 - r2 a = 2 sqrt(x / (k^2 - 1)), v = k u. Under-coupled branch (r1 > r2 a).
std::optional<Couplers> couplers_from_q(const RingSpec& s, std::string* why) {
  const double length = 2.0 * kPi * s.radius.si();
  const double lambda = s.wavelength.si();
  const double a = single_pass_amplitude(s);
  const double x = product_for_fwhm(lambda / *s.q_loaded, lambda, s.n_g, length);
  if (!std::isfinite(x)) {
    *why = fmt::format(
        "q_loaded {} is too low for this ring: its FWHM {:.4g} nm would exceed "
        "the resonance's resolvable width (FSR {:.4g} nm)",
        *s.q_loaded, lambda / *s.q_loaded * 1e9, lambda * lambda / (s.n_g * length) * 1e9);
    return std::nullopt;
  }
  const double er = to_power_ratio(*s.extinction_ratio);
  const double k = std::sqrt(er) * (1.0 + x) / (1.0 - x);
  const double u = 2.0 * std::sqrt(x / (k * k - 1.0));
  const double v = k * u;
  Couplers c{(v + u) / 2.0, (v - u) / (2.0 * a)};
  if (!(c.r1 < 1.0 && c.r2 < 1.0 && c.r2 > 0.0)) {
    const double alpha = s.loss.si() * std::log(10.0) / 10.0;
    *why = fmt::format(
        "q_loaded {} with extinction_ratio {} is not reachable with loss {} "
        "(intrinsic Q {:.4g}): the couplers would need r1 = {:.6f}, r2 = {:.6f}",
        *s.q_loaded, to_string(*s.extinction_ratio), to_string(s.loss),
        2.0 * kPi * s.n_g / (lambda * alpha), c.r1, c.r2);
    return std::nullopt;
  }
  return c;
}

std::optional<Couplers> couplers(const RingSpec& s, std::string* why) {
  if (s.q_loaded) return couplers_from_q(s, why);
  const double k1 = *s.coupling_in;
  const double k2 = s.coupling_drop.value_or(k1);
  return Couplers{std::sqrt(1.0 - k1), std::sqrt(1.0 - k2)};
}

}  // namespace

void RingSpec::describe(config::Schema<RingSpec>& s) {
  s.help(
      "Add-drop micro-ring: geometry, loss and either the couplers or (loaded Q, "
      "extinction ratio).");
  s.field("wavelength", &RingSpec::wavelength,
          "resonance wavelength at rest where figures are reported (in a bank each ring sits "
          "on its channel)")
      .range("200 nm", "10 um");
  s.field("radius", &RingSpec::radius, "ring radius (circumference L = 2 pi R)")
      .range("0.5 um", "10 mm");
  s.field("n_eff", &RingSpec::n_eff, "effective index (sets the mode order)").range(1.0, 5.0);
  s.field("n_g", &RingSpec::n_g, "group index (sets the FSR), constant over the band")
      .range(1.0, 6.0);
  s.field("loss", &RingSpec::loss, "propagation loss of the ring waveguide")
      .range("0 dB/m", "1000 dB/cm");
  s.field("coupling_in", &RingSpec::coupling_in,
          "power coupling kappa1^2 of the input (through) coupler; give it or q_loaded")
      .range(1e-9, 0.999999);
  s.field("coupling_drop", &RingSpec::coupling_drop,
          "power coupling kappa2^2 of the drop coupler (default: coupling_in)")
      .range(1e-9, 0.999999);
  s.field("q_loaded", &RingSpec::q_loaded,
          "loaded quality factor lambda / FWHM (with extinction_ratio, instead of the "
          "couplings)")
      .positive();
  s.field("extinction_ratio", &RingSpec::extinction_ratio,
          "through-port extinction T_max / T_min (with q_loaded)")
      .positive();
  s.rule([](const RingSpec& r) -> std::optional<std::string> {
    const bool by_coupling = r.coupling_in.has_value() || r.coupling_drop.has_value();
    const bool by_q = r.q_loaded.has_value() || r.extinction_ratio.has_value();
    if (by_coupling && by_q)
      return "give either coupling_in/coupling_drop or q_loaded/extinction_ratio, not both";
    if (!by_coupling && !by_q)
      return "missing the couplers: give coupling_in (and coupling_drop) or q_loaded and "
             "extinction_ratio";
    if (by_coupling && !r.coupling_in) return "coupling_drop given without coupling_in";
    if (by_q && !(r.q_loaded && r.extinction_ratio))
      return "q_loaded and extinction_ratio go together: give both";
    return ring_spec_problem(r);
  });
}

std::optional<std::string> ring_spec_problem(const RingSpec& spec) {
  if (!spec.q_loaded && !spec.coupling_in) return "no couplers given";
  std::string why;
  const auto c = couplers(spec, &why);
  if (!c) return why;
  const Ring ring(c->r1, c->r2, single_pass_amplitude(spec), spec.n_g, 2.0 * kPi * spec.radius.si(),
                  spec.wavelength.si(), spec.n_eff);
  if (!ring.resolvable())
    return fmt::format(
        "the resonance has no half maximum (r1 r2 a = {:.4f} < 3 - 2 sqrt 2): "
        "couplings this strong give no usable resonance",
        ring.x());
  return std::nullopt;
}

Ring Ring::from_spec(const RingSpec& spec) {
  if (auto problem = ring_spec_problem(spec)) LIGHTSIM_THROW(ConfigError, "ring: {}", *problem);
  std::string why;
  const Couplers c = *couplers(spec, &why);
  return Ring(c.r1, c.r2, single_pass_amplitude(spec), spec.n_g, 2.0 * kPi * spec.radius.si(),
              spec.wavelength.si(), spec.n_eff);
}

Ring::Ring(double r1, double r2, double a, double n_g, double circumference, double wavelength,
           double n_eff)
    : r1_(r1),
      r2_(r2),
      a_(a),
      n_g_(n_g),
      length_(circumference),
      lambda_(wavelength),
      n_eff_(n_eff) {
  const double x = r1_ * r2_ * a_, d = r2_ * a_ - r1_;
  four_x_ = 4.0 * x;
  den0_ = (1.0 - x) * (1.0 - x);
  thru0_ = d * d;
  drop_num_ = (1.0 - r1_ * r1_) * (1.0 - r2_ * r2_) * a_;
  phase_k_ = 2.0 * kPi * n_g_ * length_;
  LIGHTSIM_CHECK(r1 > 0 && r1 < 1 && r2 > 0 && r2 < 1 && a > 0 && a <= 1 && n_g > 0 &&
                     circumference > 0 && wavelength > 0,
                 "ring parameters out of range: r1 {} r2 {} a {} n_g {} L {} lambda {}", r1, r2, a,
                 n_g, circumference, wavelength);
}

long Ring::mode_order() const {
  return std::lround(n_eff_ * length_ / lambda_);
}
double Ring::fsr() const {
  return lambda_ * lambda_ / (n_g_ * length_);
}
double Ring::fsr_frequency() const {
  return kSpeedOfLight / (n_g_ * length_);
}
bool Ring::resolvable() const {
  return x() >= 3.0 - 2.0 * std::numbers::sqrt2;
}

double Ring::fwhm() const {
  if (!resolvable()) return std::numeric_limits<double>::quiet_NaN();
  const double x = this->x();
  const double phi_h = 2.0 * std::asin((1.0 - x) / (2.0 * std::sqrt(x)));
  const double u = phi_h / (2.0 * kPi * n_g_ * length_);
  const double s = 1.0 / lambda_;
  return 1.0 / (s - u) - 1.0 / (s + u);
}

double Ring::fwhm_closed_form() const {
  const double x = this->x();
  return fsr() * (1.0 - x) / (kPi * std::sqrt(x));
}

double Ring::q_intrinsic() const {
  const double alpha = -2.0 * std::log(a_) / length_;  // power attenuation per metre
  return alpha > 0 ? 2.0 * kPi * n_g_ / (lambda_ * alpha) : std::numeric_limits<double>::infinity();
}

double Ring::through_max() const {
  return at_phase(kPi).through;
}
double Ring::extinction_ratio_db() const {
  return 10.0 * std::log10(through_max() / through_min());
}
double Ring::weight_min() const {
  const PortPowers p = at_phase(0.0);
  return p.through - p.drop;
}
double Ring::weight_max() const {
  const PortPowers p = at_phase(kPi);
  return p.through - p.drop;
}

namespace {
// Detuning of the resonance (metres) that puts round-trip phase phi on a channel at lambda:
// phi = 2 pi n_g L (1/lambda - 1/(lambda + delta)).
double detuning_of_phase(double phi, double lambda, double n_g, double length) {
  return 1.0 / (1.0 / lambda - phi / (2.0 * kPi * n_g * length)) - lambda;
}
}  // namespace

std::optional<double> Ring::phase_for_weight(double w) const {
  // Closed-form inverse of w = T - D on [0, pi]. With S = sin^2(phi/2) the add-drop responses
  // (Bogaerts et al. 2012, the through and drop port equations quoted in ring.h) are
  //   T = (A + 4xS) / (B + 4xS),  D = Dn / (B + 4xS),  A = (r2 a - r1)^2, B = (1 - x)^2,
  //   Dn = (1 - r1^2)(1 - r2^2) a,
  // so w (B + 4xS) = A - Dn + 4xS, linear in S: S = (w B - A + Dn) / (4x (1 - w)). Written
  // with w_min = (A - Dn)/B (S = 0) and w_max = (A + 4x - Dn)/(B + 4x) (S = 1) as
  //   S = B (w - w_min) / (4x (1 - w)),  1 - S = (B + 4x)(w_max - w) / (4x (1 - w)),
  // tan^2(phi/2) = S / (1 - S) = B (w - w_min) / ((B + 4x)(w_max - w)): both ends are exact
  // (w = w_min -> phi = 0, w = w_max -> phi = pi) without cancellation, and w <= w_max < 1.
  const double w_min = weight_min(), w_max = weight_max();
  if (!(w >= w_min && w <= w_max)) return std::nullopt;
  const double s_num = den0_ * (w - w_min);
  const double c_num = (den0_ + four_x_) * (w_max - w);
  return 2.0 * std::atan2(std::sqrt(s_num), std::sqrt(c_num));
}

std::optional<double> Ring::detuning_for_weight(double w) const {
  const std::optional<double> phi = phase_for_weight(w);
  if (!phi) return std::nullopt;
  return detuning_of_phase(*phi, lambda_, n_g_, length_);
}

namespace {
// |dw/d delta| at phase phi: w = (A + 4xS - Dn) / (B + 4xS), S = sin^2(phi/2), so
// dw/dphi = 2 x sin(phi) (B - A + Dn) / (B + 4xS)^2, and d phi / d delta =
// 2 pi n_g L / (lambda + delta)^2.
double weight_slope(const Ring& r, double phi) {
  const double x = r.x();
  const double a_num = (r.r2() * r.a() - r.r1()) * (r.r2() * r.a() - r.r1());
  const double b = (1.0 - x) * (1.0 - x);
  const double dn = (1.0 - r.r1() * r.r1()) * (1.0 - r.r2() * r.r2()) * r.a();
  const double s = std::sin(0.5 * phi);
  const double den = b + 4.0 * x * s * s;
  const double dw_dphi = 2.0 * x * std::sin(phi) * (b - a_num + dn) / (den * den);
  const double delta = detuning_of_phase(phi, r.wavelength(), r.n_g(), r.circumference());
  const double lam = r.wavelength() + delta;
  return dw_dphi * 2.0 * kPi * r.n_g() * r.circumference() / (lam * lam);
}

// Phase of the steepest weight slope: coarse scan of [0, pi], then golden-section search.
double steepest_phase(const Ring& r) {
  constexpr int kSteps = 4096;
  int best = 1;
  double best_slope = 0.0;
  for (int i = 1; i < kSteps; ++i) {
    const double slope = weight_slope(r, kPi * i / kSteps);
    if (slope > best_slope) best_slope = slope, best = i;
  }
  double lo = kPi * (best - 1) / kSteps, hi = kPi * (best + 1) / kSteps;
  const double g = (std::sqrt(5.0) - 1.0) / 2.0;
  for (int i = 0; i < 200 && hi - lo > 1e-16; ++i) {
    const double m1 = hi - g * (hi - lo), m2 = lo + g * (hi - lo);
    if (weight_slope(r, m1) < weight_slope(r, m2))
      lo = m1;
    else
      hi = m2;
  }
  return 0.5 * (lo + hi);
}
}  // namespace

double Ring::max_weight_slope() const {
  return weight_slope(*this, steepest_phase(*this));
}
double Ring::max_weight_slope_detuning() const {
  return detuning_of_phase(steepest_phase(*this), lambda_, n_g_, length_);
}

}  // namespace lightsim::photonics
