// Study `thermal`: the Prism chip over simulated seconds (prism::simulate_drift): ambient swing
// and random walk, self-heating, the two TEC loops, sensor correction and relocks; the traces,
// the recalibration events and the seed's thermal figures beside ours (docs/studies.md,
// "thermal"; the model: docs/thermal.md).
#include "lightsim/prism/cost.h"
#include "lightsim/prism/drift_recall.h"
#include "lightsim/prism/relock.h"
#include "lightsim/prism/thermal.h"
#include "lightsim/studies/runner.h"
#include "lightsim/studies/system.h"

namespace lightsim::studies {

void ThermalStudySpec::describe(config::Schema<ThermalStudySpec>& s) {
  s.help(
      "Study `thermal`: drift, TEC action, recalibrations and weight error of a Prism "
      "accelerator over simulated time (docs/studies.md).");
  s.field("accelerator", &ThermalStudySpec::accelerator,
          "accelerator (configs/accelerators/NAME.yaml or a file); its thermal and calibration "
          "sections are used")
      .required();
  s.field("duration", &ThermalStudySpec::duration, "simulated time").range("1 ms", "3600 s");
  s.field("trace_interval", &ThermalStudySpec::trace_interval,
          "rings are updated and the trace sampled this often")
      .range("10 us", "10 s");
  s.field("load_step", &ThermalStudySpec::load_step,
          "extra chip heat from half the duration on (a workload change)")
      .range("0 W", "100 W");
  s.field("max_rows", &ThermalStudySpec::max_rows,
          "trace rows kept in the result (evenly decimated; relocks summed)")
      .range(std::int64_t{10}, std::int64_t{1} << 20);
  s.field("recall_tokens", &ThermalStudySpec::recall_tokens,
          "tokens of the synthetic KV cache on which Recall@k under the run's drift is measured "
          "(0: skip)")
      .range(std::int64_t{0}, std::int64_t{1} << 20);
  s.field("recall_steps", &ThermalStudySpec::recall_steps, "decode steps of that cache")
      .range(std::int64_t{1}, std::int64_t{4096});
}

namespace {

constexpr double kPm = 1e12;
using report::SeedValue;
using Seed = prism::ThermalSeedReference;
using ThermalRun = Run<ThermalStudySpec, Seed>;

// A bound claim: `what` explains ours; when ours breaks the bound the explanation says so.
void bound(ThermalRun& run, std::string_view id, double ours, const std::string& what,
           const std::string& broken = "ours exceeds the seed's bound: ") {
  report::Claim& c = run.claim(id, ours);
  c.explanation = c.verdict == report::Verdict::holds ? what : broken + what;
}

void add_claims(ThermalRun& run, const prism::DriftRun& d, const prism::AcceleratorSpec& a) {
  const std::string infeasible =
      d.feasible ? "" : fmt::format(" (TEC INFEASIBLE: the run stopped {})", d.reason);
  bound(run, "tec_stability", d.steady.stability,
        fmt::format("residual of the ambient swing and walk after both loops "
                    "(first-order loops, docs/thermal.md){}",
                    infeasible));

  // The seed's control suffices when the rings tolerate at least that much: the lock
  // tolerance over the thermal shift is how far the temperature may move before a ring
  // leaves its lock.
  const double tolerated = a.calibration.target.si() / a.device.tuning.thermal_shift.si();
  const std::string tolerance = fmt::format(
      "a +-{:.3g} pm lock at {:.3g} pm/K thermal shift tolerates +-{:.3g} K",
      a.calibration.target.si() * kPm, a.device.tuning.thermal_shift.si() * kPm, tolerated);
  report::Claim& need = run.claim("control_needed", tolerated);
  need.explanation = need.verdict == report::Verdict::holds
                         ? tolerance
                         : tolerance + ": tighter control than the seed's is needed";

  if (d.steady.feasible)
    bound(run, "tec_power", d.steady.tec_power,
          fmt::format("both stages (Ioffe COP at the optimum current) pumping {:.3g} W "
                      "dissipated on chip at full rate{}",
                      d.dissipated, infeasible));
  else  // an infeasible TEC's power is not a figure (prism/cost.h)
    run.claim("tec_power", std::nullopt).explanation =
        fmt::format("the TEC cannot hold the chip at {:.3g} W dissipated on chip: {}", d.dissipated,
                    d.steady.reason);

  if (d.trace.empty()) {
    run.claim("lock_target", std::nullopt).explanation = "no lock was simulated" + infeasible;
    return;
  }
  bound(run, "lock_target", d.initial.residual_max * kPm,
        fmt::format("largest residual of the initial lock ({} of {} rings locked, "
                    "at most {} iterations); over the run the error reached {:.3g} "
                    "pm rms, {:.3g} pm max between relocks",
                    d.initial.locked, d.initial.rows * d.initial.channels, d.initial.max_iterations,
                    d.error_rms * kPm, d.error_max * kPm));
}

// `relock`: the accelerator's full query rate (cost model) net of the relock downtime
// (prism/relock.h: a query needs every row, so the bank is down while a relock runs).
void add_summary(ThermalRun& run, const prism::DriftRun& d, double duration,
                 const prism::RelockThroughput& relock) {
  run.table("summary", "Run summary", {{"quantity", ""}, {"value", ""}, {"unit", ""}});
  std::int64_t relocks = 0, failed = 0;
  for (const auto& e : d.events)
    if (e.trigger != "initial") relocks += 1, failed += e.failed;
  const auto row = [&](const char* q, double v, const char* unit) {
    run.add_row("summary",
                {{"quantity", std::string(q)}, {"value", v}, {"unit", std::string(unit)}});
  };
  row("dissipated_on_chip", d.dissipated, "W");
  row("chip_steady", d.steady.chip, "C");
  if (d.steady.feasible) row("tec_power_steady", d.steady.tec_power, "W");
  row("tec_feasible", d.steady.feasible ? 1.0 : 0.0, "");
  row("run_feasible", d.feasible ? 1.0 : 0.0, "");
  row("recalibrations", static_cast<double>(relocks), "");
  row("failed_locks", static_cast<double>(failed), "");
  row("error_rms", d.error_rms * kPm, "pm");
  row("error_max", d.error_max * kPm, "pm");
  row("weight_error_rms", d.weight_error_rms, "");
  row("weight_error_max", d.weight_error_max, "");
  row("tec_energy", d.tec_energy, "J");
  row("tec_mean_power", d.tec_energy / duration, "W");
  row("calibration_energy", d.calibration_energy, "J");
  row("calibration_busy", d.calibration_busy, "");
  row("system_queries_per_s", relock.qps, "1/s");
  if (relock.available) {  // no relock rate when the TEC stopped the run
    row("relock_rate", relock.relock_rate, "1/s");
    row("relock_time", relock.lock_time, "s");
    row("relock_busy_fraction", relock.busy_fraction, "");
    row("system_queries_per_s_net_of_relocks", relock.qps_net, "1/s");
  }
  row("impairment_calibration_residual", d.impairments.calibration_residual.si() * kPm, "pm");
  row("impairment_drift_global_sigma", d.impairments.drift_global_sigma.si() * kPm, "pm");
  row("impairment_drift_local_sigma", d.impairments.drift_local_sigma.si() * kPm, "pm");
}

// A line chart of trace columns over time, folded into one series column.
Chart over_time(std::string title, std::vector<std::string> columns, std::string series,
                std::string value, std::string y_title, std::optional<bool> zero = {}) {
  Chart c{.title = std::move(title), .table = "trace", .mark = Mark::line};
  c.fold = std::move(columns);
  c.fold_as = {series, value};
  c.x = Channel{.field = "t", .type = "quantitative", .title = "time (s)"};
  c.y = Channel{.field = value, .type = "quantitative", .title = y_title, .scale = {.zero = zero}};
  c.color = Channel{.field = series, .type = "nominal"};
  return c;
}

void add_charts(ThermalRun& run) {
  run.chart(over_time("Temperatures over time", {"ambient", "chip", "sensor_mean"}, "series",
                      "temperature", "temperature (C)", false));
  Chart drift = over_time("Resonance drift: uncorrected vs after sensor correction and relocks",
                          {"uncorrected_rms", "error_rms", "error_max"}, "series", "drift_pm",
                          "resonance error (pm)");
  // The seed's lock target (claim lock_target), a rule across the run.
  drift.seed_claims.push_back({.id = "lock_target"});
  run.chart(drift);
  Chart relocks{
      .mark = Mark::rule, .mark_color = "#bbbbbb", .filters = {"datum.relocked_rows > 0"}};
  relocks.x = Channel{.field = "t", .type = "quantitative"};
  Chart weight = over_time("", {"weight_error_rms", "weight_error_max"}, "statistic",
                           "weight_error", "weight error");
  run.chart({.title = "Weight error over time (grey rules: intervals with relocks)",
             .table = "trace",
             .layers = {relocks, weight}});
}

void evaluate(ThermalRun& run) {
  const ThermalStudySpec& spec = run.spec;
  const prism::AcceleratorSpec a = prism::load_accelerator(spec.accelerator, run.presets);
  LIGHTSIM_CHECK_AS(ConfigError, spec.trace_interval.si() <= spec.duration.si(),
                    "{}: trace_interval ({}) exceeds duration ({})", run.config_file.string(),
                    to_string(spec.trace_interval), to_string(spec.duration));

  prism::DriftOptions o;
  o.duration = spec.duration;
  o.trace_interval = spec.trace_interval;
  o.load_step = spec.load_step;
  o.seed = run.ctx.seed();
  o.cancel = run.ctx.cancel_flag();  // SIGINT/SIGTERM stop the drift run too
  const prism::CostReport cost = prism::cost(a);
  o.heat = Power::si(cost.dissipated_power);
  run.ctx.throw_if_cancelled("thermal study (before the drift run)");
  const prism::DriftRun d = prism::simulate_drift(a.device, a.thermal, a.calibration, o);

  add_claims(run, d, a);
  run.add_built_table("trace", "Traces (decimated)",
                      prism::drift_trace_table(d, static_cast<std::size_t>(spec.max_rows)));
  run.add_built_table("events", "Recalibration events", prism::recalibration_table(d));
  add_summary(run, d, spec.duration.si(),
              prism::relock_throughput(d, a.calibration, spec.duration.si(), cost.system_qps));
  add_charts(run);
  if (d.trace.empty() || spec.recall_tokens <= 0) return;
  run.ctx.throw_if_cancelled("thermal study (before the recall check)");
  prism::DriftRecallOptions ro;
  ro.tokens = spec.recall_tokens;
  ro.steps = spec.recall_steps;
  const prism::DriftRecall rec = prism::drift_recall(a, d, ro, run.ctx);
  run.table(
      "recall",
      fmt::format("Recall@k under the run's drift (synthetic cache, {} tokens = {} blocks, {} "
                  "KV heads x {} steps; truth: exact projected top-k)",
                  rec.tokens, rec.blocks, rec.kv_heads, rec.steps),
      {{"k", ""}, {"ideal", ""}, {"calibrated", ""}, {"uncalibrated", ""}});
  for (const auto& x : rec.recall)
    run.add_row("recall", {{"k", static_cast<std::int64_t>(x.k)},
                           {"ideal", x.ideal},
                           {"calibrated", x.calibrated},
                           {"uncalibrated", x.uncalibrated}});
}

using Rule = ClaimRule<ThermalStudySpec, Seed>;

}  // namespace

void add_thermal_study(Registry& registry) {
  add_study(
      registry,
      Definition<ThermalStudySpec, Seed>{
          .name = "thermal",
          .help = "Prism thermal run: drift, TEC action, recalibrations, weight error",
          .title =
              [](const ThermalStudySpec& s, const Seed&) {
                return fmt::format(
                    "Prism thermal run: {} of drift, TEC action and recalibrations ({})",
                    to_string(s.duration), s.accelerator);
              },
          .spec_section = "SPEC 1.3, 1.5",
          .reference = "references/prism_thermal_seed.yaml",
          .claims =
              {Rule{.id = "tec_stability",
                    .unit = "K",
                    .comparison = Comparison::at_most,
                    .text = [](const Seed&) { return "the two-stage TEC holds the chip within"; },
                    .seed = [](const Seed& s) { return SeedValue::point(s.tec_stability.si()); }},
               Rule{.id = "control_needed",
                    .unit = "K",
                    .comparison = Comparison::at_least,
                    .text =
                        [](const Seed& s) {
                          return fmt::format(
                              "+-{:g} K of temperature control keeps the rings within their lock",
                              s.control_needed.si());
                        },
                    .seed = [](const Seed& s) { return SeedValue::point(s.control_needed.si()); }},
               Rule{.id = "tec_power",
                    .unit = "W",
                    .comparison = Comparison::at_most,
                    .text = [](const Seed&) { return "TEC power"; },
                    .seed = [](const Seed& s) { return SeedValue::point(s.tec_power.si()); }},
               Rule{.id = "lock_target",
                    .unit = "pm",
                    .comparison = Comparison::at_most,
                    .text = [](const Seed&) { return "bias calibration locks every ring within"; },
                    .seed =
                        [](const Seed& s) { return SeedValue::point(s.lock_target.si() * kPm); }}},
          .evaluate = evaluate});
}

}  // namespace lightsim::studies
