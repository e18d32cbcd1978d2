// Closed-loop bias calibration (docs/thermal.md, "Calibration"): each ring's resonance is
// locked to its target by a binary search on a bias DAC that trims the tuner, until the
// remaining uncertainty is within +-target. A ring whose error lies outside the tuner's range
// fails with a reason (a result, not an exception). The lock's residual errors become the
// photonics impairment state (`ImpairmentSpec::calibration_residual`).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lightsim/core/config.h"
#include "lightsim/core/rng.h"
#include "lightsim/core/units.h"
#include "lightsim/photonics/mvm.h"
#include "lightsim/photonics/tuning.h"

namespace lightsim::photonics {
struct DeviceSpec;
}

namespace lightsim::prism {

enum class RecalibrationTrigger { periodic, temperature, both };

struct CalibrationSpec {
  static constexpr std::string_view kind = "calibration";

  Length target = Length::si(2e-12);  // +- lock tolerance on the resonance
  // Each ring's resonance error before its first lock, uniform in +-this (fabrication residue
  // after trimming, programming error); the device's fabrication_trim is used when larger.
  Length initial_error = Length::si(10e-12);
  int max_iterations = 16;                       // binary-search steps allowed per ring and lock
  Time iteration_time = Time::si(1e-6);          // set bias, settle, measure the error sign
  Energy iteration_energy = Energy::si(20e-12);  // DAC write + monitor conversion
  int bias_dac_bits = 12;  // resolution of the bias trim over the tuner's range
  Length measurement_noise = Length::si(0.2e-12);  // rms error of one error-sign measurement
  int max_sweeps = 4;  // passes over a row (thermal crosstalk moves locked neighbours)
  RecalibrationTrigger trigger = RecalibrationTrigger::both;
  Time interval = Time::si(1.0);  // periodic relock of every ring
  TemperatureDelta temperature_threshold = TemperatureDelta::si(0.05);  // sensor change
  // Heaters: the weight a ring holds at its operating point, as a fraction of the weight range
  // (-1..1); sets the static heater power and the lock range (operating_point.h).
  double heater_bias = 0.0;

  static void describe(config::Schema<CalibrationSpec>& s);
};

std::string to_string(RecalibrationTrigger t);

// The resonance shift (metres) the bias lock can add to a ring from its operating point.
struct LockRange {
  double lo = 0.0;
  double hi = 0.0;
};
// Pockels tuners only: [-eff V_max, +eff V_max] about zero volts. A heater's range depends on
// its operating point (operating_point.h, TunerOperatingPoint::lock); asking here throws.
LockRange lock_range(const photonics::TuningSpec& tuning);

// Outcome of locking one ring.
struct LockResult {
  bool locked = false;
  int iterations = 0;
  double correction = 0.0;  // m, shift the bias applies
  double residual = 0.0;    // m, offset + correction after the lock
  std::string reason;       // empty when locked
};

// Binary search for the bias that cancels `offset` (metres, the ring's resonance error before
// correction) over `range` quantized to 2^bias_dac_bits codes. Each step measures the sign of
// (offset + correction + noise), noise ~ N(0, measurement_noise) from `noise`. Stops when the
// search interval is within +-target or after max_iterations; fails with a reason when the
// offset is outside the range or the DAC step is coarser than the target.
LockResult lock_ring(const CalibrationSpec& spec, LockRange range, double offset,
                     RandomStream& noise);

// Locking the rings of one row in order. With thermal crosstalk c (thermo-optic), ring j sees
// raw[j] + bias[j] + sum_{k != j} c^|j-k| bias[k]; `bias` holds each ring's correction (in/out).
// With c > 0 the row is swept again (each ring re-read once, one iteration each) until every
// ring is within target or max_sweeps; results[j].residual is then the final error.
struct RowLock {
  int sweeps = 0;
  int max_iterations = 0;    // most iterations one ring's lock took
  long iterations = 0;       // all measurements of the row (locks and checks)
  long locks = 0;            // ring locks performed
  long lock_iterations = 0;  // measurements of the locks alone (checks excluded)
};
RowLock lock_row(const CalibrationSpec& spec, LockRange range, double crosstalk,
                 std::span<const double> raw, std::span<double> bias, std::span<LockResult> results,
                 RandomStream& noise);

// Statistics of locking every ring of a bank.
struct CalibrationReport {
  std::vector<LockResult> rings;  // rows x channels, row-major
  int rows = 0, channels = 0;
  int locked = 0, failed = 0;
  int sweeps = 0;                 // passes over each row (thermal crosstalk)
  int max_iterations = 0;         // most iterations any ring's lock took in one sweep
  double mean_iterations = 0.0;   // per ring lock (sweep re-reads excluded)
  double time = 0.0;              // s; rows in parallel, rings of a row one after the other
  double energy = 0.0;            // J, all iterations
  double residual_rms = 0.0;      // m, over locked rings
  double residual_max = 0.0;      // m, largest |residual| over locked rings
  double weight_error_max = 0.0;  // |dw| at the ring's steepest slope for residual_max
  double heater_power = 0.0;      // W, heaters holding the locks: sum of operating-point power
                                  // + each ring's correction / slope (thermo-optic)
  std::string first_failure;      // reason of the first failed ring, if any
};

// Locks every ring of `device`'s bank from its operating point (operating_point.h: lock range
// and heater power), rings of a row in order, each starting from
// offsets[r * channels + j] (metres). With thermal crosstalk (thermo-optic), a ring's change of
// heater shift moves ring k of the same row by c^|j-k| times that change, so the row is swept
// again until every ring is within target or max_sweeps is reached. Deterministic for a seed.
CalibrationReport calibrate_bank(const photonics::DeviceSpec& device, const CalibrationSpec& spec,
                                 std::span<const double> offsets, std::uint64_t seed);

// The impairment state after calibration: calibration_residual = the report's residual rms.
photonics::ImpairmentSpec with_calibration(photonics::ImpairmentSpec impairments,
                                           const CalibrationReport& report);

}  // namespace lightsim::prism
