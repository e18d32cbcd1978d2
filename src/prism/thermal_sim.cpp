// Drift over simulated time: ambient, self-heating, two TEC loops, sensors, per-ring
// correction and relocks (see thermal.h, docs/thermal.md "Drift").
#include <algorithm>
#include <cmath>
#include <numbers>

#include "lightsim/core/error.h"
#include "lightsim/photonics/device.h"
#include "lightsim/prism/thermal.h"

namespace lightsim::prism {

namespace {

// Stream ids (with the run's seed) of the independent random parts.
enum StreamId : std::uint64_t { kAmbient = 1, kLocal = 2, kRing = 3, kFabrication = 4, kLock = 5 };

// The slow, chip-wide thermal state: ambient, self-heating, the two loops, the regions.
class ThermalLoop {
 public:
  // `base`: the chip's steady temperature at the start (the setpoint, or ambient + R P with
  // the TEC off); the state is the deviation from it.
  ThermalLoop(const ThermalSpec& spec, double base, int regions, std::uint64_t seed)
      : spec_(spec),
        base_(base),
        dt_(spec.time_step.si()),
        g1_(1.0 - std::exp(-2.0 * std::numbers::pi * spec.tec.coarse.bandwidth.si() * dt_)),
        g2_(1.0 - std::exp(-2.0 * std::numbers::pi * spec.tec.fine.bandwidth.si() * dt_)),
        tau_(spec.package_resistance.si() * spec.heat_capacity.si()),
        local_(static_cast<std::size_t>(regions), 0.0),
        prev_(static_cast<std::size_t>(regions), 0.0),
        reading_(static_cast<std::size_t>(regions), quantize(base)),
        z_(static_cast<std::size_t>(regions)),
        ambient_stream_(seed, {kAmbient}),
        local_stream_(seed, {kLocal}) {}

  // Advances one time step to t + dt with `extra` watts of chip heat above the start.
  void step(double t, double extra) {
    const double t1 = t + dt_;
    walk_ += spec_.ambient_walk.si() * std::sqrt(dt_) * ambient_stream_.normal();
    ambient_ = spec_.ambient.si() +
               spec_.ambient_swing.si() *
                   std::sin(2.0 * std::numbers::pi * t1 / spec_.ambient_period.si()) +
               walk_;
    // Self-heating above the starting load: first order, tau = R_pkg C.
    const double target = spec_.package_resistance.si() * extra;
    heat_ = tau_ > 0.0 ? target + (heat_ - target) * std::exp(-dt_ / tau_) : target;
    const bool tec = spec_.tec.enabled;
    // Coarse stage: its plate sensor sees the ambient disturbance exactly.
    const double plate = (ambient_ - spec_.ambient.si()) - u1_;
    if (tec) u1_ += g1_ * plate;
    error_ = (ambient_ - spec_.ambient.si()) - u1_ + heat_ - u2_;
    // Regions: their random walks; sensor k read at (n + k/S) scan_period, interpolated
    // inside the step, quantized.
    local_stream_.fill_normal(std::span(z_));
    const double scan = spec_.sensors.scan_period.si();
    const double s = static_cast<double>(local_.size());
    const double sl = spec_.local_walk.si() * std::sqrt(dt_);
    const double chip0 = chip_prev_, chip1 = chip();
    for (std::size_t k = 0; k < local_.size(); ++k) {
      prev_[k] = local_[k];
      local_[k] += sl * z_[k];
      const double phase = static_cast<double>(k) / s * scan;
      const double read = std::floor((t1 - phase) / scan) * scan + phase;
      if (read > t) {
        const double f = (read - t) / dt_;
        const double temp = chip0 + prev_[k] + f * ((chip1 + local_[k]) - (chip0 + prev_[k]));
        reading_[k] = quantize(temp);
      }
    }
    chip_prev_ = chip1;
    // Fine stage: follows the mean sensor reading.
    double mean = 0.0;
    for (double r : reading_) mean += r;
    sensor_mean_ = mean / s;
    if (tec) u2_ += g2_ * (sensor_mean_ - base_);
  }

  double chip() const { return base_ + error_; }
  double region_temperature(std::size_t k) const { return chip() + local_[k]; }
  double reading(std::size_t k) const { return reading_[k]; }
  double ambient() const { return ambient_; }
  double sensor_mean() const { return sensor_mean_; }
  double coarse_action() const { return u1_; }
  double fine_action() const { return u2_; }

 private:
  double quantize(double temp) const {
    const double q = spec_.sensors.resolution.si();
    return q * std::round(temp / q);
  }

  const ThermalSpec& spec_;
  double base_, dt_, g1_, g2_, tau_;
  double ambient_ = spec_.ambient.si(), walk_ = 0.0, heat_ = 0.0, u1_ = 0.0, u2_ = 0.0;
  double error_ = 0.0, chip_prev_ = base_, sensor_mean_ = base_;
  std::vector<double> local_, prev_, reading_;
  std::vector<double> z_;
  RandomStream ambient_stream_, local_stream_;
};

// Per-ring state and the relocks.
class Bank {
 public:
  Bank(const photonics::DeviceSpec& device, const CalibrationSpec& cal, const ThermalSpec& spec,
       double base, std::uint64_t seed)
      : cal_(cal),
        rows_(device.bank.rows),
        d_(device.grid.channels),
        per_sensor_(spec.sensors.rings_per_sensor),
        kappa_(device.tuning.thermal_shift.si()),
        set_(base),
        range_(operating_point(device, cal).lock),
        step_((range_.hi - range_.lo) /
              static_cast<double>((std::int64_t{1} << cal.bias_dac_bits) - 1)),
        crosstalk_(device.tuning.mechanism == photonics::TuningMechanism::thermo_optic
                       ? device.tuning.thermal_crosstalk
                       : 0.0),
        ring_(photonics::ring_of(device)),
        seed_(seed) {
    const std::size_t n = rings();
    raw_.resize(n);
    bias_.resize(n, 0.0);
    ref_.resize(n, 0.0);
    unlocked_.resize(n, 0);
    RandomStream fab(seed, {kFabrication});
    const double trim = std::max(device.requirements.fabrication_trim.si(), cal.initial_error.si());
    for (auto& r : raw_) r = trim * (2.0 * fab.uniform() - 1.0);
    raw0_ = raw_;
    lambda_ = ring_.wavelength();
    op_ = ring_.max_weight_slope_detuning();
    w_op_ = ring_.weight(lambda_, op_);
  }

  std::size_t rings() const { return static_cast<std::size_t>(rows_) * d_; }
  int rows() const { return rows_; }
  int channels() const { return d_; }
  std::size_t region_of(std::size_t i) const { return i / static_cast<std::size_t>(per_sensor_); }
  std::size_t regions() const { return (rings() + per_sensor_ - 1) / per_sensor_; }

  // Per-ring random walks over dt seconds (stream per tick).
  void walk(double sigma, double dt, std::uint64_t tick) {
    if (sigma == 0.0) return;
    RandomStream s(seed_, {kRing, tick});
    const double k = sigma * std::sqrt(dt);
    for (auto& r : raw_) r += k * s.normal();
  }

  // Resonance error of ring i without bias or correction: temperature shift + its own error.
  double offset(std::size_t i, const ThermalLoop& loop) const {
    return kappa_ * (loop.region_temperature(region_of(i)) - set_) + raw_[i];
  }
  // Drift since t = 0 with nothing corrected.
  double uncorrected(std::size_t i, const ThermalLoop& loop) const {
    return kappa_ * (loop.region_temperature(region_of(i)) - set_) + raw_[i] - raw0_[i];
  }
  // The error now: offset + bias + crosstalk of the row's biases + the sensor correction
  // -kappa (reading - reading at the last lock), quantized to the bias DAC step.
  double error(std::size_t i, const ThermalLoop& loop) const {
    const double c = kappa_ * (loop.reading(region_of(i)) - ref_[i]);
    return offset(i, loop) + bias_[i] + neighbours(i) - step_ * std::round(c / step_);
  }

  // Relocks the flagged rows (rows in parallel, rings of a row in order).
  RecalibrationEvent relock(const std::vector<char>& flagged, const ThermalLoop& loop,
                            std::uint64_t tick, double t, std::string trigger) {
    RecalibrationEvent ev{t, std::move(trigger), 0, 0, 0.0, 0.0};
    std::vector<double> raw(static_cast<std::size_t>(d_));
    std::vector<LockResult> res(static_cast<std::size_t>(d_));
    for (int r = 0; r < rows_; ++r) {
      if (!flagged[static_cast<std::size_t>(r)]) continue;
      ++ev.rows;
      const std::size_t first = static_cast<std::size_t>(r) * d_;
      for (int j = 0; j < d_; ++j) raw[static_cast<std::size_t>(j)] = offset(first + j, loop);
      RandomStream noise(seed_, {kLock, tick, static_cast<std::uint64_t>(r)});
      const RowLock st =
          lock_row(cal_, range_, crosstalk_, raw, std::span(bias_).subspan(first, d_), res, noise);
      const double iters = static_cast<double>(st.iterations);
      ev.time = std::max(ev.time, iters * cal_.iteration_time.si());
      ev.energy += iters * cal_.iteration_energy.si();
      for (int j = 0; j < d_; ++j) {
        const std::size_t i = first + j;
        unlocked_[i] = res[static_cast<std::size_t>(j)].locked ? 0 : 1;
        ev.failed += unlocked_[i];
        ref_[i] = loop.reading(region_of(i));
      }
    }
    return ev;
  }

  // Takes over the biases of a bank-wide lock (calibrate_bank on this bank's offsets).
  void adopt(const CalibrationReport& report, const ThermalLoop& loop) {
    for (std::size_t i = 0; i < rings(); ++i) {
      bias_[i] = report.rings[i].correction;
      unlocked_[i] = report.rings[i].locked ? 0 : 1;
      ref_[i] = loop.reading(region_of(i));
    }
  }

  // Exact weight change at the steepest-slope point of the balanced response for error e.
  double weight_error(double e) const { return ring_.weight(lambda_, op_ + e) - w_op_; }
  int unlocked(std::size_t i) const { return unlocked_[i]; }
  // rms of the rings' errors before any lock (fabrication + initial error), metres.
  double initial_rms() const {
    double s = 0.0;
    for (double r : raw0_) s += r * r;
    return std::sqrt(s / static_cast<double>(raw0_.size()));
  }
  double lock_reading(std::size_t i) const { return ref_[i]; }

 private:
  double neighbours(std::size_t i) const {
    if (crosstalk_ == 0.0) return 0.0;
    const std::size_t first = i / d_ * d_;
    const int j = static_cast<int>(i - first);
    double s = 0.0;
    for (int k = 0; k < d_; ++k)
      if (k != j) s += std::pow(crosstalk_, std::abs(j - k)) * bias_[first + k];
    return s;
  }

  const CalibrationSpec& cal_;
  int rows_, d_, per_sensor_;
  double kappa_, set_;
  LockRange range_;
  double step_, crosstalk_;
  photonics::Ring ring_;
  std::uint64_t seed_;
  double lambda_ = 0.0, op_ = 0.0, w_op_ = 0.0;
  std::vector<double> raw_, raw0_, bias_, ref_;
  std::vector<int> unlocked_;
};

// Samples the trace row at time t.
DriftSample sample(double t, const ThermalLoop& loop, const Bank& bank) {
  DriftSample s;
  s.t = t;
  s.ambient = loop.ambient();
  s.chip = loop.chip();
  s.sensor_mean = loop.sensor_mean();
  s.coarse_action = loop.coarse_action();
  s.fine_action = loop.fine_action();
  double u2 = 0.0, e2 = 0.0, w2 = 0.0;
  for (std::size_t i = 0; i < bank.rings(); ++i) {
    const double u = bank.uncorrected(i, loop), e = bank.error(i, loop);
    const double w = bank.weight_error(e);
    u2 += u * u;
    e2 += e * e;
    w2 += w * w;
    s.error_max = std::max(s.error_max, std::abs(e));
    s.weight_error_max = std::max(s.weight_error_max, std::abs(w));
    s.unlocked += bank.unlocked(i);
  }
  const double n = static_cast<double>(bank.rings());
  s.uncorrected_rms = std::sqrt(u2 / n);
  s.error_rms = std::sqrt(e2 / n);
  s.weight_error_rms = std::sqrt(w2 / n);
  return s;
}

}  // namespace

DriftRun simulate_drift(const photonics::DeviceSpec& device, const ThermalSpec& spec,
                        const CalibrationSpec& calibration, const DriftOptions& options) {
  DriftRun run;
  const double dt = spec.time_step.si(), interval = options.trace_interval.si();
  LIGHTSIM_CHECK_AS(UsageError, interval >= dt,
                    "trace interval {} must be at least the thermal time step {}",
                    to_string(options.trace_interval), to_string(spec.time_step));
  const double sample_count = std::ceil(options.duration.si() / interval - 1e-9);
  LIGHTSIM_CHECK_AS(UsageError, std::isfinite(sample_count) && sample_count <= kMaxDriftSamples,
                    "duration {} over trace interval {} is {:.3g} samples, at most {:.3g} (a "
                    "longer duration needs a longer trace interval)",
                    to_string(options.duration), to_string(options.trace_interval), sample_count,
                    kMaxDriftSamples);
  const auto steps_per_sample = static_cast<long>(std::llround(interval / dt));
  const auto samples = static_cast<long>(sample_count);
  const auto stop_if_cancelled = [&](double t) {
    if (options.cancel != nullptr && options.cancel->load(std::memory_order_relaxed)) [[unlikely]]
      LIGHTSIM_THROW(Interrupted, "thermal drift simulation at t = {:.6g} s: interrupted", t);
  };
  const Power heat = options.heat;
  LIGHTSIM_CHECK_AS(UsageError, std::isfinite(heat.si()) && heat.si() >= 0.0,
                    "chip heat must be finite and >= 0 W (got {})", to_string(heat));
  run.dissipated = heat.si();
  run.steady = steady_state(spec, heat);
  // The run stops when a TEC stage cannot pump its heat (COP <= 0); a missed stability target
  // is reported in `steady` but the loops still act, so the run goes on.
  const auto cannot_pump = [&](const ThermalOperatingPoint& op) {
    return spec.tec.enabled && !op.feasible && (op.coarse.cop <= 0.0 || op.fine.cop <= 0.0);
  };
  if (cannot_pump(run.steady)) {
    run.feasible = false;
    run.reason =
        fmt::format("at t = 0 s with {:.4g} W on the chip: {}", heat.si(), run.steady.reason);
    return run;
  }
  Bank bank(device, calibration, spec, run.steady.chip, options.seed);
  ThermalLoop loop(spec, run.steady.chip, static_cast<int>(bank.regions()), options.seed);
  const auto rows = static_cast<std::size_t>(bank.rows());
  std::vector<char> flagged(rows, 1);
  // The lock at t = 0 (every row); the bank adopts its result.
  {
    std::vector<double> offsets(bank.rings());
    for (std::size_t i = 0; i < offsets.size(); ++i) offsets[i] = bank.offset(i, loop);
    run.initial = calibrate_bank(device, calibration, offsets, options.seed);
    bank.adopt(run.initial, loop);
    run.events.push_back(
        {0.0, "initial", bank.rows(), run.initial.failed, run.initial.time, run.initial.energy});
    run.calibration_energy += run.initial.energy;
  }
  run.trace.push_back(sample(0.0, loop, bank));
  const double half = 0.5 * options.duration.si();
  const bool periodic = calibration.trigger != RecalibrationTrigger::temperature;
  const bool on_temperature = calibration.trigger != RecalibrationTrigger::periodic;
  double last_periodic = 0.0, busy = 0.0, sum_e2 = 0.0, sum_w2 = 0.0, sum_u2 = 0.0;
  double global2 = 0.0;
  long step = 0;
  for (long k = 1; k <= samples; ++k) {
    for (long s = 0; s < steps_per_sample; ++s, ++step) {
      const double t = static_cast<double>(step) * dt;
      if (s % 4096 == 4095) stop_if_cancelled(t);
      loop.step(t, t >= half ? options.load_step.si() : 0.0);
    }
    stop_if_cancelled(static_cast<double>(step) * dt);
    const double t = static_cast<double>(step) * dt;
    bank.walk(spec.ring_walk.si(), interval, static_cast<std::uint64_t>(k));
    std::fill(flagged.begin(), flagged.end(), 0);
    std::string trigger;
    if (periodic && t - last_periodic >= calibration.interval.si() - 1e-12) {
      std::fill(flagged.begin(), flagged.end(), 1);
      last_periodic = t;
      trigger = "periodic";
    } else if (on_temperature) {
      const double th = calibration.temperature_threshold.si();
      for (std::size_t i = 0; i < bank.rings(); ++i)
        if (std::abs(loop.reading(bank.region_of(i)) - bank.lock_reading(i)) >= th)
          flagged[i / static_cast<std::size_t>(bank.channels())] = 1;
      trigger = "temperature";
    }
    int relocked = 0;
    if (std::find(flagged.begin(), flagged.end(), 1) != flagged.end()) {
      const RecalibrationEvent ev =
          bank.relock(flagged, loop, static_cast<std::uint64_t>(k), t, std::move(trigger));
      relocked = ev.rows;
      busy += ev.time * ev.rows;
      run.calibration_energy += ev.energy;
      run.events.push_back(ev);
    }
    DriftSample s = sample(t, loop, bank);
    s.relocked_rows = relocked;
    // TEC power: the steady state at this ambient and load.
    ThermalSpec now = spec;
    now.ambient = TemperatureDelta::si(loop.ambient());
    const Power load = heat + (t >= half ? options.load_step : Power::si(0.0));
    const ThermalOperatingPoint op = steady_state(now, load);
    if (cannot_pump(op)) {
      run.feasible = false;
      run.reason = fmt::format("at t = {:.4g} s (ambient {:.3f} C, {:.4g} W on the chip): {}", t,
                               loop.ambient(), load.si(), op.reason);
      break;
    }
    s.tec_power = op.tec_power;
    run.tec_energy += s.tec_power * interval;
    sum_e2 += s.error_rms * s.error_rms;
    sum_w2 += s.weight_error_rms * s.weight_error_rms;
    sum_u2 += s.uncorrected_rms * s.uncorrected_rms;
    const double g = device.tuning.thermal_shift.si() * (s.chip - run.steady.chip);
    global2 += g * g;
    run.error_max = std::max(run.error_max, s.error_max);
    run.weight_error_max = std::max(run.weight_error_max, s.weight_error_max);
    run.trace.push_back(s);
  }
  const double m = static_cast<double>(std::max<std::size_t>(run.trace.size() - 1, 1));
  run.error_rms = std::sqrt(sum_e2 / m);
  run.weight_error_rms = std::sqrt(sum_w2 / m);
  const double simulated =
      run.feasible ? options.duration.si() : static_cast<double>(run.trace.size() - 1) * interval;
  run.calibration_busy = busy / (static_cast<double>(rows) * std::max(simulated, dt));
  // Handed to the photonics kernel: the lock's residual as calibration_residual, the rest of
  // the per-ring error (drift between relocks, supply noise) as local drift, the chip-wide
  // temperature error as global drift.
  const double cal = run.initial.residual_rms;
  const ElectricalImpairments el =
      electrical_impairments(device, spec, operating_point(device, calibration));
  run.impairments = with_calibration(run.impairments, run.initial);
  run.impairments.drift_local_sigma =
      Length::si(std::sqrt(std::max(0.0, run.error_rms * run.error_rms - cal * cal) +
                           el.resonance_sigma * el.resonance_sigma));
  run.impairments.drift_global_sigma = Length::si(std::sqrt(global2 / m));
  // Without any lock or sensor correction: the rings keep their initial (fabrication) error
  // and everything that drifted since t = 0; the chip-wide part is the same global drift.
  run.uncalibrated.fabrication_sigma = Length::si(bank.initial_rms());
  run.uncalibrated.drift_global_sigma = run.impairments.drift_global_sigma;
  run.uncalibrated.drift_local_sigma = Length::si(
      std::sqrt(std::max(0.0, sum_u2 / m - global2 / m) + el.resonance_sigma * el.resonance_sigma));
  return run;
}

}  // namespace lightsim::prism
