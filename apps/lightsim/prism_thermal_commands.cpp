// `lightsim prism thermal|calibrate CONFIG`: the thermal drift simulation and the bias-lock
// statistics of an accelerator (docs/thermal.md). CONFIG is an accelerator file or the name
// of a preset in configs/accelerators/; its `thermal:` and `calibration:` sections are used
// when the accelerator has them, else --thermal / --calibration files, else the defaults.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "cli.h"
#include "lightsim/core/atomic_file.h"
#include "lightsim/core/config_files.h"
#include "lightsim/core/csv.h"
#include "lightsim/core/json.h"
#include "lightsim/core/table.h"
#include "lightsim/photonics/device.h"
#include "lightsim/prism/accelerator.h"
#include "lightsim/prism/calibration.h"
#include "lightsim/prism/cost.h"
#include "lightsim/prism/drift_recall.h"
#include "lightsim/prism/thermal.h"

namespace lightsim::cli {
namespace {

using prism::AcceleratorSpec;
using prism::CalibrationSpec;
using prism::ThermalSpec;

constexpr double kPm = 1e12;

struct ThermalOptions {
  std::string config, thermal, calibration;
  std::string duration = "10 s", trace_interval = "10 ms", load_step = "0 W";
  std::int64_t recall_tokens = 8192, recall_steps = 8;  // synthetic cache of the recall check
};

struct Setup {
  AcceleratorSpec accelerator;
  ThermalSpec thermal;
  CalibrationSpec calibration;
  prism::ThermalSeedReference seed;
};

// The accelerator's own thermal/calibration sections, once AcceleratorSpec nests them.
template <class A>
void take_nested(const A& a, Setup& s) {
  if constexpr (requires { a.thermal; }) s.thermal = a.thermal;
  if constexpr (requires { a.calibration; }) s.calibration = a.calibration;
}

Setup load_setup(const ThermalOptions& t, const GlobalOptions& options) {
  const auto o = options.load_options();
  Setup s;
  s.accelerator = config::load_spec<AcceleratorSpec>(
      config::find_named(t.config, "accelerators", o, "accelerator"), o);
  take_nested(s.accelerator, s);
  config::LoadOptions plain = o;  // --set applies to CONFIG only
  plain.assignments.clear();
  if (!t.thermal.empty()) s.thermal = config::load_spec<ThermalSpec>(t.thermal, plain);
  if (!t.calibration.empty())
    s.calibration = config::load_spec<CalibrationSpec>(t.calibration, plain);
  s.seed = config::load_spec<prism::ThermalSeedReference>(
      config::find_named("prism_thermal_seed", "references", ".yaml", plain, "reference"), plain);
  options.require_all_used();
  return s;
}

template <Dim D>
Quantity<D> parse_option(const std::string& text, const char* name) {
  try {
    return parse<D>(text);
  } catch (const UnitError& e) {
    LIGHTSIM_THROW(UsageError, "{}: {}", name, e.what());
  }
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

void print_recall(const prism::DriftRecall& r) {
  fmt::print(
      "Retrieval under this drift (synthetic cache: {} tokens = {} blocks, {} KV heads x {} "
      "steps, PCA to d; truth: exact projected top-k)\n",
      r.tokens, r.blocks, r.kv_heads, r.steps);
  fmt::print("  {:>6} {:>8} {:>18} {:>14}\n", "k", "ideal", "drift, calibrated", "uncalibrated");
  for (const auto& x : r.recall)
    fmt::print("  {:>6} {:>8.3f} {:>18.3f} {:>14.3f}\n", fmt::format("R@{}", x.k), x.ideal,
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

void print_steady(const prism::ThermalOperatingPoint& op, const Setup& s, double heat) {
  const auto& seed = s.seed;
  fmt::print("Steady state ({:.3g} W on chip, ambient {:.1f} C)\n", heat, op.ambient);
  fmt::print("  chip temperature      {:.3f} C{}\n", op.chip,
             !s.thermal.tec.enabled ? " (TEC off: ambient + R P)"
             : op.feasible          ? " (TEC setpoint)"
                                    : " (TEC setpoint, which it cannot hold)");
  if (s.thermal.tec.enabled && !op.feasible) {
    fmt::print("  TEC power             infeasible (seed: {})\n", to_string(seed.tec_power));
    fmt::print("  INFEASIBLE: {}\n", op.reason);
    return;
  }
  if (s.thermal.tec.enabled) {
    for (const auto& [name, p, spec] : {std::tuple{"coarse", op.coarse, s.thermal.tec.coarse},
                                        std::tuple{"fine", op.fine, s.thermal.tec.fine}})
      fmt::print(
          "  {:<7}stage          {:.2f} -> {:.2f} C, pumps {:.3g} W, COP {:.3g}, {:.3g} W; "
          "holds +-{:.3g} K (target +-{:.3g} K)\n",
          name, p.cold, p.hot, p.heat, p.cop, p.electrical, p.stability, spec.stability.si());
    fmt::print("  TEC power             {:.3g} W   (seed: {})\n", op.tec_power,
               to_string(seed.tec_power));
  }
  fmt::print("  chip stability        +-{:.3g} K (seed: +-{} achieved, +-{} needed)\n",
             op.stability, to_string(seed.tec_stability), to_string(seed.control_needed));
  if (!op.feasible) fmt::print("  INFEASIBLE: {}\n", op.reason);
}

void print_electrical(const prism::ElectricalImpairments& e, const Setup& s) {
  fmt::print("Supply noise and jitter\n");
  fmt::print("  supply {} pp (seed budget {}) -> {:.3g} mV rms -> {:.3g} pm rms -> weight {:.3g}\n",
             to_string(s.thermal.supply.peak_to_peak), to_string(s.seed.supply_noise),
             e.supply_sigma * 1e3, e.resonance_sigma * kPm, e.weight_sigma);
  fmt::print(
      "  jitter {} rms (seed {}): TIA window error {:.3g} (relative), full-scale sine at the TIA "
      "bandwidth {:.1f} dB = {:.1f} bits ({} the {}-bit ADC)\n",
      to_string(s.thermal.clock.jitter), to_string(s.seed.clock_jitter), e.integration_error,
      e.sine_snr_db, e.jitter_enob, e.limits_adc ? "limits" : "does not limit", e.adc_bits);
}

void print_report(const prism::CalibrationReport& r, const Setup& s) {
  fmt::print(
      "Bias calibration ({} x {} rings, lock +-{} (seed +-{}), {} bias bits)\n"
      "  locked {} / {}, failed {}{}\n"
      "  iterations per lock: max {} (bound {}), mean {:.2f}; sweeps {}\n"
      "  time {:.4g} us (rows in parallel), energy {:.4g} nJ\n"
      "  residual rms {:.3g} pm, max {:.3g} pm -> weight error <= {:.3g} at the steepest slope\n",
      r.rows, r.channels, to_string(s.calibration.target), to_string(s.seed.lock_target),
      s.calibration.bias_dac_bits, r.locked, r.rows * r.channels, r.failed,
      r.first_failure.empty() ? "" : "; first: " + r.first_failure, r.max_iterations,
      s.calibration.max_iterations, r.mean_iterations, r.sweeps, r.time * 1e6, r.energy * 1e9,
      r.residual_rms * kPm, r.residual_max * kPm, r.weight_error_max);
  if (r.heater_power > 0) fmt::print("  heater power holding the locks {:.4g} W\n", r.heater_power);
}

// The chip heat of the operating point, from the accelerator's cost model (the one source of
// this figure; `prism cost` prices the TEC at the same point), with the thermal and
// calibration sections as given on the command line.
Power operating_heat(const Setup& s) {
  AcceleratorSpec a = s.accelerator;
  a.thermal = s.thermal;
  a.calibration = s.calibration;
  return Power::si(prism::cost(a).dissipated_power);
}

void run_thermal(const ThermalOptions& t, const GlobalOptions& options) {
  const Setup s = load_setup(t, options);
  prism::DriftOptions d;
  d.duration = parse_option<dims::time>(t.duration, "--duration");
  d.trace_interval = parse_option<dims::time>(t.trace_interval, "--trace-interval");
  d.load_step = parse_option<dims::power>(t.load_step, "--load-step");
  LIGHTSIM_CHECK_AS(UsageError, d.duration.si() > 0.0 && d.trace_interval.si() > 0.0,
                    "--duration and --trace-interval must be positive");
  d.seed = options.seed;
  d.heat = operating_heat(s);
  d.cancel = options.cancel;
  const auto& device = s.accelerator.device;
  prepare_output_dir(options.out);
  const prism::DriftRun run = prism::simulate_drift(device, s.thermal, s.calibration, d);
  const auto el = prism::electrical_impairments(device, s.thermal,
                                                prism::operating_point(device, s.calibration));
  // Retrieval quality the drift leaves (drift_recall.h), when the run got past t = 0.
  std::optional<prism::DriftRecall> recall;
  LIGHTSIM_CHECK_AS(UsageError, t.recall_tokens >= 0, "--recall-tokens must be >= 0 (0: skip)");
  if (!run.trace.empty() && t.recall_tokens > 0) {
    LIGHTSIM_CHECK_AS(UsageError, t.recall_steps > 0, "--recall-steps must be positive");
    prism::AcceleratorSpec acc = s.accelerator;
    acc.thermal = s.thermal;
    acc.calibration = s.calibration;
    prism::DriftRecallOptions ro;
    ro.tokens = t.recall_tokens;
    ro.steps = t.recall_steps;
    Context ctx(options.context_options(1, Time::si(5.0)));
    recall = prism::drift_recall(acc, run, ro, ctx);
  }
  const auto trace_csv = options.out / "thermal_trace.csv";
  const auto events_csv = options.out / "thermal_events.csv";
  write_csv(trace_csv, prism::drift_trace_table(run));
  write_csv(events_csv, prism::recalibration_table(run));
  int relocks = 0, failed = 0;
  for (const auto& e : run.events)
    if (e.trigger != "initial") relocks += 1, failed += e.failed;
  if (options.json) {
    std::cout << dump_json({{"feasible", run.feasible},
                            {"reason", run.reason},
                            {"steady_state", steady_json(run.steady, s.thermal, run.dissipated)},
                            {"electrical", electrical_json(el)},
                            {"initial_calibration", report_json(run.initial, false)},
                            {"duration_s", d.duration.si()},
                            {"recalibrations", relocks},
                            {"failed_locks", failed},
                            {"error_rms_pm", run.error_rms * kPm},
                            {"error_max_pm", run.error_max * kPm},
                            {"weight_error_rms", run.weight_error_rms},
                            {"weight_error_max", run.weight_error_max},
                            {"tec_energy_j", run.tec_energy},
                            {"calibration_energy_j", run.calibration_energy},
                            {"calibration_busy", run.calibration_busy},
                            {"impairments", impairments_json(run.impairments)},
                            {"uncalibrated_impairments", impairments_json(run.uncalibrated)},
                            {"recall", recall ? recall_json(*recall) : Json()},
                            {"trace_csv", trace_csv.string()},
                            {"events_csv", events_csv.string()}});
    return;
  }
  print_steady(run.steady, s, run.dissipated);
  print_electrical(el, s);
  if (!run.feasible && run.trace.empty()) {
    fmt::print("Drift run NOT simulated: the TEC cannot hold the setpoint {}\n", run.reason);
    return;
  }
  print_report(run.initial, s);
  fmt::print("Drift over {} (trace every {}; {} after {})\n", to_string(d.duration),
             to_string(d.trace_interval), to_string(d.load_step), to_string(d.duration / 2.0));
  fmt::print("  {:>6} {:>8} {:>9} {:>9} {:>8} {:>10} {:>9} {:>9} {:>8} {:>6}\n", "t [s]", "ambient",
             "chip [C]", "coarse", "fine", "uncorr.", "err rms", "err max", "dw rms", "relock");
  const std::size_t every = std::max<std::size_t>(1, run.trace.size() / 10);
  int window = 0;
  for (std::size_t i = 0; i < run.trace.size(); ++i) {
    const auto& r = run.trace[i];
    window += r.relocked_rows;
    if (i % every != 0 && i + 1 != run.trace.size()) continue;
    fmt::print(
        "  {:>6.2f} {:>8.3f} {:>9.4f} {:>8.4f}K {:>7.4f}K {:>8.3f}pm {:>7.3f}pm {:>7.3f}pm "
        "{:>8.4f} {:>6}\n",
        r.t, r.ambient, r.chip, r.coarse_action, r.fine_action, r.uncorrected_rms * kPm,
        r.error_rms * kPm, r.error_max * kPm, r.weight_error_rms, window);
    window = 0;
  }
  fmt::print(
      "  {} recalibrations ({} failed locks); busy {:.3g}% of row time; {:.4g} uJ of locking\n"
      "  resonance error rms {:.3g} pm, max {:.3g} pm; weight error rms {:.3g}, max {:.3g}\n"
      "  TEC energy {:.4g} J ({:.3g} W mean)\n",
      relocks, failed, run.calibration_busy * 100, run.calibration_energy * 1e6,
      run.error_rms * kPm, run.error_max * kPm, run.weight_error_rms, run.weight_error_max,
      run.tec_energy, run.tec_energy / d.duration.si());
  if (!run.feasible)
    fmt::print("  INFEASIBLE: the run stopped {} (the trace ends there)\n", run.reason);
  fmt::print(
      "Impairment state for the photonics kernel: calibration_residual {:.3g} pm, "
      "drift_global_sigma {:.3g} pm, drift_local_sigma {:.3g} pm\n",
      run.impairments.calibration_residual.si() * kPm,
      run.impairments.drift_global_sigma.si() * kPm, run.impairments.drift_local_sigma.si() * kPm);
  if (recall) print_recall(*recall);
  fmt::print("Traces: {}, {}\n", trace_csv.string(), events_csv.string());
}

void run_calibrate(const ThermalOptions& t, const GlobalOptions& options) {
  const Setup s = load_setup(t, options);
  // The lock at t = 0 of the drift simulation: fabrication errors and the steady state.
  prism::DriftOptions d;
  d.duration = Time::si(0.0);
  d.seed = options.seed;
  d.heat = operating_heat(s);
  const prism::DriftRun run =
      prism::simulate_drift(s.accelerator.device, s.thermal, s.calibration, d);
  if (run.trace.empty()) {  // the TEC cannot hold the setpoint: no lock to report
    if (options.json)
      std::cout << dump_json({{"feasible", false}, {"reason", run.reason}});
    else
      fmt::print("Bias calibration NOT run: the TEC cannot hold the setpoint {}\n", run.reason);
    return;
  }
  if (options.json) {
    Json j = report_json(run.initial, true);
    j["impairments"] = impairments_json(prism::with_calibration({}, run.initial));
    std::cout << dump_json(j);
    return;
  }
  print_report(run.initial, s);
  std::vector<int> histogram(static_cast<std::size_t>(s.calibration.max_iterations) + 1, 0);
  for (const auto& r : run.initial.rings) ++histogram[static_cast<std::size_t>(r.iterations)];
  fmt::print("  iterations histogram:");
  for (std::size_t k = 0; k < histogram.size(); ++k)
    if (histogram[k] > 0) fmt::print(" {}:{}", k, histogram[k]);
  fmt::print("\n  (--json lists every ring)\n");
}

}  // namespace

void add_prism_thermal_commands(CLI::App& prism, const GlobalOptions& options, const Registry&) {
  const auto add = [&](const char* name, const char* help) {
    CLI::App* sub = prism.add_subcommand(name, help);
    auto t = std::make_shared<ThermalOptions>();
    sub->add_option("CONFIG", t->config, "Accelerator YAML file or preset (configs/accelerators/)")
        ->required();
    sub->add_option("--thermal", t->thermal, "Thermal spec file (kind thermal) to use instead");
    sub->add_option("--calibration", t->calibration,
                    "Calibration spec file (kind calibration) to use instead");
    return std::pair{sub, t};
  };
  auto [thermal, topt] = add("thermal", "Drift, TEC action and recalibrations over time");
  thermal->add_option("--duration", topt->duration, "Simulated time")->capture_default_str();
  thermal->add_option("--trace-interval", topt->trace_interval, "Trace sampling period")
      ->capture_default_str();
  thermal->add_option("--load-step", topt->load_step, "Extra chip heat from half-time on")
      ->capture_default_str();
  thermal
      ->add_option("--recall-tokens", topt->recall_tokens,
                   "Tokens of the synthetic cache for the Recall@k under drift (0: skip)")
      ->capture_default_str();
  thermal->add_option("--recall-steps", topt->recall_steps, "Decode steps of that cache")
      ->capture_default_str();
  thermal->callback([t = topt, &options] { run_thermal(*t, options); });
  auto [cal, copt] = add("calibrate", "Bias-lock statistics per ring");
  cal->callback([t = copt, &options] { run_calibrate(*t, options); });
}

}  // namespace lightsim::cli
