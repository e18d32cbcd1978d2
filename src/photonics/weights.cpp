// Weight programming (see weights.h).
#include "lightsim/photonics/weights.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "lightsim/core/error.h"
#include "lightsim/photonics/device.h"

namespace lightsim::photonics {

void DacSpec::describe(config::Schema<DacSpec>& s) {
  s.help("Tuning DAC of each ring: resolution, static errors and calibration.");
  s.field("bits", &DacSpec::bits, "resolution; codes span the tuner's full control range")
      .range(1, 20);
  s.field("inl", &DacSpec::inl, "peak integral nonlinearity in LSB (bow)").range(0.0, 64.0);
  s.field("dnl", &DacSpec::dnl, "peak differential nonlinearity in LSB (random per step)")
      .range(0.0, 0.99);
  s.field("gain_error", &DacSpec::gain_error,
          "each DAC's gain error is uniform in +-gain_error (0.05 = +-5%)")
      .range(0.0, 0.5);
  s.field("calibrated", &DacSpec::calibrated,
          "a calibration table stores each DAC's measured gain and corrects the code");
  s.field("calibration_residual", &DacSpec::calibration_residual,
          "+- error of the measured gain in the calibration table (fraction)")
      .range(0.0, 0.5);
}

DacInstance DacInstance::ideal(const DacSpec& spec) {
  DacInstance d;
  d.code_error.assign(std::size_t{1} << spec.bits, 0.0);
  return d;
}

DacInstance DacInstance::sample(const DacSpec& spec, RandomStream& stream) {
  DacInstance d = ideal(spec);
  const double g = spec.gain_error * (2.0 * stream.uniform() - 1.0);
  d.gain = 1.0 + g;
  d.calibrated_gain =
      spec.calibrated ? d.gain + spec.calibration_residual * (2.0 * stream.uniform() - 1.0) : 1.0;
  const double top = static_cast<double>(d.code_error.size() - 1);
  for (std::size_t k = 0; k < d.code_error.size(); ++k)
    d.code_error[k] = spec.inl * std::sin(std::numbers::pi * static_cast<double>(k) / top) +
                      spec.dnl * (stream.uniform() - 0.5);
  return d;
}

WeightProgrammer::WeightProgrammer(const DeviceSpec& device)
    : ring_(ring_of(device)), tuning_(device.tuning), slope_(tuning_slope(device.tuning)) {
  // Rest point: the design puts the resonance so that the control range is centred on the
  // detunings the weights need (Pockels, both directions) or starts just below them
  // (heaters, red shift only), with the drift and fabrication margins on both sides.
  const double w =
      std::min({device.requirements.weight_range, -ring_.weight_min(), ring_.weight_max()});
  const double margin =
      device.tuning.thermal_shift.si() * device.tuning.temperature_stability.si() +
      device.requirements.fabrication_trim.si();
  const double lo = *ring_.detuning_for_weight(-w) - margin;
  const double hi = *ring_.detuning_for_weight(w) + margin;
  if (device.tuning.mechanism == TuningMechanism::pockels) {
    rest_ = 0.5 * (lo + hi);
    c_max_ = device.tuning.max_voltage.si();
    c_min_ = -c_max_;
  } else {
    rest_ = lo;
    c_min_ = 0.0;
    c_max_ = device.tuning.max_heater_power.si();
  }
  codes_ = 1 << device.dac.bits;
  thermal_shift_ = tuning_.thermal_shift.si();
  lsb_ = (c_max_ - c_min_) / (codes_ - 1);
}

double WeightProgrammer::target_detuning(double w) const {
  return *ring_.detuning_for_weight(std::clamp(w, ring_.weight_min(), ring_.weight_max()));
}

ProgrammedWeight WeightProgrammer::program(double w, const DacInstance& dac, double delta_t) const {
  return program_to(w, target_detuning(w), dac, delta_t);
}

ProgrammedWeight WeightProgrammer::program_to(double w, double target, const DacInstance& dac,
                                              double delta_t) const {
  ProgrammedWeight p;
  p.requested = w;
  const double w_lo = ring_.weight_min(), w_hi = ring_.weight_max();
  p.target_detuning = target;
  check_profile(dac);
  const DacStep step =
      dac_step(target, dac.gain, dac.calibrated_gain, dac.code_error.data(), delta_t);
  p.out_of_range = !(w >= w_lo && w <= w_hi) || step.clipped;
  p.code = step.code;
  p.control = step.control;
  p.detuning = step.detuning;
  p.achieved = ring_.weight(ring_.wavelength(), p.detuning);
  return p;
}

void WeightProgrammer::check_profile(const DacInstance& dac) const {
  LIGHTSIM_CHECK(dac.code_error.size() == static_cast<std::size_t>(codes_),
                 "program_to: a DAC instance of {} codes for a {}-code DAC", dac.code_error.size(),
                 codes_);
}

}  // namespace lightsim::photonics
