// The impairment spec of the MVM kernel (impairments.h).
#include "lightsim/photonics/impairments.h"

#include <cmath>

namespace lightsim::photonics {

void ImpairmentSpec::describe(config::Schema<ImpairmentSpec>& s) {
  s.help("Impairments of the MVM kernel: what is drawn per Monte-Carlo trial and per query.");
  s.field("crosstalk", &ImpairmentSpec::crosstalk,
          "leakage between channels with bus order (off: each ring sees its own channel only)");
  s.field("quantization", &ImpairmentSpec::quantization,
          "DAC codes (off: rings sit exactly at their target detunings)");
  s.field("dac_errors", &ImpairmentSpec::dac_errors,
          "per-trial DAC gain error (corrected by the calibration table) and INL/DNL");
  s.field("fabrication_sigma", &ImpairmentSpec::fabrication_sigma,
          "standard deviation of each ring's static resonance error (untrimmed)")
      .min("0 pm");
  s.field("calibration_residual", &ImpairmentSpec::calibration_residual,
          "standard deviation of the resonance error the lock leaves, per ring")
      .min("0 pm");
  s.field("drift_global_sigma", &ImpairmentSpec::drift_global_sigma,
          "standard deviation of the chip-wide drift, per trial")
      .min("0 pm");
  s.field("drift_local_sigma", &ImpairmentSpec::drift_local_sigma,
          "standard deviation of each ring's own drift")
      .min("0 pm");
  s.field("correlation_rings", &ImpairmentSpec::correlation_rings,
          "correlation length of the per-ring drift in ring pitches (exponential; 0 = "
          "independent)")
      .min(0.0);
  s.field("drift_time_constant", &ImpairmentSpec::drift_time_constant,
          "time constant of the per-query local drift (Ornstein-Uhlenbeck; 0 = independent "
          "every query); it is updated every drift_refresh (0: tau / 10)")
      .min("0 s");
  s.field("query_period", &ImpairmentSpec::query_period,
          "time between queries T (0 = one TIA integration window)")
      .min("0 s");
  s.field("drift_refresh", &ImpairmentSpec::drift_refresh,
          "time between updates of the per-query local drift (0 = a tenth of "
          "drift_time_constant); it is updated every max(1, floor(drift_refresh / T)) queries")
      .min("0 s");
  s.field("thermal_drift", &ImpairmentSpec::thermal_drift,
          "realistic drift: drift_time_constant and drift_refresh from the accelerator's thermal "
          "model (relock interval, ring and regional walks, sensor scan period; "
          "docs/thermal.md)");
  s.field("heater_crosstalk", &ImpairmentSpec::heater_crosstalk,
          "neighbouring heaters shift each ring through the tuning's thermal-crosstalk matrix "
          "(thermo-optic devices, uncompensated)");
  s.field("noise", &ImpairmentSpec::noise,
          "draw detector, RIN and ADC noise per query (terms switched in the device's noise)");
  s.field("weight_noise", &ImpairmentSpec::weight_noise,
          "weight-space noise: each ring's requested weight gets an additive Gaussian of this "
          "standard deviation, as a fraction of the full scale device.requirements."
          "weight_range, drawn per trial before the weight is programmed (0 = off; for "
          "comparison with abstract Monte-Carlo models)")
      .range(0.0, 10.0);
}

double drift_neighbour_correlation(const ImpairmentSpec& impairments) {
  return impairments.correlation_rings > 0 ? std::exp(-1.0 / impairments.correlation_rings) : 0.0;
}

}  // namespace lightsim::photonics
