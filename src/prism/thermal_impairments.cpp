// Chip heat, supply noise and clock jitter (see thermal.h, docs/thermal.md).
#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "lightsim/photonics/device.h"
#include "lightsim/prism/thermal.h"

namespace lightsim::prism {

namespace {
bool uses_heaters(const photonics::DeviceSpec& device) {
  return device.tuning.mechanism == photonics::TuningMechanism::thermo_optic;
}
}  // namespace

ElectricalImpairments electrical_impairments(const photonics::DeviceSpec& device,
                                             const ThermalSpec& spec,
                                             const TunerOperatingPoint& op) {
  ElectricalImpairments out;
  // Supply noise: a Gaussian whose +-3 sigma spans the peak-to-peak budget.
  out.supply_sigma = spec.supply.peak_to_peak.si() / 6.0;
  if (uses_heaters(device)) {
    // P = V^2 / R with V_drive giving P_max: at the operating point P_op,
    // V = V_drive sqrt(P_op / P_max) and dP/dV = 2 P / V = 2 sqrt(P_op P_max) / V_drive;
    // shift = R_h (d lambda/dT) dP.
    const double dp_dv =
        2.0 * std::sqrt(std::max(op.power, 0.0) * op.max_power) / spec.supply.heater_drive.si();
    out.resonance_sigma = photonics::tuning_slope(device.tuning) * dp_dv * out.supply_sigma;
  } else {
    out.resonance_sigma = device.tuning.pockels_efficiency.si() * out.supply_sigma;
  }
  out.weight_sigma = photonics::ring_of(device).max_weight_slope() * out.resonance_sigma;
  // Jitter: an integrate-and-dump window of length T with both edges jittered (independent)
  // collects a charge error I sqrt(2) sigma_t out of I T; sampling a full-scale sine at the
  // TIA bandwidth gives SNR = -20 log10(2 pi f sigma_t) (W. Kester, ADI tutorial MT-007).
  out.jitter = spec.clock.jitter.si();
  out.integration_error = std::numbers::sqrt2 * out.jitter / device.tia.integration_window.si();
  const double x = 2.0 * std::numbers::pi * device.tia.bandwidth.si() * out.jitter;
  out.sine_snr_db = x > 0.0 ? -20.0 * std::log10(x) : std::numeric_limits<double>::infinity();
  out.jitter_enob = (out.sine_snr_db - 1.76) / 6.02;
  out.adc_bits = device.adc.bits;
  out.limits_adc = out.jitter_enob < out.adc_bits;
  return out;
}

}  // namespace lightsim::prism
