// The calibration spec (see calibration.h).
#include "lightsim/prism/calibration.h"

namespace lightsim::prism {

void CalibrationSpec::describe(config::Schema<CalibrationSpec>& s) {
  s.help(
      "Closed-loop bias calibration: binary search per ring on a bias trim until the resonance "
      "is within +-target; when to relock.");
  s.field("target", &CalibrationSpec::target,
          "+- lock tolerance on the resonance (the seed: 2 pm, ~6-bit weights)")
      .positive();
  s.field("initial_error", &CalibrationSpec::initial_error,
          "+- bound of each ring's resonance error before its first lock (uniform; the device's "
          "requirements.fabrication_trim when larger)")
      .min("0 pm");
  s.field("max_iterations", &CalibrationSpec::max_iterations,
          "binary-search steps allowed per ring and lock")
      .range(1, 64);
  s.field("iteration_time", &CalibrationSpec::iteration_time,
          "one step: write the bias, let the tuner settle, measure the error sign")
      .positive();
  s.field("iteration_energy", &CalibrationSpec::iteration_energy,
          "energy of one step (bias DAC write + monitor conversion)")
      .min("0 J");
  s.field("bias_dac_bits", &CalibrationSpec::bias_dac_bits,
          "resolution of the bias trim over the tuner's full range")
      .range(1, 24);
  s.field("measurement_noise", &CalibrationSpec::measurement_noise,
          "rms error of one measurement of the resonance error (monitor noise, in pm)")
      .min("0 pm");
  s.field("max_sweeps", &CalibrationSpec::max_sweeps,
          "passes over a row until thermal crosstalk leaves every ring within target")
      .range(1, 100);
  s.enumeration("trigger", &CalibrationSpec::trigger,
                {{"periodic", RecalibrationTrigger::periodic},
                 {"temperature", RecalibrationTrigger::temperature},
                 {"both", RecalibrationTrigger::both}},
                "what starts a relock: periodic (every `interval`), temperature (a sensor moved "
                "by `temperature_threshold` since its region's last lock) or both");
  s.field("interval", &CalibrationSpec::interval, "period of the periodic relock").positive();
  s.field("temperature_threshold", &CalibrationSpec::temperature_threshold,
          "sensor change since the last lock of its region that triggers a relock")
      .positive();
  s.field("heater_bias", &CalibrationSpec::heater_bias,
          "heater-tuned rings: the weight each ring holds at its operating point, as a fraction "
          "of the weight range (0 = the middle); sets the static heater power and the lock "
          "range (docs/thermal.md, \"Operating point\")")
      .range(-1.0, 1.0);
}

std::string to_string(RecalibrationTrigger t) {
  switch (t) {
    case RecalibrationTrigger::periodic:
      return "periodic";
    case RecalibrationTrigger::temperature:
      return "temperature";
    case RecalibrationTrigger::both:
      break;
  }
  return "both";
}

}  // namespace lightsim::prism
