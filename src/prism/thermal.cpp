// Thermal specs and the steady state (see thermal.h and docs/thermal.md).
#include "lightsim/prism/thermal.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include <fmt/format.h>

namespace lightsim::prism {

namespace {
constexpr double kZeroCelsius = 273.15;  // K
}  // namespace

void TecStageSpec::describe(config::Schema<TecStageSpec>& s) {
  s.help("One stage of the thermoelectric cooler: its loop and its Peltier element.");
  s.field("stability", &TecStageSpec::stability,
          "+- temperature excursion this stage must hold (checked against what its loop achieves)")
      .positive();
  s.field("bandwidth", &TecStageSpec::bandwidth,
          "closed-loop bandwidth of the stage's first-order control loop")
      .range("1 mHz", "10 kHz");
  s.field("zt", &TecStageSpec::zt,
          "thermoelectric figure of merit ZT of the Peltier element (Bi2Te3 ~0.8 at 300 K)")
      .range(0.01, 5.0);
  s.field("max_cop", &TecStageSpec::max_cop,
          "largest coefficient of performance reached (interfaces, driver, module size)")
      .range(0.01, 100.0);
  s.field("driver_power", &TecStageSpec::driver_power,
          "quiescent power of the stage's controller and driver")
      .min("0 W");
}

void TecSpec::describe(config::Schema<TecSpec>& s) {
  s.help("Two-stage TEC: `coarse` on the heat-sink side, `fine` under the chip.");
  s.field("enabled", &TecSpec::enabled, "TEC on (false: the chip floats with the ambient)");
  s.field("coarse", &TecSpec::coarse, "heat-sink-side stage (slow, rejects the ambient swing)");
  s.field("fine", &TecSpec::fine, "chip-side stage (fast, follows the chip's sensors)");
}

void SensorSpec::describe(config::Schema<SensorSpec>& s) {
  s.help("On-chip temperature sensors, time-interleaved.");
  s.field("rings_per_sensor", &SensorSpec::rings_per_sensor,
          "rings served by one sensor (the seed: one per 16 rings)")
      .range(1, 1 << 20);
  s.field("scan_period", &SensorSpec::scan_period,
          "time to read every sensor once (sensor k is read at k/S of the period)")
      .range("1 ns", "100 s");
  s.field("resolution", &SensorSpec::resolution,
          "quantization step of a reading (the seed: 0.01 C after calibration)")
      .positive();
}

void SupplyNoiseSpec::describe(config::Schema<SupplyNoiseSpec>& s) {
  s.help("Noise on the tuning supply (peak-to-peak read as 6 sigma of a Gaussian).");
  s.field("peak_to_peak", &SupplyNoiseSpec::peak_to_peak,
          "peak-to-peak noise on the tuning voltages (the seed budgets < 10 mVpp)")
      .min("0 V");
  s.field("heater_drive", &SupplyNoiseSpec::heater_drive,
          "heater voltage at full heater power (thermo-optic tuning only)")
      .positive();
}

void ClockSpec::describe(config::Schema<ClockSpec>& s) {
  s.help("Sampling clock of the TIA/ADC.");
  s.field("jitter", &ClockSpec::jitter, "rms clock jitter (the seed: 200 fs)").min("0 s");
}

void ThermalSpec::describe(config::Schema<ThermalSpec>& s) {
  s.help(
      "Thermal environment and control: ambient swing and random walk, package thermal "
      "resistance, two-stage TEC, temperature sensors, supply noise and clock jitter. "
      "Temperatures in degC are written like '25 C'.");
  s.field("ambient", &ThermalSpec::ambient, "mean ambient temperature, degC")
      .range("-55 C", "150 C");
  s.field("ambient_swing", &ThermalSpec::ambient_swing,
          "amplitude of the slow sinusoidal ambient swing")
      .range("0 K", "50 K");
  s.field("ambient_period", &ThermalSpec::ambient_period, "period of the ambient swing").positive();
  s.field("ambient_walk", &ThermalSpec::ambient_walk,
          "random walk of the ambient: rms change sigma sqrt(t / 1 s)")
      .min("0 K/sqrt(s)");
  s.field("local_walk", &ThermalSpec::local_walk,
          "random walk of each sensor region's temperature against the chip (gradients)")
      .min("0 K/sqrt(s)");
  s.field("ring_walk", &ThermalSpec::ring_walk,
          "random walk of each ring's own resonance, unseen by the sensors (stress, aging)")
      .min("0 m/sqrt(s)");
  s.field("setpoint", &ThermalSpec::setpoint, "chip temperature the TEC holds, degC")
      .range("-55 C", "150 C");
  s.field("package_resistance", &ThermalSpec::package_resistance,
          "chip-to-TEC thermal resistance of the package (the seed's CuW + silver sintering: "
          "0.5 C/W)")
      .min("0 K/W");
  s.field("heatsink_resistance", &ThermalSpec::heatsink_resistance,
          "TEC hot side to ambient thermal resistance")
      .min("0 K/W");
  s.field("heat_capacity", &ThermalSpec::heat_capacity,
          "lumped heat capacity of chip and substrate (time constant R_pkg C)")
      .positive();
  s.field("tec", &ThermalSpec::tec, "two-stage thermoelectric cooler");
  s.field("sensors", &ThermalSpec::sensors, "on-chip temperature sensors");
  s.field("supply", &ThermalSpec::supply, "tuning-supply noise");
  s.field("clock", &ThermalSpec::clock, "sampling clock");
  s.field("time_step", &ThermalSpec::time_step, "time step of the drift simulation")
      .range("1 us", "1 s");
  s.rule([](const ThermalSpec& t) -> std::optional<std::string> {
    if (t.tec.fine.bandwidth.si() < t.tec.coarse.bandwidth.si())
      return "tec.fine.bandwidth must be at least tec.coarse.bandwidth (the fine stage is the "
             "faster loop)";
    return std::nullopt;
  });
}

void ThermalSeedReference::describe(config::Schema<ThermalSeedReference>& s) {
  s.help("The seed's thermal and control figures, printed beside computed values (never inputs).");
  s.field("source", &ThermalSeedReference::source, "where the figures come from").required();
  s.field("control_needed", &ThermalSeedReference::control_needed, "+- control the design needs")
      .required();
  s.field("tec_stability", &ThermalSeedReference::tec_stability, "+- stability of the TEC")
      .required();
  s.field("tec_power", &ThermalSeedReference::tec_power, "TEC power").required();
  s.field("package_resistance", &ThermalSeedReference::package_resistance,
          "package thermal resistance")
      .required();
  s.field("sensor_resolution", &ThermalSeedReference::sensor_resolution,
          "temperature-map resolution")
      .required();
  s.field("rings_per_sensor", &ThermalSeedReference::rings_per_sensor, "rings per sensor")
      .required();
  s.field("lock_target", &ThermalSeedReference::lock_target, "+- bias-calibration lock").required();
  s.field("supply_noise", &ThermalSeedReference::supply_noise, "peak-to-peak supply noise")
      .required();
  s.field("clock_jitter", &ThermalSeedReference::clock_jitter, "rms clock jitter").required();
}

double tec_cop(double t_cold, double t_hot, double zt, double max_cop) {
  const double dt = t_hot - t_cold;
  if (dt <= 0.0) return max_cop;
  const double m = std::sqrt(1.0 + zt);  // Z T_mean, with zt given at the mean temperature
  const double cop = (t_cold / dt) * (m - t_hot / t_cold) / (m + 1.0);
  return std::min(cop, max_cop);
}

double loop_suppression(double amplitude, double f, double f_c) {
  return amplitude * f / std::sqrt(f * f + f_c * f_c);
}

namespace {

// Fills the heat, COP and electrical power of a stage whose cold and hot sides are set.
void pump(TecStagePoint& p, const TecStageSpec& spec, double heat) {
  p.heat = heat;
  p.cop = tec_cop(p.cold + kZeroCelsius, p.hot + kZeroCelsius, spec.zt, spec.max_cop);
  p.electrical = spec.driver_power.si() + (p.cop > 0.0 ? std::abs(heat) / p.cop : 0.0);
}

// Achieved +- stability of both stages: a sinusoid of amplitude A at f_a through S_1 (and
// S_2), a random walk of diffusion sigma giving an Ornstein-Uhlenbeck residual of rms
// sigma / sqrt(2 w_1) after one loop and sigma / sqrt(2 (w_1 + w_2)) after both (integrals of
// |S|^2 / w^2, docs/thermal.md), counted at 3 sigma; the fine loop adds its sensor's +-q/2.
void stabilities(const ThermalSpec& spec, ThermalOperatingPoint& op) {
  const double a = spec.ambient_swing.si(), fa = 1.0 / spec.ambient_period.si();
  const double sigma = spec.ambient_walk.si();
  const double f1 = spec.tec.coarse.bandwidth.si(), f2 = spec.tec.fine.bandwidth.si();
  const double w1 = 2.0 * std::numbers::pi * f1, w2 = 2.0 * std::numbers::pi * f2;
  const double a1 = loop_suppression(a, fa, f1);
  op.coarse.stability = a1 + 3.0 * sigma / std::sqrt(2.0 * w1);
  op.fine.stability = loop_suppression(a1, fa, f2) + 3.0 * sigma / std::sqrt(2.0 * (w1 + w2)) +
                      0.5 * spec.sensors.resolution.si();
  op.stability = op.fine.stability;
}

}  // namespace

ThermalOperatingPoint steady_state(const ThermalSpec& spec, Power dissipated) {
  ThermalOperatingPoint op;
  const double p = dissipated.si(), amb = spec.ambient.si();
  const double r_pkg = spec.package_resistance.si(), r_sink = spec.heatsink_resistance.si();
  op.ambient = amb;
  if (!spec.tec.enabled) {
    op.chip = amb + (r_pkg + r_sink) * p;
    op.stability = spec.ambient_swing.si();
    return op;
  }
  op.chip = spec.setpoint.si();
  const double cold = op.chip - r_pkg * p;
  // Fixed point: the heat rejected at the hot side (chip heat + pumping power of both stages)
  // sets the hot-side temperature, which sets the COPs. Converges in a few steps (dT/dP is
  // R_sink, small against 1/COP changes); 200 steps bound it.
  // When a stage's COP reaches 0 after the first step, the pumping power ran away (no fixed
  // point): the temperatures where the iteration stopped mean nothing, so the reason quotes
  // the first step (hot side set by the chip heat alone), whose figures do.
  double rejected = p;
  double first_pump = 0.0;  // W both stages pump at the first step (0: stopped there)
  int steps = 0;
  for (int it = 0; it < 200; ++it, ++steps) {
    const double hot = amb + r_sink * rejected;
    const double mid = 0.5 * (cold + hot);
    op.fine.cold = cold;
    op.fine.hot = mid;
    op.coarse.cold = mid;
    op.coarse.hot = hot;
    pump(op.fine, spec.tec.fine, p);
    if (op.fine.cop <= 0.0) break;
    const double fine_pump = op.fine.electrical - spec.tec.fine.driver_power.si();
    pump(op.coarse, spec.tec.coarse, p + fine_pump);
    if (op.coarse.cop <= 0.0) break;
    const double coarse_pump = op.coarse.electrical - spec.tec.coarse.driver_power.si();
    const double next = p + fine_pump + coarse_pump;
    if (it == 0) first_pump = fine_pump + coarse_pump;
    if (std::abs(next - rejected) <= 1e-12 * std::max(1.0, next)) {
      rejected = next;
      break;
    }
    rejected = next;
  }
  op.tec_power = op.fine.electrical + op.coarse.electrical;
  if (steps == 200) {  // neither converged nor stopped: no steady state found
    op.feasible = false;
    op.reason = fmt::format("the TEC's pumping power did not settle in 200 steps at {:.3g} W", p);
    return op;
  }
  for (const auto* stage : {&op.fine, &op.coarse})
    if (stage->cop <= 0.0) {
      op.feasible = false;
      const char* name = stage == &op.fine ? "fine" : "coarse";
      if (steps > 0) {
        op.reason = fmt::format(
            "the TEC has no steady state at {:.3g} W: holding the cold side at {:.2f} C "
            "(setpoint - R_pkg P) takes {:.3g} W of pumping at first, whose heat raises the hot "
            "side through R_sink and lowers the COP until the {} stage cannot pump at all (the "
            "pumping power runs away)",
            p, cold, first_pump, name);
        return op;
      }
      op.reason = fmt::format(
          "the {} TEC stage cannot pump {:.3g} W from {:.2f} C to {:.2f} C (ZT too low for a "
          "{:.1f} K difference)",
          name, stage->heat, stage->cold, stage->hot, stage->hot - stage->cold);
      return op;
    }
  stabilities(spec, op);
  const auto check = [&](const TecStagePoint& pt, const TecStageSpec& st, const char* name) {
    if (op.feasible && pt.stability > st.stability.si()) {
      op.feasible = false;
      op.reason = fmt::format(
          "the {} TEC stage holds +-{:.3g} K, its target is +-{:.3g} K (raise its bandwidth)", name,
          pt.stability, st.stability.si());
    }
  };
  check(op.coarse, spec.tec.coarse, "coarse");
  check(op.fine, spec.tec.fine, "fine");
  return op;
}

}  // namespace lightsim::prism
