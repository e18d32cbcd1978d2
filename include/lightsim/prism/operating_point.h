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
//   heaters: the holding power of photonics::heater_holding_power (photonics/holding.h): every
//             ring of a row held at bias, P = K^-1 ((bias - rest) / slope) 1 with the thermal
//             crosstalk matrix K (neighbours' heat shared exactly), slope = R_th (d lambda/dT)
//             [m/W] (../shared/reference/photonics.md "Tuning"); ring_power holds P per ring,
//             power = control = its mean.
// Heaters: each ring's own heater can go from 0 to P_max, so the lock can move any ring by
// [-min_j P_j, P_max - max_j P_j] x slope; it covers the design when that reaches
// +-||K^-1||_inf x margin (independent offsets of +-margin settle at K dP slope = -offsets, so
// the neighbours' corrections add to a ring's own), and otherwise names the least
// calibration.heater_bias that does (covering_bias). Pockels: the ring idles at zero volts with
// tuning.static_power (leakage) and the lock reaches +-eta V_max (the bias trim shares the
// weight's voltage range); the bias weight does not change its power.
#pragma once

#include <string>
#include <vector>

#include "lightsim/prism/calibration.h"

namespace lightsim::photonics {
struct DeviceSpec;
}

namespace lightsim::prism {

struct TunerOperatingPoint {
  bool heater = false;             // thermo-optic (true) or Pockels
  double margin = 0.0;             // m, fabrication trim + drift after the TEC, each side
  double needed_lo = 0.0;          // m, lowest detuning the design must reach (delta(-w) - margin)
  double needed_hi = 0.0;          // m, highest (delta(+w) + margin)
  double rest = 0.0;               // m, detuning at zero control
  double span = 0.0;               // m, tuning span (photonics::tuning_span)
  double bias_weight = 0.0;        // the weight held at the operating point
  double bias_detuning = 0.0;      // m, delta(bias_weight)
  double control = 0.0;            // W (mean heater power) or V at the bias point
  double power = 0.0;              // W per ring holding the bias, mean (Pockels: leakage)
  std::vector<double> ring_power;  // W per ring of a row, channel order (heaters; else empty)
  double max_power = 0.0;          // W, P_max (heaters), 0 for Pockels
  LockRange lock;                  // m, corrections reachable from the bias point
  double correction_reach = 0.0;   // m, what the margin can ask of one ring's own heater each
                                   // way: ||K^-1||_inf x margin (heaters; margin without crosstalk)
  bool covers = true;  // the span covers `needed` (weights + margins) and the lock reaches
                       // +-correction_reach from the bias point (heaters)
  std::string reason;  // why not, when !covers
  // Heaters whose lock falls short of the margin on the blue side: the least
  // calibration.heater_bias in (bias, 1] at which it covers both sides (found by bisection to
  // 1e-4; the holding power rises with the bias, so the blue reach does), and the mean power
  // per ring there (W). covering_bias < 0 when no bias up to 1 covers, or when not needed.
  double covering_bias = -1.0;
  double covering_power = 0.0;
  // The other remedy at this bias: rings fabricated rest_shortfall (m) bluer than `rest`, which
  // makes every holding power grow in proportion; the mean power per ring there (W). 0 when not
  // needed or when the red side would then fall short.
  double rest_shortfall = 0.0;
  double rest_power = 0.0;
};

// The operating point of `device`'s tuner under `calibration` (see above). Never throws for a
// design that does not fit: `covers` is false with the reason.
TunerOperatingPoint operating_point(const photonics::DeviceSpec& device,
                                    const CalibrationSpec& calibration);

}  // namespace lightsim::prism
