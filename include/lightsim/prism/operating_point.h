// The tuner's operating point: where a ring's tuner sits when it holds its design bias, the
// power that costs and the corrections the bias lock can still make from there. One
// definition serves the calibration (lock range, heater power holding the locks), the cost
// model (static tuning power) and the supply-noise impairment (docs/thermal.md, "Operating
// point").
//
// Derived from the configuration (docs/photonics.md, "Tuning" and "Weight programming"):
//   margin  = device.requirements.fabrication_trim + tuning.thermal_shift x
//             tuning.temperature_stability: the resonance error (fabrication variation +
//             residual drift after the TEC) the tuner must absorb on either side;
//   needed  = [delta(-w) - margin, delta(+w) + margin], delta(w) the exact inverse of the
//             balanced weight w = T - D (Ring::detuning_for_weight), w = the weight range the
//             ring reaches (min of requirements.weight_range and the ring's own limits);
//   rest    = the detuning at zero control, photonics::WeightProgrammer::rest_detuning()
//             (Pockels: centre of `needed`; heaters, red shift only: its blue end);
//   bias    = delta(b w), b = calibration.heater_bias (-1..1): the weight the ring holds at
//             its operating point, as a fraction of the weight range;
//   control = (bias - rest) / slope, slope = R_th (d lambda/dT) [m/W] (heaters: ring temperature
//             rise R_th P times the thermo-optic shift; ../shared/reference/photonics.md
//             "Tuning") or eta [m/V] (Pockels).
// Heaters: power = control (W, heater power linear in the temperature rise R_th P); the lock
// can move the resonance by [-control, P_max - control] x slope. Pockels: the ring idles at
// zero volts with tuning.static_power (leakage) and the lock reaches +-eta V_max (the bias
// trim shares the weight's voltage range); the bias weight does not change its power.
#pragma once

#include <string>

#include "lightsim/prism/calibration.h"

namespace lightsim::photonics {
struct DeviceSpec;
}

namespace lightsim::prism {

struct TunerOperatingPoint {
  bool heater = false;         // thermo-optic (true) or Pockels
  double margin = 0.0;         // m, fabrication trim + drift after the TEC, each side
  double needed_lo = 0.0;      // m, lowest detuning the design must reach (delta(-w) - margin)
  double needed_hi = 0.0;      // m, highest (delta(+w) + margin)
  double rest = 0.0;           // m, detuning at zero control
  double span = 0.0;           // m, tuning span (photonics::tuning_span)
  double bias_weight = 0.0;    // the weight held at the operating point
  double bias_detuning = 0.0;  // m, delta(bias_weight)
  double control = 0.0;        // W (heater power) or V at the bias point
  double power = 0.0;          // W per ring holding the bias (heater: control; Pockels: leakage)
  double max_power = 0.0;      // W, P_max (heaters), 0 for Pockels
  LockRange lock;              // m, corrections reachable from the bias point
  bool covers = true;          // the span covers `needed` (weights + margins)
  std::string reason;          // why not, when !covers
};

// The operating point of `device`'s tuner under `calibration` (see above). Never throws for a
// design that does not fit: `covers` is false with the reason.
TunerOperatingPoint operating_point(const photonics::DeviceSpec& device,
                                    const CalibrationSpec& calibration);

}  // namespace lightsim::prism
