// Feasibility checks of a device (see feasibility.h). Each check states its numbers.
#include "lightsim/photonics/feasibility.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "lightsim/core/json.h"
#include "lightsim/photonics/holding.h"
#include "lightsim/photonics/link_budget.h"

namespace lightsim::photonics {
namespace {

constexpr double kC = 299792458.0;
constexpr double kNm = 1e9, kPm = 1e12;

FeasibilityCheck aliasing_check(const DeviceSpec& dev, const Ring& ring) {
  const auto lambdas = channel_wavelengths(dev.grid);
  const int d = dev.grid.channels;
  const double spacing = dev.grid.spacing.si();
  const double centre = 0.5 * (lambdas.front() + lambdas.back());
  const double fsr = centre * centre / (ring.n_g() * ring.circumference());
  const double span = (d - 1) * spacing;
  FeasibilityCheck c{"aliasing", d * spacing <= fsr, d * spacing * kNm, fsr * kNm, "nm", ""};
  // Closest pair modulo the FSR, exact in optical frequency (the response is periodic in nu).
  double best = std::numeric_limits<double>::infinity();
  int bj = 0, bk = 0;
  const double fsr_nu = ring.fsr_frequency();
  for (int j = 0; j < d; ++j)
    for (int k = j + 1; k < d; ++k) {
      const double dnu = std::fmod(std::abs(kC / lambdas[j] - kC / lambdas[k]), fsr_nu);
      const double dist = std::min(dnu, fsr_nu - dnu) * centre * centre / kC;
      if (dist < best) best = dist, bj = j, bk = k;
    }
  const int per_fsr = static_cast<int>(std::floor(fsr / spacing + 1e-9));
  if (c.passed) {
    c.message = fmt::format(
        "{} channels at {:.4g} nm occupy {:.4g} nm of the ring's {:.4g} nm FSR (up to {} fit)", d,
        spacing * kNm, d * spacing * kNm, fsr * kNm, per_fsr);
  } else {
    c.message = fmt::format(
        "{} channels at {:.4g} nm span {:.4g} nm ({:.2f} to {:.2f} nm), {:.2f} times the ring's "
        "FSR (R = {:.4g} um, n_g = {:.3g}: FSR {:.4g} nm at {:.1f} nm, {:.4g} nm at the grid "
        "centre): only {} channels at this spacing fit in one FSR, so channels alias onto the "
        "same resonance orders; closest pair modulo the FSR: channel {} ({:.3f} nm) and channel "
        "{} ({:.3f} nm), {:.3g} nm apart ({:.2f} FWHM)",
        d, spacing * kNm, span * kNm, lambdas.front() * kNm, lambdas.back() * kNm,
        d * spacing / fsr, ring.circumference() / (2 * std::numbers::pi) * 1e6, ring.n_g(),
        ring.fsr() * kNm, ring.wavelength() * kNm, fsr * kNm, per_fsr, bj, lambdas[bj] * kNm, bk,
        lambdas[bk] * kNm, best * kNm, best / ring.fwhm());
  }
  return c;
}

FeasibilityCheck crosstalk_check(const DeviceSpec& dev, const Ring& ring) {
  const auto lambdas = channel_wavelengths(dev.grid);
  const double target = dev.requirements.crosstalk_target.si();
  const double fwhm = ring.fwhm();
  const double need = spacing_for_isolation(fwhm, target);
  if (dev.grid.channels < 2)
    return {"crosstalk", true, -std::numeric_limits<double>::infinity(),
            target,      "dB", "one channel: no crosstalk"};
  const CrosstalkSummary s = summarize(crosstalk_matrix(ring, lambdas));
  FeasibilityCheck c{"crosstalk", s.worst_db <= target, s.worst_db, target, "dB", ""};
  if (c.passed) {
    c.message = fmt::format(
        "worst crosstalk {:.1f} dB (ring {} on channel {}) meets the target {:.1f} dB; summed "
        "over all rings the worst channel ({}) leaks {:.1f} dB",
        s.worst_db, s.worst_ring, s.worst_channel, target, s.worst_aggregate_channel,
        s.worst_aggregate_db);
  } else {
    const double fsr = ring.fsr();
    c.message = fmt::format(
        "worst crosstalk {:.1f} dB (ring {} drops channel {} at {:.3g} of its peak) exceeds the "
        "target {:.1f} dB: {:.1f} dB needs a spacing of at least {:.3g} nm ({:.3g} FWHM of {:.4g} "
        "pm at Q {:.3g}), so at most {} channels fit in the {:.4g} nm FSR; the grid has {} at "
        "{:.4g} nm",
        s.worst_db, s.worst_ring, s.worst_channel, std::pow(10.0, s.worst_db / 10.0), target,
        target, need * kNm, need / fwhm, fwhm * kPm, ring.q_loaded(),
        static_cast<int>(std::floor(fsr / need)), fsr * kNm, dev.grid.channels,
        dev.grid.spacing.si() * kNm);
  }
  return c;
}

// Detuning span from weight -w to +w on one side of resonance (metres).
double weight_span(const Ring& ring, double w) {
  return *ring.detuning_for_weight(w) - *ring.detuning_for_weight(-w);
}

double usable_weight(const Ring& ring) {
  return std::min(-ring.weight_min(), ring.weight_max());
}

FeasibilityCheck weight_range_check(const DeviceSpec& dev, const Ring& ring) {
  const double want = dev.requirements.weight_range;
  const double have = usable_weight(ring);
  FeasibilityCheck c{"weight_range", want <= have, want, have, "", ""};
  c.message = fmt::format(
      "the ring's balanced weight T - D spans [{:.4f}, {:.4f}] (extinction {:.1f} dB, D0 "
      "{:.4f}), so the symmetric range is +-{:.4f}; requested +-{:.3g}",
      ring.weight_min(), ring.weight_max(), ring.extinction_ratio_db(), ring.drop_peak(), have,
      want);
  if (!c.passed) c.message += ": not reachable";
  return c;
}

// Everything the tuner must cover (metres) and its parts.
struct TuningNeed {
  double weights, drift, trim, total;
};
TuningNeed tuning_need(const DeviceSpec& dev, const Ring& ring) {
  const double w = std::min(dev.requirements.weight_range, usable_weight(ring));
  TuningNeed n{weight_span(ring, w),
               dev.tuning.thermal_shift.si() * dev.tuning.temperature_stability.si(),
               dev.requirements.fabrication_trim.si(), 0.0};
  n.total = n.weights + 2.0 * n.drift + 2.0 * n.trim;
  return n;
}

FeasibilityCheck tuning_check(const DeviceSpec& dev, const Ring& ring) {
  const TuningNeed need = tuning_need(dev, ring);
  const double have = tuning_span(dev.tuning);
  FeasibilityCheck c{"tuning_range", need.total <= have, need.total * kPm, have * kPm, "pm", ""};
  const std::string reach =
      dev.tuning.mechanism == TuningMechanism::pockels
          ? fmt::format("{:.4g} pm ({:.3g} pm/V x +-{:.3g} V)", have * kPm,
                        dev.tuning.pockels_efficiency.si() * kPm, dev.tuning.max_voltage.si())
          : fmt::format("{:.4g} pm ({:.3g} pm/mW x {:.3g} mW)", have * kPm,
                        tuning_slope(dev.tuning) * kPm * 1e-3,
                        dev.tuning.max_heater_power.si() * 1e3);
  c.message = fmt::format(
      "weights in +-{:.3g} need {:.4g} pm of detuning ({:.2f} FWHM), plus +-{:.3g} pm of "
      "temperature drift ({:.3g} pm/K x {:.3g} K) and +-{:.3g} pm of fabrication trim: {:.4g} "
      "pm in all; the tuner reaches {}",
      std::min(dev.requirements.weight_range, usable_weight(ring)), need.weights * kPm,
      need.weights / ring.fwhm(), need.drift * kPm, dev.tuning.thermal_shift.si() * kPm,
      dev.tuning.temperature_stability.si(), need.trim * kPm, need.total * kPm, reach);
  if (!c.passed) c.message += fmt::format(", {:.3g} times too little", need.total / have);
  return c;
}

FeasibilityCheck thermal_check(const DeviceSpec& dev, double bias_fraction) {
  const double rings = static_cast<double>(dev.bank.rows) * dev.grid.channels;
  const double budget = dev.requirements.thermal_budget.si();
  double per_ring = dev.tuning.static_power.si();
  std::string how = fmt::format("{:.3g} uW bias per ring", per_ring * 1e6);
  if (dev.tuning.mechanism == TuningMechanism::thermo_optic) {
    // The heaters' holding power at the bias weight (holding.h: every ring of a row at the same
    // shift, neighbours' heat shared exactly through the thermal crosstalk matrix).
    const HeaterHolding h = heater_holding_power(dev, bias_fraction);
    per_ring = h.mean_power;
    how = fmt::format(
        "{:.4g} mW mean heater power per ring holding weight {:+.3g} ({}; thermal sharing "
        "x{:.3g} solved exactly)",
        per_ring * 1e3, h.bias_weight,
        bias_fraction == 0.0 ? "the middle of the weight range"
                             : fmt::format("bias {:+.3g} of the weight range", bias_fraction),
        h.share);
  }
  const double total = rings * per_ring + dev.tuning.tec_power.si();
  FeasibilityCheck c{"thermal_budget", total <= budget, total, budget, "W", ""};
  c.message = fmt::format(
      "static power {:.4g} W ({} rows x {} rings x {} + TEC {:.3g} W) {} the thermal budget "
      "{:.3g} W",
      total, dev.bank.rows, dev.grid.channels, how, dev.tuning.tec_power.si(),
      c.passed ? "is within" : "exceeds", budget);
  return c;
}

FeasibilityCheck link_check(const DeviceSpec& dev) {
  const LinkBudget b = link_budget(dev);
  FeasibilityCheck c{"link_budget", b.enob >= b.target_enob && b.adc_utilization <= 1.0,
                     b.enob,        b.target_enob,
                     "bits",        ""};
  const double dbm = 10.0 * std::log10(b.line_power / 1e-3);
  c.message = fmt::format(
      "{:.4g} dBm per line arrives as {:.4g} uW per row after {:.3g} dB of loss; signal "
      "{:.4g} uA against {:.3g} nA rms noise: SNR {:.1f} dB, ENOB {:.2f} bits (target {:.3g})",
      dbm, b.row_power * 1e6, b.total_loss_db, b.signal_current * 1e6,
      std::sqrt(b.noise.total()) * 1e9, b.snr_db, b.enob, b.target_enob);
  if (std::isfinite(b.required_line_power))
    c.message += fmt::format(
        "; the target needs {:.4g} dBm per line ({:.3g} W of laser wall "
        "power)",
        10.0 * std::log10(b.required_line_power / 1e-3), b.required_wall_power);
  else
    c.message += "; no laser power up to 10 W per line reaches it (RIN or ADC bound)";
  c.message +=
      fmt::format("; the full swing uses {:.0f}% of the ADC range{}", 100.0 * b.adc_utilization,
                  b.adc_utilization > 1.0 ? ": it clips (lower the TIA gain)" : "");
  return c;
}

}  // namespace

std::vector<std::string> FeasibilityReport::reasons() const {
  std::vector<std::string> out;
  for (const auto& c : checks)
    if (!c.passed) out.push_back(c.message);
  return out;
}

FeasibilityReport check_feasibility(const DeviceSpec& device) {
  return check_feasibility(device, 0.0);
}

FeasibilityReport check_feasibility(const DeviceSpec& device, double bias_fraction) {
  const Ring ring = ring_of(device);
  FeasibilityReport r;
  r.checks = {aliasing_check(device, ring),         crosstalk_check(device, ring),
              weight_range_check(device, ring),     tuning_check(device, ring),
              thermal_check(device, bias_fraction), link_check(device)};
  r.feasible =
      std::all_of(r.checks.begin(), r.checks.end(), [](const auto& c) { return c.passed; });
  return r;
}

Json to_json(const FeasibilityReport& report) {
  Json checks = Json::array();
  for (const auto& c : report.checks) {
    Json limit = std::isfinite(c.limit) ? Json(c.limit) : Json();
    checks.push_back({{"name", c.name},
                      {"passed", c.passed},
                      {"value", std::isfinite(c.value) ? Json(c.value) : Json()},
                      {"limit", limit},
                      {"unit", c.unit},
                      {"message", c.message}});
  }
  return {{"feasible", report.feasible}, {"reasons", report.reasons()}, {"checks", checks}};
}

}  // namespace lightsim::photonics
