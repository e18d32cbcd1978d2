// Weight programming: a weight in [-1, 1] becomes a resonance detuning by inverting the exact
// balanced response w = T - D of the ring, then a tuning control value (V or W), then a DAC
// code with quantization, INL/DNL and gain error (optionally corrected by a calibration
// table). The achieved weight is what the ring gives back at the detuning the DAC produced.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string_view>
#include <vector>

#include "lightsim/core/config.h"
#include "lightsim/core/rng.h"
#include "lightsim/photonics/ring.h"
#include "lightsim/photonics/tuning.h"

namespace lightsim::photonics {

struct DeviceSpec;

// The tuning DAC of one ring. Its codes span the tuner's full control range: [-V_max, V_max]
// (Pockels) or [0, P_max] (heater power, linear in the code).
struct DacSpec {
  static constexpr std::string_view kind = "dac";
  int bits = 6;
  double inl = 0.0;                   // peak integral nonlinearity, LSB (bow across the range)
  double dnl = 0.0;                   // peak differential nonlinearity, LSB (random per code step)
  double gain_error = 0.0;            // each DAC's gain is off by a uniform draw in [-g, +g]
  bool calibrated = true;             // a calibration table (ROM) stores each DAC's measured gain
  double calibration_residual = 0.0;  // +- error of that measurement (fraction of gain)
  static void describe(config::Schema<DacSpec>& s);
};

// One DAC's static errors, drawn once per chip (per Monte-Carlo trial).
struct DacInstance {
  double gain = 1.0;               // actual gain 1 + g
  double calibrated_gain = 1.0;    // what the calibration table believes (1 when uncalibrated)
  std::vector<double> code_error;  // [k]: output error of code k, in LSB (INL profile)

  // Ideal DAC: no errors.
  static DacInstance ideal(const DacSpec& spec);
  // Errors drawn from `stream`: gain uniform in +-gain_error, calibration residual uniform in
  // +-calibration_residual; code error e_k = inl sin(pi k / (2^b - 1)) + dnl u_k with u_k
  // uniform in [-1/2, 1/2], so |DNL| = |e_{k+1} - e_k| <= dnl + pi inl / (2^b - 1).
  static DacInstance sample(const DacSpec& spec, RandomStream& stream);
};

struct ProgrammedWeight {
  double requested = 0.0;
  double target_detuning = 0.0;  // metres, from inverting w = T - D
  int code = 0;
  double control = 0.0;       // V or W the DAC puts out
  double detuning = 0.0;      // metres, achieved (with drift delta_t)
  double achieved = 0.0;      // w = T - D at that detuning
  bool out_of_range = false;  // requested weight beyond the ring, or code clipped
};

// Maps weights to DAC codes for one device. Cheap to copy; no allocation when programming.
class WeightProgrammer {
 public:
  explicit WeightProgrammer(const DeviceSpec& device);

  // Programs weight w with a given DAC at temperature offset delta_t (kelvin) from the
  // calibration point (the controller does not see delta_t: it shows up as drift).
  ProgrammedWeight program(double w, const DacInstance& dac, double delta_t = 0.0) const;
  // The DAC-independent part of program(w, ...): the detuning that puts the ring at weight w
  // (w clamped to the ring's range), metres, by the closed-form inversion
  // Ring::detuning_for_weight.
  double target_detuning(double w) const;
  // program(w, dac, delta_t) with target = target_detuning(w) precomputed (for callers that
  // program the same weight under many DACs).
  ProgrammedWeight program_to(double w, double target, const DacInstance& dac,
                              double delta_t = 0.0) const;
  // The DAC step of program_to without evaluating the achieved weight: the code for `target`
  // through a DAC of gain `gain` whose calibration table holds `calibrated_gain`, with the
  // INL/DNL profile `code_error` (LSB per code; codes() entries, which the caller checks with
  // check_profile), and the detuning it gives (metres). clipped: the ideal code fell outside
  // the DAC's range. Inline: bank preparation programs every ring of a state with it.
  struct DacStep {
    int code = 0;
    double control = 0.0;   // V or W
    double detuning = 0.0;  // metres
    bool clipped = false;
  };
  DacStep dac_step(double target, double gain, double calibrated_gain, const double* code_error,
                   double delta_t = 0.0) const {
    DacStep s;
    const long code = round_code(ideal_code(target, calibrated_gain));
    s.clipped = code < 0 || code >= codes_;
    s.code = clamp_code(code);
    s.control = code_control(s.code, gain, code_error);
    s.detuning = control_detuning(s.control, delta_t);
    return s;
  }
  // The parts of dac_step, in its order (BankState::set_state runs them as separate passes).
  // The code the calibration table asks for, before rounding: it divides out the gain it
  // measured (1 when uncalibrated).
  double ideal_code(double target, double calibrated_gain) const {
    const double target_control = (target - rest_) / slope_;
    return (target_control / calibrated_gain - c_min_) / lsb_;
  }
  // std::lround(x) (halves away from zero) without the libm call for |x| < 2^62.
  static long round_code(double x) {
    const double a = std::fabs(x);
    if (!(a < 0x1p62)) return std::lround(x);  // huge or NaN: libm's own result
    const long t = static_cast<long>(a);       // trunc: exact, and a - t is exact
    const long r = t + (a - static_cast<double>(t) >= 0.5 ? 1 : 0);
    return x < 0.0 ? -r : r;
  }
  int clamp_code(long code) const {
    return static_cast<int>(std::clamp<long>(code, 0, codes_ - 1));
  }
  double code_control(int code, double gain, const double* code_error) const {
    return gain * (c_min_ + (code + code_error[code]) * lsb_);
  }
  double control_detuning(double control, double delta_t = 0.0) const {
    return rest_ + slope_ * control + thermal_shift_ * delta_t;
  }
  // The programmed detuning of a rounded code (dac_step's detuning from its code on).
  double code_detuning(long code, double gain, const double* code_error) const {
    return control_detuning(code_control(clamp_code(code), gain, code_error));
  }
  // Throws InternalError unless `dac` has one code error per code of this DAC.
  void check_profile(const DacInstance& dac) const;

  const Ring& ring() const { return ring_; }
  // Detuning of the resonance at zero control (the design's rest point), metres.
  double rest_detuning() const { return rest_; }
  double control_min() const { return c_min_; }
  double control_max() const { return c_max_; }
  double lsb() const { return lsb_; }  // control per code
  int codes() const { return codes_; }
  // Detuning per code (metres): the quantization step of the resonance position.
  double detuning_lsb() const { return lsb_ * slope_; }

 private:
  Ring ring_;
  TuningSpec tuning_;
  double rest_ = 0.0, c_min_ = 0.0, c_max_ = 0.0, lsb_ = 0.0, slope_ = 0.0;
  double thermal_shift_ = 0.0;  // d lambda / dT of the tuning, m/K
  int codes_ = 0;
};

}  // namespace lightsim::photonics
