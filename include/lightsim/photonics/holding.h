// Heater holding power: the power the thermo-optic heaters of a row draw to hold every ring at
// one bias weight, with the thermal crosstalk between neighbouring rings solved exactly. One
// definition for the photonics feasibility check (thermal budget) and Prism's tuner operating
// point (prism/operating_point.h; docs/photonics.md "Heater holding power").
//
// Ring j's resonance moves by slope x sum_k K_jk P_k (../shared/reference/photonics.md
// "Tuning": the ring's temperature rise R_th P times d lambda/dT; K = thermal_crosstalk_matrix,
// K_jj = 1). Holding every ring of a row at the same shift `shift` = delta(b w) - rest therefore
// takes P = K^-1 (shift / slope) 1: each ring's own heater supplies what its neighbours' heat
// does not. For K_jk = c^|j-k| (an AR(1) matrix, tridiagonal inverse) that is
// shift / slope x (1 - c) / (1 + c) inside the row and shift / slope / (1 + c) at its two ends,
// i.e. roughly shift / (slope x share) with share the row's mean sum_k K_jk. Without crosstalk
// (c = 0) it is shift / slope for every ring.
//   shift = delta(b w) - rest: delta(w) the exact inverse of the balanced weight w = T - D
//           (Ring::detuning_for_weight), w the weight range the ring reaches (min of
//           requirements.weight_range and the ring's limits), b the bias fraction (-1..1, 0 =
//           the middle of the weight range), rest = WeightProgrammer::rest_detuning() (the blue
//           end of the needed detunings, margins included).
#pragma once

#include <string>
#include <vector>

#include "lightsim/photonics/device.h"

namespace lightsim::photonics {

struct HeaterHolding {
  double bias_fraction = 0.0;  // b
  double bias_weight = 0.0;    // b x w
  double bias_detuning = 0.0;  // m, delta(b w)
  double rest = 0.0;           // m, detuning at zero heater power
  double shift = 0.0;          // m, bias_detuning - rest: what the heaters add to every ring
  double slope = 0.0;          // m/W, R_th d lambda/dT
  double share = 1.0;          // row mean of sum_k K_jk (thermal sharing; 1 without crosstalk)
  // ||K^-1||_inf (1 without crosstalk): locking independent resonance offsets of up to +-m
  // moves each ring's own heater by up to correction_gain x m / slope, since the row settles at
  // K dP slope = -offsets and the neighbours' corrections heat it too. AR(1): (1 + c)/(1 - c).
  double correction_gain = 1.0;
  std::vector<double> power;  // W per ring of a row (channel order): K^-1 (shift / slope) 1
  double mean_power = 0.0;    // W, mean over the row
  double min_power = 0.0;     // W, least-powered ring (inside the row)
  double max_power = 0.0;     // W, most-powered ring (the row's ends)
  bool holds = true;          // every ring within [0, tuning.max_heater_power]
  std::string reason;         // why not, when !holds
};

// The holding power of `device`'s heaters at bias fraction `bias_fraction` (-1..1). Requires a
// thermo-optic tuner (InputError otherwise); never throws for a design that does not hold
// (holds = false with the reason).
HeaterHolding heater_holding_power(const DeviceSpec& device, double bias_fraction);

}  // namespace lightsim::photonics
