// What impairs the photonic MVM kernel (mvm.h): which effects are on and the standard
// deviations of the resonance errors drawn per Monte-Carlo trial and per query.
#pragma once

#include <string_view>

#include "lightsim/core/config.h"

namespace lightsim::photonics {

// What is impaired; each part can be switched off. All offsets are resonance shifts.
// Presets in configs/impairments/ (`preset: typical`).
struct ImpairmentSpec {
  static constexpr std::string_view kind = "impairments";
  static constexpr std::string_view preset_dir = "impairments";
  bool crosstalk = true;     // leakage between channels and bus order (off: own channel only)
  bool quantization = true;  // DAC codes (off: each ring sits exactly at its target detuning)
  bool dac_errors = true;    // per-trial DAC gain error (+ calibration table) and INL/DNL
  Length fabrication_sigma = Length::si(0.0);     // static resonance error per ring, untrimmed
  Length calibration_residual = Length::si(0.0);  // static error left by the lock, per ring
  Length drift_global_sigma = Length::si(0.0);    // drift common to the chip, per trial
  Length drift_local_sigma = Length::si(0.0);     // per-ring drift
  double correlation_rings = 0.0;  // correlation length of the per-ring drift, ring pitches
  // Per-query local drift in time (MvmKernel::score_with_drift, DriftProcess): an
  // Ornstein-Uhlenbeck process with this time constant (0: independent every query), updated
  // every K = max(1, floor(tau / (10 T))) queries by its exact transition over K T and held in
  // between; T = query_period, or the TIA integration window when query_period is 0.
  Time drift_time_constant = Time::si(0.0);
  Time query_period = Time::si(0.0);
  // Time between updates of that process (0: a tenth of drift_time_constant), so K =
  // max(1, floor(drift_refresh / T)) queries.
  Time drift_refresh = Time::si(0.0);
  // Realistic drift: drift_time_constant and drift_refresh are set from the accelerator's
  // thermal model (prism::with_thermal_drift, docs/thermal.md "Drift in time"). The photonics
  // kernel alone has no thermal model and refuses it until they are set.
  bool thermal_drift = false;
  // Heat of neighbouring heaters shifts each ring through the tuning's thermal-crosstalk matrix
  // (thermo-optic devices; uncompensated by the weight programming).
  bool heater_crosstalk = true;
  bool noise = true;  // detector/RIN/ADC noise per query (terms: device.noise)
  // Weight-space noise (for like-for-like comparison with abstract Monte-Carlo models): each
  // ring's requested weight w gets w + weight_noise * weight_range * z, z ~ N(0, 1) drawn per
  // trial, before the inversion to a detuning (weight_range = device.requirements.weight_range,
  // the full scale of the Prism mapping). 0 = off.
  double weight_noise = 0.0;
  static void describe(config::Schema<ImpairmentSpec>& s);
};

// AR(1) coefficient of the per-ring drift field from one ring to the next along the bus (and
// down the columns for a trial's state): exp(-1 / correlation_rings), 0 when uncorrelated.
double drift_neighbour_correlation(const ImpairmentSpec& impairments);

}  // namespace lightsim::photonics
