// Thermal environment and control of a Prism chip (docs/thermal.md): ambient temperature with
// a slow swing and a random walk, self-heating through the package's thermal resistance, a
// two-stage thermoelectric cooler (TEC) holding the chip at a setpoint, on-chip temperature
// sensors, and the electrical impairments of the tuning supply and the sampling clock.
//
// Temperatures on the Celsius scale are stored as TemperatureDelta from 0 degC (write "25 C");
// their ranges reject a kelvin value by mistake. The ring's resonance temperature coefficient
// is the photonics device's (`tuning.thermal_shift`), never repeated here.
//
// Steady state (steady_state below), per Ioffe's thermoelectric cooler at the current of
// maximum COP (H. J. Goldsmid, "Introduction to Thermoelectricity", Springer 2010, eq. 6.18):
//   COP = (T_c / dT) (M - T_h / T_c) / (M + 1),  M = sqrt(1 + Z T_mean),  dT = T_h - T_c > 0.
#pragma once

#include <atomic>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lightsim/core/config.h"
#include "lightsim/core/table.h"
#include "lightsim/core/units.h"
#include "lightsim/photonics/mvm.h"
#include "lightsim/prism/calibration.h"
#include "lightsim/prism/operating_point.h"

namespace lightsim::photonics {
struct DeviceSpec;
}

namespace lightsim::prism {

// Dimensions the thermal model needs beyond units.h.
namespace thermal_dims {
inline constexpr Dim heat_capacity = dims::energy / dims::temperature;  // J/K
// Random-walk diffusion: rms change after time t is sigma * sqrt(t / 1 s).
inline constexpr Dim temperature_walk = dims::temperature / dims::time * sqrt(dims::time);
inline constexpr Dim length_walk = dims::length / dims::time * sqrt(dims::time);  // m/sqrt(s)
}  // namespace thermal_dims
using HeatCapacity = Quantity<thermal_dims::heat_capacity>;
using TemperatureWalk = Quantity<thermal_dims::temperature_walk>;  // K/sqrt(s)
using LengthWalk = Quantity<thermal_dims::length_walk>;            // m/sqrt(s)

// One TEC stage: a first-order loop (integral control, closed-loop bandwidth f_c, so the
// error of a disturbance at frequency f is suppressed by |S| = f / sqrt(f^2 + f_c^2)) on a
// Peltier element of figure of merit ZT whose COP follows Ioffe's formula above, capped at
// max_cop (interfaces, driver and module size, which ZT alone does not bound).
struct TecStageSpec {
  static constexpr std::string_view kind = "tec_stage";
  TemperatureDelta stability = TemperatureDelta::si(0.05);  // +- target the stage must hold
  Frequency bandwidth = Frequency::si(1.0);                 // closed-loop bandwidth f_c
  double zt = 0.8;                                          // Bi2Te3 near room temperature
  double max_cop = 3.0;
  Power driver_power = Power::si(0.05);  // controller + driver quiescent power
  static void describe(config::Schema<TecStageSpec>& s);
};

// Two cascaded stages: `coarse` on the heat-sink side, `fine` under the chip. Each stage
// carries half of the total temperature difference (a design choice, docs/thermal.md).
struct TecSpec {
  static constexpr std::string_view kind = "tec";
  bool enabled = true;
  TecStageSpec coarse{TemperatureDelta::si(0.5), Frequency::si(0.2), 0.8, 3.0, Power::si(0.05)};
  TecStageSpec fine{TemperatureDelta::si(0.05), Frequency::si(5.0), 0.8, 3.0, Power::si(0.05)};
  static void describe(config::Schema<TecSpec>& s);
};

// On-chip digital temperature sensors: one per `rings_per_sensor` rings, read one after the
// other (time-interleaved) so each is sampled once per `scan_period`, quantized to `resolution`.
struct SensorSpec {
  static constexpr std::string_view kind = "sensors";
  int rings_per_sensor = 16;
  Time scan_period = Time::si(1e-3);
  TemperatureDelta resolution = TemperatureDelta::si(0.01);
  static void describe(config::Schema<SensorSpec>& s);
};

// Noise on the tuning supply. Peak-to-peak taken as 6 sigma of a Gaussian (docs/thermal.md).
// Thermo-optic tuners see it through P = V^2 / R: dP / P = 2 dV / V at `heater_drive`.
struct SupplyNoiseSpec {
  static constexpr std::string_view kind = "supply_noise";
  Voltage peak_to_peak = Voltage::si(10e-3);
  Voltage heater_drive = Voltage::si(3.3);  // heater voltage at full power (thermo-optic only)
  static void describe(config::Schema<SupplyNoiseSpec>& s);
};

struct ClockSpec {
  static constexpr std::string_view kind = "clock";
  Time jitter = Time::si(200e-15);  // rms sampling-clock jitter at the TIA/ADC
  static void describe(config::Schema<ClockSpec>& s);
};

struct ThermalSpec {
  static constexpr std::string_view kind = "thermal";
  static constexpr std::string_view preset_dir = "thermal";

  TemperatureDelta ambient = TemperatureDelta::si(25.0);       // degC, mean ambient
  TemperatureDelta ambient_swing = TemperatureDelta::si(1.0);  // amplitude of the slow swing
  Time ambient_period = Time::si(300.0);                       // period of that swing
  TemperatureWalk ambient_walk = TemperatureWalk::si(0.01);    // random walk of the ambient
  TemperatureWalk local_walk = TemperatureWalk::si(0.002);     // per sensor region (gradients)
  LengthWalk ring_walk = LengthWalk::si(0.1e-12);  // per ring, unseen by sensors (pm/sqrt(s))
  TemperatureDelta setpoint = TemperatureDelta::si(25.0);             // degC, what the TEC holds
  ThermalResistance package_resistance = ThermalResistance::si(0.5);  // CuW + Ag sinter
  ThermalResistance heatsink_resistance = ThermalResistance::si(0.1);
  HeatCapacity heat_capacity = HeatCapacity::si(0.2);  // chip + substrate, lumped
  TecSpec tec;
  SensorSpec sensors;
  SupplyNoiseSpec supply;
  ClockSpec clock;
  Time time_step = Time::si(1e-3);  // step of the drift simulation

  static void describe(config::Schema<ThermalSpec>& s);
};

// The seed's thermal and control figures (../shared/SPEC.md sections 1.3, 1.5, 1.7), read from
// configs/references/prism_thermal_seed.yaml and printed beside computed values. Never inputs.
struct ThermalSeedReference {
  static constexpr std::string_view kind = "prism_thermal_seed_reference";
  std::string source;
  TemperatureDelta control_needed;  // +- control the design needs
  TemperatureDelta tec_stability;   // +- stability the two-stage TEC achieves
  Power tec_power;                  // TEC power
  ThermalResistance package_resistance;
  TemperatureDelta sensor_resolution;
  int rings_per_sensor = 0;
  Length lock_target;    // +- bias-calibration lock
  Voltage supply_noise;  // peak-to-peak
  Time clock_jitter;     // rms
  static void describe(config::Schema<ThermalSeedReference>& s);
};

// One TEC stage at a steady operating point.
struct TecStagePoint {
  double cold = 0.0;        // degC, cold side
  double hot = 0.0;         // degC, hot side
  double heat = 0.0;        // W pumped from the cold side (< 0: the stage heats its cold side)
  double cop = 0.0;         // heat / electrical power (Ioffe, capped)
  double electrical = 0.0;  // W, pumping power + driver power
  double stability = 0.0;   // K, +- residual excursion it achieves (ambient swing and walk)
};

// The chip in steady state for a dissipated power.
struct ThermalOperatingPoint {
  double chip = 0.0;           // degC, chip (sensor) temperature
  double ambient = 0.0;        // degC
  TecStagePoint coarse, fine;  // zero when the TEC is off
  // When !feasible, tec_power, stability and the stage figures are where the computation
  // stopped, not figures: consumers leave them out (cost.h, `prism thermal`).
  double tec_power = 0.0;  // W, both stages
  double stability = 0.0;  // K, +- chip excursion left by the loops (or ambient swing)
  bool feasible = true;
  std::string reason;  // why not feasible (a stage cannot pump, stability missed)
};

// Steady state for `dissipated` watts of on-chip heat. TEC off: chip = ambient + (R_pkg +
// R_sink) P. TEC on: the chip sits at the setpoint; the fine stage's cold side at setpoint - R_pkg
// P, the coarse stage's hot side at ambient + R_sink (heat rejected); the interface between
// the stages halves the difference. Infeasible (with a reason) when a stage's COP <= 0: at the
// first step (the difference is beyond ZT), or later (the pumping power runs away: its heat
// raises the hot side through R_sink faster than the COP allows; no fixed point exists).
ThermalOperatingPoint steady_state(const ThermalSpec& spec, Power dissipated);

// Ioffe's optimal-current COP for cold side t_cold and hot side t_hot (kelvin), figure of
// merit zt at the mean temperature; capped at max_cop, max_cop when t_hot <= t_cold; <= 0 when
// the stage cannot pump across the difference.
double tec_cop(double t_cold, double t_hot, double zt, double max_cop);

// Residual amplitude after a first-order loop of bandwidth f_c for a sinusoid of amplitude
// `amplitude` at frequency f: amplitude * f / sqrt(f^2 + f_c^2).
double loop_suppression(double amplitude, double f, double f_c);

// ---- electrical impairments --------------------------------------------------------------

// Effect of tuning-supply noise and clock jitter (docs/thermal.md, "Supply noise and jitter").
struct ElectricalImpairments {
  double supply_sigma = 0.0;       // V rms on the tuning supply (peak-to-peak / 6)
  double resonance_sigma = 0.0;    // m rms resonance jitter it causes
  double weight_sigma = 0.0;       // weight rms at the ring's steepest slope
  double jitter = 0.0;             // s rms
  double integration_error = 0.0;  // relative rms charge error of the TIA window: sqrt 2 sj / T
  double sine_snr_db = 0.0;        // full-scale sine at the TIA bandwidth: -20 log10(2 pi f sj)
  double jitter_enob = 0.0;        // (SNR - 1.76) / 6.02 of that sine
  int adc_bits = 0;
  bool limits_adc = false;  // jitter_enob < adc_bits
};
// Heaters are evaluated at their operating point `op` (operating_point.h).
ElectricalImpairments electrical_impairments(const photonics::DeviceSpec& device,
                                             const ThermalSpec& spec,
                                             const TunerOperatingPoint& op);

// ---- drift over simulated time -------------------------------------------------------------

struct DriftOptions {
  Time duration = Time::si(10.0);
  Time trace_interval = Time::si(10e-3);  // rings are updated and the trace sampled this often
  Power load_step = Power::si(0.0);       // extra chip heat from duration / 2 on (a workload)
  // Heat dissipated on the chip at the operating point. The accelerator's cost model is the
  // one source of this figure (cost.h, CostReport::dissipated_power: the tuners' holding
  // power plus the on-chip electronics at full query rate), so `prism cost` and
  // `prism thermal` price the same TEC operating point.
  Power heat = Power::si(0.0);
  std::uint64_t seed = 0;
  // Set (by a signal handler) to stop the run: polled every sample and every 4096 thermal
  // steps, it then throws Interrupted. Not owned; null = never cancelled.
  const std::atomic<bool>* cancel = nullptr;
};

// Most trace samples (duration / trace_interval) of one drift run: each costs a trace row.
inline constexpr double kMaxDriftSamples = 1e7;

// One row of the trace (at time t, after that interval's relocks).
struct DriftSample {
  double t = 0.0;                 // s
  double ambient = 0.0;           // degC
  double chip = 0.0;              // degC, chip mean (true)
  double sensor_mean = 0.0;       // degC, mean of the latest sensor readings
  double coarse_action = 0.0;     // K the coarse stage cancels
  double fine_action = 0.0;       // K the fine stage cancels
  double tec_power = 0.0;         // W, both stages (steady state at this ambient and load)
  double uncorrected_rms = 0.0;   // m, per-ring drift since t = 0 with no correction at all
  double error_rms = 0.0;         // m, resonance error after sensor correction and relocks
  double error_max = 0.0;         // m, largest |error|
  double weight_error_rms = 0.0;  // exact ring response at its steepest-slope point
  double weight_error_max = 0.0;
  int relocked_rows = 0;  // rows relocked in this interval
  int unlocked = 0;       // rings whose last lock failed
};

struct RecalibrationEvent {
  double t = 0.0;
  std::string trigger;  // "initial", "periodic", "temperature"
  int rows = 0;         // rows relocked
  int failed = 0;       // rings whose lock failed
  double time = 0.0;    // s the rows are busy (rows in parallel)
  double energy = 0.0;  // J
};

struct DriftRun {
  // False when the TEC cannot hold the chip (at the start, or after the load step): the run
  // stops there, with the reason, and the trace holds only the samples before it.
  bool feasible = true;
  std::string reason;
  ThermalOperatingPoint steady;  // at the starting ambient and load
  double dissipated = 0.0;       // W, chip heat at the start
  std::vector<DriftSample> trace;
  std::vector<RecalibrationEvent> events;
  CalibrationReport initial;  // the lock at t = 0 (per-ring results kept)
  double error_rms = 0.0;     // m, rms over the run of the per-ring error
  double error_max = 0.0;     // m
  double weight_error_rms = 0.0, weight_error_max = 0.0;
  double tec_energy = 0.0;                // J over the run
  double calibration_energy = 0.0;        // J over the run (initial lock included)
  double calibration_busy = 0.0;          // fraction of time a row is busy relocking (after t = 0)
  photonics::ImpairmentSpec impairments;  // state handed to the photonics kernel
  // The same run with no lock and no sensor correction (drift_recall.h): fabrication_sigma =
  // rms of the initial errors, drift_local_sigma = the uncorrected per-ring drift (rms over the
  // run, chip-wide part removed, supply noise in quadrature), drift_global_sigma as above.
  photonics::ImpairmentSpec uncalibrated;
};

// Simulates `device` under `spec` for options.duration (docs/thermal.md, "Drift"): ambient
// swing + random walk, self-heating through R_pkg C, the two TEC loops, time-interleaved
// quantized sensors feeding a per-ring correction (through the bias DAC), per-ring random
// walks, and relocks by `calibration`'s trigger. Rings start with an error uniform in
// +-max(calibration.initial_error, device fabrication_trim) and are locked at t = 0.
// A TEC that cannot hold the setpoint (steady_state infeasible) ends the run with
// feasible = false and the reason: at t = 0 before any lock, or at the first sample whose
// ambient and load it cannot pump; nothing is clamped. Deterministic for a seed.
DriftRun simulate_drift(const photonics::DeviceSpec& device, const ThermalSpec& spec,
                        const CalibrationSpec& calibration, const DriftOptions& options);

// The run's trace as a table, one row per trace interval: t [s], ambient, chip, sensor_mean
// [C], coarse_action, fine_action [K], tec_power [W], uncorrected_rms, error_rms, error_max
// [pm], weight_error_rms, weight_error_max, relocked_rows, unlocked_rings. `max_rows` > 0
// keeps every ceil(n / max_rows)-th row plus the last (relocked_rows then sums the rows it
// stands for, so no relock disappears); 0 keeps every row.
Table drift_trace_table(const DriftRun& run, std::size_t max_rows = 0);
// The recalibration events: t [s], trigger, rows, failed, time [s], energy [J].
Table recalibration_table(const DriftRun& run);

}  // namespace lightsim::prism
