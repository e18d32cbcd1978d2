// The Prism thermal loop (docs/thermal.md): prism_thermal (the drift simulation: TEC action,
// recalibrations, resonance and weight error over time, and the retrieval quality the drift
// leaves) and prism_calibrate (the bias-lock statistics per ring at t = 0). The accelerator's
// `thermal:` and `calibration:` sections are used unless the request names other files.
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>
#include <ostream>
#include <tuple>
#include <vector>

#include "lightsim/core/atomic_file.h"
#include "lightsim/core/config_files.h"
#include "lightsim/core/csv.h"
#include "lightsim/ops/operation.h"
#include "lightsim/ops/register.h"
#include "lightsim/photonics/device.h"
#include "lightsim/prism/accelerator.h"
#include "lightsim/prism/calibration.h"
#include "lightsim/prism/cost.h"
#include "lightsim/prism/drift_recall.h"
#include "lightsim/prism/thermal.h"

namespace lightsim::ops {

// The request of prism calibrate: an accelerator, optionally other thermal/calibration files.
struct CalibrateRequest {
  static constexpr std::string_view kind = "prism_calibrate_request";
  std::string accelerator{}, thermal{}, calibration{};
  static void describe(config::Schema<CalibrateRequest>& s) {
    s.help("Request of prism calibrate: the bias lock of one accelerator at t = 0.");
    fields(s);
  }
  template <class R>
  static void fields(config::Schema<R>& s) {
    s.field("accelerator", &R::accelerator, "accelerator name (configs/accelerators/) or YAML file")
        .required();
    s.field("thermal", &R::thermal,
            "thermal spec file (kind thermal) instead of the accelerator's");
    s.field("calibration", &R::calibration,
            "calibration spec file (kind calibration) instead of the accelerator's");
  }
};

// The request of prism thermal: the above, and the drift run's length and load.
struct ThermalRequest {
  static constexpr std::string_view kind = "prism_thermal_request";
  std::string accelerator{}, thermal{}, calibration{};
  Time duration = Time::si(10.0);
  Time trace_interval = Time::si(0.01);
  Power load_step = Power::si(0.0);
  std::int64_t recall_tokens = 8192, recall_steps = 8;  // synthetic cache of the recall check
  static void describe(config::Schema<ThermalRequest>& s) {
    s.help("Request of prism thermal: a drift run of one accelerator.");
    CalibrateRequest::fields(s);
    s.field("duration", &ThermalRequest::duration, "simulated time").range("1 us", "1e6 s");
    s.field("trace_interval", &ThermalRequest::trace_interval, "trace sampling period")
        .range("1 us", "1e6 s");
    s.field("load_step", &ThermalRequest::load_step, "extra chip heat from half-time on")
        .range("0 W", "1 kW");
    s.field("recall_tokens", &ThermalRequest::recall_tokens,
            "tokens of the synthetic cache for the Recall@k under drift (0: skip)")
        .range(std::int64_t{0}, std::int64_t{1} << 24);
    s.field("recall_steps", &ThermalRequest::recall_steps, "decode steps of that cache")
        .range(std::int64_t{1}, std::int64_t{1} << 16);
  }
};

namespace {

using prism::AcceleratorSpec;
using prism::CalibrationSpec;
using prism::ThermalSpec;

constexpr double kPm = 1e12;

// The accelerator with the request's thermal and calibration sections in place, and the seed's
// figures printed beside the results.
struct Setup {
  AcceleratorSpec accelerator{};
  prism::ThermalSeedReference seed{};
  const ThermalSpec& thermal() const { return accelerator.thermal; }
  const CalibrationSpec& calibration() const { return accelerator.calibration; }
};

// --set addresses the accelerator; the other files are read as they are.
template <class R>
Setup load_setup(const R& q, Env& env) {
  Setup s;
  s.accelerator = prism::load_accelerator(q.accelerator, env.load);
  config::LoadOptions plain;
  plain.config_roots = env.load.config_roots;
  if (!q.thermal.empty()) s.accelerator.thermal = config::load_spec<ThermalSpec>(q.thermal, plain);
  if (!q.calibration.empty())
    s.accelerator.calibration = config::load_spec<CalibrationSpec>(q.calibration, plain);
  s.seed = config::load_spec<prism::ThermalSeedReference>(
      config::find_named("prism_thermal_seed", "references", plain, "reference"), plain);
  env.inputs_read();
  return s;
}

Json stage_json(const prism::TecStagePoint& p, const prism::TecStageSpec& s) {
  return {{"cold_c", p.cold},
          {"hot_c", p.hot},
          {"heat_w", p.heat},
          {"cop", p.cop},
          {"electrical_w", p.electrical},
          {"stability_k", p.stability},
          {"target_k", s.stability.si()},
          {"bandwidth_hz", s.bandwidth.si()}};
}

Json steady_json(const prism::ThermalOperatingPoint& op, const ThermalSpec& spec, double heat) {
  // An infeasible TEC's power and stage figures are not figures (prism/cost.h): null, omitted.
  Json j = {{"dissipated_w", heat},
            {"ambient_c", op.ambient},
            {"chip_c", op.chip},
            {"tec_enabled", spec.tec.enabled},
            {"tec_power_w", op.feasible ? Json(op.tec_power) : Json(nullptr)},
            {"stability_k", op.feasible ? Json(op.stability) : Json(nullptr)},
            {"feasible", op.feasible},
            {"reason", op.reason}};
  if (spec.tec.enabled && op.feasible) {
    j["coarse"] = stage_json(op.coarse, spec.tec.coarse);
    j["fine"] = stage_json(op.fine, spec.tec.fine);
  }
  return j;
}

Json recall_json(const prism::DriftRecall& r) {
  Json at = Json::array();
  for (const auto& x : r.recall)
    at.push_back({{"k", x.k},
                  {"ideal", x.ideal},
                  {"calibrated", x.calibrated},
                  {"uncalibrated", x.uncalibrated}});
  return {{"tokens", r.tokens},
          {"blocks", r.blocks},
          {"kv_heads", r.kv_heads},
          {"steps", r.steps},
          {"truth", "exact projected top-k"},
          {"recall_at_k", at}};
}

void print_recall(const prism::DriftRecall& r, std::ostream& out) {
  fmt::print(out,
             "Retrieval under this drift (synthetic cache: {} tokens = {} blocks, {} KV heads x {} "
             "steps, PCA to d; truth: exact projected top-k)\n",
             r.tokens, r.blocks, r.kv_heads, r.steps);
  fmt::print(out, "  {:>6} {:>8} {:>18} {:>14}\n", "k", "ideal", "drift, calibrated",
             "uncalibrated");
  for (const auto& x : r.recall)
    fmt::print(out, "  {:>6} {:>8.3f} {:>18.3f} {:>14.3f}\n", fmt::format("R@{}", x.k), x.ideal,
               x.calibrated, x.uncalibrated);
}

Json electrical_json(const prism::ElectricalImpairments& e) {
  return {{"supply_sigma_mv", e.supply_sigma * 1e3},
          {"resonance_sigma_pm", e.resonance_sigma * kPm},
          {"weight_sigma", e.weight_sigma},
          {"jitter_fs", e.jitter * 1e15},
          {"integration_error", e.integration_error},
          {"sine_snr_db", std::isfinite(e.sine_snr_db) ? Json(e.sine_snr_db) : Json()},
          {"jitter_enob", std::isfinite(e.jitter_enob) ? Json(e.jitter_enob) : Json()},
          {"adc_bits", e.adc_bits},
          {"limits_adc", e.limits_adc}};
}

Json report_json(const prism::CalibrationReport& r, bool per_ring) {
  Json j = {{"rows", r.rows},
            {"channels", r.channels},
            {"locked", r.locked},
            {"failed", r.failed},
            {"first_failure", r.first_failure},
            {"sweeps", r.sweeps},
            {"max_iterations", r.max_iterations},
            {"mean_iterations", r.mean_iterations},
            {"time_s", r.time},
            {"energy_j", r.energy},
            {"residual_rms_pm", r.residual_rms * kPm},
            {"residual_max_pm", r.residual_max * kPm},
            {"weight_error_max", r.weight_error_max},
            {"heater_power_w", r.heater_power}};
  if (per_ring) {
    Json rings = Json::array();
    for (std::size_t i = 0; i < r.rings.size(); ++i) {
      const auto& lr = r.rings[i];
      rings.push_back({{"row", i / static_cast<std::size_t>(r.channels)},
                       {"channel", i % static_cast<std::size_t>(r.channels)},
                       {"locked", lr.locked},
                       {"iterations", lr.iterations},
                       {"correction_pm", lr.correction * kPm},
                       {"residual_pm", lr.residual * kPm},
                       {"reason", lr.reason}});
    }
    j["rings"] = std::move(rings);
  }
  return j;
}

Json impairments_json(const photonics::ImpairmentSpec& imp) {
  return {{"calibration_residual_pm", imp.calibration_residual.si() * kPm},
          {"drift_global_sigma_pm", imp.drift_global_sigma.si() * kPm},
          {"drift_local_sigma_pm", imp.drift_local_sigma.si() * kPm}};
}

void print_steady(const prism::ThermalOperatingPoint& op, const Setup& s, double heat,
                  std::ostream& out) {
  const auto& seed = s.seed;
  fmt::print(out, "Steady state ({:.3g} W on chip, ambient {:.1f} C)\n", heat, op.ambient);
  fmt::print(out, "  chip temperature      {:.3f} C{}\n", op.chip,
             !s.thermal().tec.enabled ? " (TEC off: ambient + R P)"
             : op.feasible            ? " (TEC setpoint)"
                                      : " (TEC setpoint, which it cannot hold)");
  if (s.thermal().tec.enabled && !op.feasible) {
    fmt::print(out, "  TEC power             infeasible (seed: {})\n", to_string(seed.tec_power));
    fmt::print(out, "  INFEASIBLE: {}\n", op.reason);
    return;
  }
  if (s.thermal().tec.enabled) {
    for (const auto& [name, p, spec] : {std::tuple{"coarse", op.coarse, s.thermal().tec.coarse},
                                        std::tuple{"fine", op.fine, s.thermal().tec.fine}})
      fmt::print(out,
                 "  {:<7}stage          {:.2f} -> {:.2f} C, pumps {:.3g} W, COP {:.3g}, {:.3g} W; "
                 "holds +-{:.3g} K (target +-{:.3g} K)\n",
                 name, p.cold, p.hot, p.heat, p.cop, p.electrical, p.stability,
                 spec.stability.si());
    fmt::print(out, "  TEC power             {:.3g} W   (seed: {})\n", op.tec_power,
               to_string(seed.tec_power));
  }
  fmt::print(out, "  chip stability        +-{:.3g} K (seed: +-{} achieved, +-{} needed)\n",
             op.stability, to_string(seed.tec_stability), to_string(seed.control_needed));
  if (!op.feasible) fmt::print(out, "  INFEASIBLE: {}\n", op.reason);
}

void print_electrical(const prism::ElectricalImpairments& e, const Setup& s, std::ostream& out) {
  fmt::print(out, "Supply noise and jitter\n");
  fmt::print(out,
             "  supply {} pp (seed budget {}) -> {:.3g} mV rms -> {:.3g} pm rms -> weight {:.3g}\n",
             to_string(s.thermal().supply.peak_to_peak), to_string(s.seed.supply_noise),
             e.supply_sigma * 1e3, e.resonance_sigma * kPm, e.weight_sigma);
  fmt::print(
      out,
      "  jitter {} rms (seed {}): TIA window error {:.3g} (relative), full-scale sine at the TIA "
      "bandwidth {:.1f} dB = {:.1f} bits ({} the {}-bit ADC)\n",
      to_string(s.thermal().clock.jitter), to_string(s.seed.clock_jitter), e.integration_error,
      e.sine_snr_db, e.jitter_enob, e.limits_adc ? "limits" : "does not limit", e.adc_bits);
}

void print_report(const prism::CalibrationReport& r, const Setup& s, std::ostream& out) {
  fmt::print(
      out,
      "Bias calibration ({} x {} rings, lock +-{} (seed +-{}), {} bias bits)\n"
      "  locked {} / {}, failed {}{}\n"
      "  iterations per lock: max {} (bound {}), mean {:.2f}; sweeps {}\n"
      "  time {:.4g} us (rows in parallel), energy {:.4g} nJ\n"
      "  residual rms {:.3g} pm, max {:.3g} pm -> weight error <= {:.3g} at the steepest slope\n",
      r.rows, r.channels, to_string(s.calibration().target), to_string(s.seed.lock_target),
      s.calibration().bias_dac_bits, r.locked, r.rows * r.channels, r.failed,
      r.first_failure.empty() ? "" : "; first: " + r.first_failure, r.max_iterations,
      s.calibration().max_iterations, r.mean_iterations, r.sweeps, r.time * 1e6, r.energy * 1e9,
      r.residual_rms * kPm, r.residual_max * kPm, r.weight_error_max);
  if (r.heater_power > 0)
    fmt::print(out, "  heater power holding the locks {:.4g} W\n", r.heater_power);
}

// The chip heat of the operating point, from the accelerator's cost model (the one source of
// this figure; `prism cost` prices the TEC at the same point), with the thermal and
// calibration sections of the request.
Power operating_heat(const Setup& s) {
  return Power::si(prism::cost(s.accelerator).dissipated_power);
}

// --- prism thermal ------------------------------------------------------------------------

struct ThermalResult {
  Setup setup{};
  prism::DriftOptions drift{};
  prism::DriftRun run{};
  prism::ElectricalImpairments electrical{};
  std::optional<prism::DriftRecall> recall{};
  std::filesystem::path trace_csv{}, events_csv{};  // empty: not written (no --out)
  int relocks = 0, failed = 0;
};

ThermalResult evaluate_thermal(const ThermalRequest& q, Env& env) {
  ThermalResult r{.setup = load_setup(q, env)};
  const Setup& s = r.setup;
  r.drift.duration = q.duration;
  r.drift.trace_interval = q.trace_interval;
  r.drift.load_step = q.load_step;
  r.drift.seed = env.ctx.seed();
  r.drift.heat = operating_heat(s);
  r.drift.cancel = env.ctx.cancel_flag();
  const auto& device = s.accelerator.device;
  if (!env.out.empty()) prepare_output_dir(env.out);
  r.run = prism::simulate_drift(device, s.thermal(), s.calibration(), r.drift);
  r.electrical = prism::electrical_impairments(device, s.thermal(),
                                               prism::operating_point(device, s.calibration()));
  // Retrieval quality the drift leaves (drift_recall.h), when the run got past t = 0.
  if (!r.run.trace.empty() && q.recall_tokens > 0) {
    prism::DriftRecallOptions ro;
    ro.tokens = q.recall_tokens;
    ro.steps = q.recall_steps;
    r.recall = prism::drift_recall(s.accelerator, r.run, ro, env.ctx);
  }
  if (!env.out.empty()) {
    r.trace_csv = env.out / "thermal_trace.csv";
    r.events_csv = env.out / "thermal_events.csv";
    write_csv(r.trace_csv, prism::drift_trace_table(r.run));
    write_csv(r.events_csv, prism::recalibration_table(r.run));
  }
  for (const auto& e : r.run.events)
    if (e.trigger != "initial") r.relocks += 1, r.failed += e.failed;
  return r;
}

Json thermal_json(const ThermalResult& r) {
  const prism::DriftRun& run = r.run;
  return {{"feasible", run.feasible},
          {"reason", run.reason},
          {"steady_state", steady_json(run.steady, r.setup.thermal(), run.dissipated)},
          {"electrical", electrical_json(r.electrical)},
          {"initial_calibration", report_json(run.initial, false)},
          {"duration_s", r.drift.duration.si()},
          {"recalibrations", r.relocks},
          {"failed_locks", r.failed},
          {"error_rms_pm", run.error_rms * kPm},
          {"error_max_pm", run.error_max * kPm},
          {"weight_error_rms", run.weight_error_rms},
          {"weight_error_max", run.weight_error_max},
          {"tec_energy_j", run.tec_energy},
          {"calibration_energy_j", run.calibration_energy},
          {"calibration_busy", run.calibration_busy},
          {"impairments", impairments_json(run.impairments)},
          {"uncalibrated_impairments", impairments_json(run.uncalibrated)},
          {"recall", r.recall ? recall_json(*r.recall) : Json()},
          {"trace_csv", r.trace_csv.empty() ? Json() : Json(r.trace_csv.string())},
          {"events_csv", r.events_csv.empty() ? Json() : Json(r.events_csv.string())}};
}

void print_thermal(const ThermalResult& r, std::ostream& out) {
  const Setup& s = r.setup;
  const prism::DriftRun& run = r.run;
  const prism::DriftOptions& d = r.drift;
  print_steady(run.steady, s, run.dissipated, out);
  print_electrical(r.electrical, s, out);
  if (!run.feasible && run.trace.empty()) {
    fmt::print(out, "Drift run NOT simulated: the TEC cannot hold the setpoint {}\n", run.reason);
    return;
  }
  print_report(run.initial, s, out);
  fmt::print(out, "Drift over {} (trace every {}; {} after {})\n", to_string(d.duration),
             to_string(d.trace_interval), to_string(d.load_step), to_string(d.duration / 2.0));
  fmt::print(out, "  {:>6} {:>8} {:>9} {:>9} {:>8} {:>10} {:>9} {:>9} {:>8} {:>6}\n", "t [s]",
             "ambient", "chip [C]", "coarse", "fine", "uncorr.", "err rms", "err max", "dw rms",
             "relock");
  const std::size_t every = std::max<std::size_t>(1, run.trace.size() / 10);
  int window = 0;
  for (std::size_t i = 0; i < run.trace.size(); ++i) {
    const auto& t = run.trace[i];
    window += t.relocked_rows;
    if (i % every != 0 && i + 1 != run.trace.size()) continue;
    fmt::print(out,
               "  {:>6.2f} {:>8.3f} {:>9.4f} {:>8.4f}K {:>7.4f}K {:>8.3f}pm {:>7.3f}pm {:>7.3f}pm "
               "{:>8.4f} {:>6}\n",
               t.t, t.ambient, t.chip, t.coarse_action, t.fine_action, t.uncorrected_rms * kPm,
               t.error_rms * kPm, t.error_max * kPm, t.weight_error_rms, window);
    window = 0;
  }
  fmt::print(
      out,
      "  {} recalibrations ({} failed locks); busy {:.3g}% of row time; {:.4g} uJ of locking\n"
      "  resonance error rms {:.3g} pm, max {:.3g} pm; weight error rms {:.3g}, max {:.3g}\n"
      "  TEC energy {:.4g} J ({:.3g} W mean)\n",
      r.relocks, r.failed, run.calibration_busy * 100, run.calibration_energy * 1e6,
      run.error_rms * kPm, run.error_max * kPm, run.weight_error_rms, run.weight_error_max,
      run.tec_energy, run.tec_energy / d.duration.si());
  if (!run.feasible)
    fmt::print(out, "  INFEASIBLE: the run stopped {} (the trace ends there)\n", run.reason);
  fmt::print(out,
             "Impairment state for the photonics kernel: calibration_residual {:.3g} pm, "
             "drift_global_sigma {:.3g} pm, drift_local_sigma {:.3g} pm\n",
             run.impairments.calibration_residual.si() * kPm,
             run.impairments.drift_global_sigma.si() * kPm,
             run.impairments.drift_local_sigma.si() * kPm);
  if (r.recall) print_recall(*r.recall, out);
  if (!r.trace_csv.empty())
    fmt::print(out, "Traces: {}, {}\n", r.trace_csv.string(), r.events_csv.string());
}

// --- prism calibrate ----------------------------------------------------------------------

struct CalibrateResult {
  Setup setup{};
  prism::DriftRun run{};  // the lock at t = 0 only
};

CalibrateResult evaluate_calibrate(const CalibrateRequest& q, Env& env) {
  CalibrateResult r{.setup = load_setup(q, env)};
  // The lock at t = 0 of the drift simulation: fabrication errors and the steady state.
  prism::DriftOptions d;
  d.duration = Time::si(0.0);
  d.seed = env.ctx.seed();
  d.heat = operating_heat(r.setup);
  r.run = prism::simulate_drift(r.setup.accelerator.device, r.setup.thermal(),
                                r.setup.calibration(), d);
  return r;
}

Json calibrate_json(const CalibrateResult& r) {
  if (r.run.trace.empty()) return {{"feasible", false}, {"reason", r.run.reason}};
  Json j = report_json(r.run.initial, true);
  j["impairments"] = impairments_json(prism::with_calibration({}, r.run.initial));
  return j;
}

void print_calibrate(const CalibrateResult& r, std::ostream& out) {
  if (r.run.trace.empty()) {  // the TEC cannot hold the setpoint: no lock to report
    fmt::print(out, "Bias calibration NOT run: the TEC cannot hold the setpoint {}\n",
               r.run.reason);
    return;
  }
  print_report(r.run.initial, r.setup, out);
  std::vector<int> histogram(static_cast<std::size_t>(r.setup.calibration().max_iterations) + 1, 0);
  for (const auto& ring : r.run.initial.rings)
    ++histogram[static_cast<std::size_t>(ring.iterations)];
  fmt::print(out, "  iterations histogram:");
  for (std::size_t k = 0; k < histogram.size(); ++k)
    if (histogram[k] > 0) fmt::print(out, " {}:{}", k, histogram[k]);
  fmt::print(out, "\n  (--json lists every ring)\n");
}

}  // namespace

void register_prism_thermal_ops(Registry& registry) {
  add<ThermalRequest, ThermalResult>(
      registry, {.info = {.name = "prism_thermal",
                          .command = {"prism", "thermal"},
                          .help = "Drift, TEC action and recalibrations over time",
                          .positional = {"accelerator"}},
                 .evaluate = evaluate_thermal,
                 .to_json = thermal_json,
                 .print = print_thermal});
  add<CalibrateRequest, CalibrateResult>(registry,
                                         {.info = {.name = "prism_calibrate",
                                                   .command = {"prism", "calibrate"},
                                                   .help = "Bias-lock statistics per ring",
                                                   .positional = {"accelerator"}},
                                          .evaluate = evaluate_calibrate,
                                          .to_json = calibrate_json,
                                          .print = print_calibrate});
}

}  // namespace lightsim::ops
