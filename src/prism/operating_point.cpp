// The tuner's operating point (see operating_point.h, docs/thermal.md "Operating point").
#include "lightsim/prism/operating_point.h"

#include <algorithm>

#include <fmt/format.h>

#include "lightsim/photonics/device.h"
#include "lightsim/photonics/holding.h"
#include "lightsim/photonics/weights.h"

namespace lightsim::prism {

namespace {

// A lock moves a ring by its own heater (K_jj = 1) between 0 and P_max: the least-powered ring
// bounds the blue side, the most-powered the red side, for every ring alike.
LockRange heater_lock(const photonics::HeaterHolding& h, double max_power, double slope) {
  return {-h.min_power * slope, (max_power - h.max_power) * slope};
}

// The two remedies for a heater lock whose blue side falls short of op.correction_reach at bias
// `bias`, appended to op.reason: the least calibration.heater_bias in (bias, 1] that covers
// (only the blue side grows with the bias, so bisection), and rings fabricated bluer than the
// rest point (the blue end of the needed detunings, which leaves out the neighbours' heat;
// holding powers are linear in the shift, so the least-powered ring reaches the correction at
// shift x reach / lock).
void add_blue_remedies(TunerOperatingPoint& op, const photonics::DeviceSpec& device, double bias,
                       const photonics::HeaterHolding& h, double slope) {
  const double need = op.correction_reach;
  const auto covered = [&](const photonics::HeaterHolding& at) {
    const LockRange l = heater_lock(at, op.max_power, slope);
    return at.holds && l.lo <= -need && l.hi >= need;
  };
  if (bias < 1.0 && covered(photonics::heater_holding_power(device, 1.0))) {
    double lo = bias, hi = 1.0;
    while (hi - lo > 1e-4) {
      const double mid = 0.5 * (lo + hi);
      const photonics::HeaterHolding at = photonics::heater_holding_power(device, mid);
      (heater_lock(at, op.max_power, slope).lo <= -need ? hi : lo) = mid;
    }
    const photonics::HeaterHolding at = photonics::heater_holding_power(device, hi);
    if (covered(at)) {
      op.covering_bias = hi;
      op.covering_power = at.mean_power;
    }
  }
  op.reason += op.covering_bias >= 0.0
                   ? fmt::format(
                         "; calibration.heater_bias >= {:.4f} covers it, at {:.4g} mW "
                         "mean per ring",
                         op.covering_bias, op.covering_power * 1e3)
                   : "; no calibration.heater_bias up to 1 covers it";
  const double scale = need / -op.lock.lo;
  if (h.shift > 0.0 && (op.max_power - h.max_power * scale) * slope >= need) {
    op.rest_shortfall = h.shift * (scale - 1.0);
    op.rest_power = h.mean_power * scale;
    op.reason += fmt::format(
        "; a rest point {:.4g} pm bluer covers it at this bias, at {:.4g} mW mean per ring",
        op.rest_shortfall * 1e12, op.rest_power * 1e3);
  }
}

}  // namespace

TunerOperatingPoint operating_point(const photonics::DeviceSpec& device,
                                    const CalibrationSpec& calibration) {
  TunerOperatingPoint op;
  const photonics::TuningSpec& tuning = device.tuning;
  const photonics::WeightProgrammer programmer(device);
  const photonics::Ring& ring = programmer.ring();
  op.heater = tuning.mechanism == photonics::TuningMechanism::thermo_optic;
  // The same weight range and margins as the WeightProgrammer's rest point.
  const double w =
      std::min({device.requirements.weight_range, -ring.weight_min(), ring.weight_max()});
  op.margin = tuning.thermal_shift.si() * tuning.temperature_stability.si() +
              device.requirements.fabrication_trim.si();
  op.needed_lo = *ring.detuning_for_weight(-w) - op.margin;
  op.needed_hi = *ring.detuning_for_weight(w) + op.margin;
  op.rest = programmer.rest_detuning();
  op.span = photonics::tuning_span(tuning);
  const double slope = photonics::tuning_slope(tuning);
  if (op.needed_hi - op.needed_lo > op.span) {
    op.covers = false;
    op.reason = fmt::format(
        "the weights (+-{:.3g}) plus +-{:.3g} pm of fabrication trim and drift need {:.4g} pm "
        "of tuning, the tuner spans {:.4g} pm",
        w, op.margin * 1e12, (op.needed_hi - op.needed_lo) * 1e12, op.span * 1e12);
  }
  if (op.heater) {
    // The photonics layer's holding power (photonics/holding.h): thermal sharing solved exactly.
    const photonics::HeaterHolding h =
        photonics::heater_holding_power(device, calibration.heater_bias);
    op.bias_weight = h.bias_weight;
    op.bias_detuning = h.bias_detuning;
    op.max_power = tuning.max_heater_power.si();
    op.ring_power = h.power;
    op.control = h.mean_power;
    op.power = h.mean_power;
    op.lock = heater_lock(h, op.max_power, slope);
    if (!h.holds) {
      op.covers = false;
      op.reason += (op.reason.empty() ? "" : "; ") + h.reason;
    }
    // The lock must still absorb the margin both ways, ring by ring: independent offsets of up
    // to +-margin settle at K dP slope = -offsets, so a ring's own heater moves by up to
    // ||K^-1||_inf x margin (h.correction_gain; its neighbours' corrections heat it too). With
    // thermal sharing a ring's own heater also holds only part of its shift, so the blue side
    // is the one that falls short.
    op.correction_reach = h.correction_gain * op.margin;
    const double need = op.correction_reach;
    if (op.lock.lo > -need || op.lock.hi < need) {
      op.covers = false;
      op.reason += fmt::format(
          "{}from its holding power each ring's own heater reaches [{:.4g}, {:+.4g}] pm, short "
          "of the +-{:.4g} pm that +-{:.4g} pm of fabrication trim and drift can ask of it{}",
          op.reason.empty() ? "" : "; ", op.lock.lo * 1e12, op.lock.hi * 1e12, need * 1e12,
          op.margin * 1e12,
          h.share > 1.0
              ? fmt::format(" (thermal crosstalk: neighbours' heat holds part of its shift, "
                            "sharing x{:.3g}, and their corrections add to its own, x{:.3g})",
                            h.share, h.correction_gain)
              : "");
      if (op.lock.lo > -need) add_blue_remedies(op, device, calibration.heater_bias, h, slope);
    }
  } else {
    // Pockels: zero volts at rest; the bias trim shares the weight's +-V_max.
    op.bias_weight = 0.0;
    op.bias_detuning = op.rest;
    op.power = tuning.static_power.si();
    op.lock = {-0.5 * op.span, 0.5 * op.span};
  }
  return op;
}

}  // namespace lightsim::prism
