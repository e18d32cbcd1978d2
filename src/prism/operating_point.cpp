// The tuner's operating point (see operating_point.h, docs/thermal.md "Operating point").
#include "lightsim/prism/operating_point.h"

#include <algorithm>

#include <fmt/format.h>

#include "lightsim/photonics/device.h"
#include "lightsim/photonics/weights.h"

namespace lightsim::prism {

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
    op.bias_weight = calibration.heater_bias * w;
    op.bias_detuning = *ring.detuning_for_weight(op.bias_weight);
    op.max_power = tuning.max_heater_power.si();
    op.control = (op.bias_detuning - op.rest) / slope;
    op.power = op.control;
    op.lock = {-op.control * slope, (op.max_power - op.control) * slope};
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
