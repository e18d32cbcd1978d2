// Study `thermal`: the Prism chip over simulated seconds (prism::simulate_drift): ambient swing
// and random walk, self-heating, the two TEC loops, sensor correction and relocks; the traces,
// the recalibration events and the seed's thermal figures beside ours (docs/studies.md,
// "thermal"; the model: docs/thermal.md).
#include <cmath>
#include <filesystem>

#include "lightsim/prism/cost.h"
#include "lightsim/prism/drift_recall.h"
#include "lightsim/prism/relock.h"
#include "lightsim/prism/thermal.h"
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

std::filesystem::path reference_file(const StudyInput& in, const char* name) {
  for (const auto& root : in.load.config_roots)
    if (const auto f = root / "references" / name; std::filesystem::exists(f)) return f;
  LIGHTSIM_THROW(ConfigError, "{}: no references/{} under the config roots",
                 in.config_file.string(), name);
}

// A bound: ours at or under the seed's figure holds.
void judge_bound(report::Claim& c, const std::string& what) {
  if (*c.ours <= c.seed_value.hi) {
    c.verdict = report::Verdict::holds;
    c.explanation = what;
  } else {
    c.verdict = report::Verdict::does_not_hold;
    c.explanation = fmt::format("ours exceeds the seed's bound: {}", what);
  }
}

void add_claims(report::StudyResult& r, const prism::DriftRun& run, const prism::AcceleratorSpec& a,
                const prism::ThermalSeedReference& seed) {
  const std::string infeasible =
      run.feasible ? "" : fmt::format(" (TEC INFEASIBLE: the run stopped {})", run.reason);
  report::Claim& st = r.add_claim("tec_stability", "the two-stage TEC holds the chip within", "K");
  st.seed_value = report::SeedValue::point(seed.tec_stability.si());
  st.ours = run.steady.stability;
  judge_bound(st, fmt::format("residual of the ambient swing and walk after both loops "
                              "(first-order loops, docs/thermal.md){}",
                              infeasible));

  // The seed's +-0.1 K suffices when the rings tolerate at least that much: the lock
  // tolerance over the thermal shift is how far the temperature may move before a ring
  // leaves its lock.
  report::Claim& need = r.add_claim(
      "control_needed", "+-0.1 K of temperature control keeps the rings within their lock", "K");
  need.seed_value = report::SeedValue::point(seed.control_needed.si());
  need.ours = a.calibration.target.si() / a.device.tuning.thermal_shift.si();
  const std::string tolerance = fmt::format(
      "a +-{:.3g} pm lock at {:.3g} pm/K thermal shift tolerates +-{:.3g} K",
      a.calibration.target.si() * kPm, a.device.tuning.thermal_shift.si() * kPm, *need.ours);
  if (*need.ours >= seed.control_needed.si()) {
    need.verdict = report::Verdict::holds;
    need.explanation = tolerance;
  } else {
    need.verdict = report::Verdict::does_not_hold;
    need.explanation = tolerance + ": tighter control than the seed's is needed";
  }

  report::Claim& p = r.add_claim("tec_power", "TEC power", "W");
  p.seed_value = report::SeedValue::point(seed.tec_power.si());
  if (run.steady.feasible) {
    p.ours = run.steady.tec_power;
    judge_bound(p, fmt::format("both stages (Ioffe COP at the optimum current) pumping {:.3g} W "
                               "dissipated on chip at full rate{}",
                               run.dissipated, infeasible));
  } else {  // an infeasible TEC's power is not a figure (prism/cost.h)
    p.verdict = report::Verdict::not_comparable;
    p.explanation = fmt::format("the TEC cannot hold the chip at {:.3g} W dissipated on chip: {}",
                                run.dissipated, run.steady.reason);
  }

  report::Claim& lock =
      r.add_claim("lock_target", "bias calibration locks every ring within", "pm");
  lock.seed_value = report::SeedValue::point(seed.lock_target.si() * kPm);
  if (run.trace.empty()) {
    lock.explanation = "no lock was simulated" + infeasible;
    return;
  }
  lock.ours = run.initial.residual_max * kPm;
  judge_bound(lock,
              fmt::format("largest residual of the initial lock ({} of {} rings locked, "
                          "at most {} iterations); over the run the error reached {:.3g} "
                          "pm rms, {:.3g} pm max between relocks",
                          run.initial.locked, run.initial.rows * run.initial.channels,
                          run.initial.max_iterations, run.error_rms * kPm, run.error_max * kPm));
}

// `relock`: the accelerator's full query rate (cost model) net of the relock downtime
// (prism/relock.h: a query needs every row, so the bank is down while a relock runs).
void add_summary(report::StudyResult& r, const prism::DriftRun& run, double duration,
                 const prism::RelockThroughput& relock) {
  Table& t = r.add_table("summary", "Run summary", {{"quantity", ""}, {"value", ""}, {"unit", ""}});
  std::int64_t relocks = 0, failed = 0;
  for (const auto& e : run.events)
    if (e.trigger != "initial") relocks += 1, failed += e.failed;
  const auto row = [&](const char* q, double v, const char* unit) {
    t.add_row({std::string(q), v, std::string(unit)});
  };
  row("dissipated_on_chip", run.dissipated, "W");
  row("chip_steady", run.steady.chip, "C");
  if (run.steady.feasible) row("tec_power_steady", run.steady.tec_power, "W");
  row("tec_feasible", run.steady.feasible ? 1.0 : 0.0, "");
  row("run_feasible", run.feasible ? 1.0 : 0.0, "");
  row("recalibrations", static_cast<double>(relocks), "");
  row("failed_locks", static_cast<double>(failed), "");
  row("error_rms", run.error_rms * kPm, "pm");
  row("error_max", run.error_max * kPm, "pm");
  row("weight_error_rms", run.weight_error_rms, "");
  row("weight_error_max", run.weight_error_max, "");
  row("tec_energy", run.tec_energy, "J");
  row("tec_mean_power", run.tec_energy / duration, "W");
  row("calibration_energy", run.calibration_energy, "J");
  row("calibration_busy", run.calibration_busy, "");
  row("system_queries_per_s", relock.qps, "1/s");
  if (relock.available) {  // no relock rate when the TEC stopped the run
    row("relock_rate", relock.relock_rate, "1/s");
    row("relock_time", relock.lock_time, "s");
    row("relock_busy_fraction", relock.busy_fraction, "");
    row("system_queries_per_s_net_of_relocks", relock.qps_net, "1/s");
  }
  row("impairment_calibration_residual", run.impairments.calibration_residual.si() * kPm, "pm");
  row("impairment_drift_global_sigma", run.impairments.drift_global_sigma.si() * kPm, "pm");
  row("impairment_drift_local_sigma", run.impairments.drift_local_sigma.si() * kPm, "pm");
}

void add_charts(report::StudyResult& r) {
  r.add_chart("Temperatures over time", "trace", Json::parse(R"json({
    "transform": [{"fold": ["ambient", "chip", "sensor_mean"], "as": ["series", "temperature"]}],
    "mark": "line",
    "encoding": {
      "x": {"field": "t", "type": "quantitative", "title": "time (s)"},
      "y": {"field": "temperature", "type": "quantitative", "title": "temperature (C)",
            "scale": {"zero": false}},
      "color": {"field": "series", "type": "nominal"}
    }
  })json"));
  r.add_chart("Resonance drift: uncorrected vs after sensor correction and relocks", "trace",
              Json::parse(R"json({
    "transform": [{"fold": ["uncorrected_rms", "error_rms", "error_max"],
                   "as": ["series", "drift_pm"]}],
    "mark": "line",
    "encoding": {
      "x": {"field": "t", "type": "quantitative", "title": "time (s)"},
      "y": {"field": "drift_pm", "type": "quantitative", "title": "resonance error (pm)"},
      "color": {"field": "series", "type": "nominal"}
    }
  })json"));
  r.add_chart("Weight error over time (grey rules: intervals with relocks)", "trace",
              Json::parse(R"json({
    "layer": [
      {"transform": [{"filter": "datum.relocked_rows > 0"}],
       "mark": {"type": "rule", "color": "#bbbbbb"},
       "encoding": {"x": {"field": "t", "type": "quantitative"}}},
      {"transform": [{"fold": ["weight_error_rms", "weight_error_max"],
                      "as": ["statistic", "weight_error"]}],
       "mark": "line",
       "encoding": {
         "x": {"field": "t", "type": "quantitative", "title": "time (s)"},
         "y": {"field": "weight_error", "type": "quantitative", "title": "weight error"},
         "color": {"field": "statistic", "type": "nominal"}}}
    ]
  })json"));
}

}  // namespace

report::StudyResult run_thermal_study(const StudyInput& in, Context& ctx) {
  const auto spec = config::read_spec<ThermalStudySpec>(in.document, in.load);
  config::LoadOptions plain = in.load;  // --set applies to the study's config only
  plain.assignments.clear();
  const auto seed = config::load_spec<prism::ThermalSeedReference>(
      reference_file(in, "prism_thermal_seed.yaml"), plain);
  const prism::AcceleratorSpec a = prism::load_accelerator(spec.accelerator, plain);
  LIGHTSIM_CHECK_AS(ConfigError, spec.trace_interval.si() <= spec.duration.si(),
                    "{}: trace_interval ({}) exceeds duration ({})", in.config_file.string(),
                    to_string(spec.trace_interval), to_string(spec.duration));

  prism::DriftOptions d;
  d.duration = spec.duration;
  d.trace_interval = spec.trace_interval;
  d.load_step = spec.load_step;
  d.seed = ctx.seed();
  const prism::CostReport cost = prism::cost(a);
  d.heat = Power::si(cost.dissipated_power);
  ctx.throw_if_cancelled("thermal study (before the drift run)");
  const prism::DriftRun run = prism::simulate_drift(a.device, a.thermal, a.calibration, d);

  report::StudyResult r;
  r.study = in.name;
  r.title = fmt::format("Prism thermal run: {} of drift, TEC action and recalibrations ({})",
                        to_string(spec.duration), spec.accelerator);
  r.spec_section = "SPEC 1.3, 1.5";
  r.seed = ctx.seed();
  r.config = config::to_yaml(in.document);
  add_claims(r, run, a, seed);
  r.tables.push_back({"trace", "Traces (decimated)",
                      prism::drift_trace_table(run, static_cast<std::size_t>(spec.max_rows))});
  r.tables.push_back({"events", "Recalibration events", prism::recalibration_table(run)});
  add_summary(r, run, spec.duration.si(),
              prism::relock_throughput(run, a.calibration, spec.duration.si(), cost.system_qps));
  add_charts(r);
  if (!run.trace.empty() && spec.recall_tokens > 0) {
    ctx.throw_if_cancelled("thermal study (before the recall check)");
    prism::DriftRecallOptions ro;
    ro.tokens = spec.recall_tokens;
    ro.steps = spec.recall_steps;
    const prism::DriftRecall rec = prism::drift_recall(a, run, ro, ctx);
    Table& t = r.add_table(
        "recall",
        fmt::format("Recall@k under the run's drift (synthetic cache, {} tokens = {} blocks, {} "
                    "KV heads x {} steps; truth: exact projected top-k)",
                    rec.tokens, rec.blocks, rec.kv_heads, rec.steps),
        {{"k", ""}, {"ideal", ""}, {"calibrated", ""}, {"uncalibrated", ""}});
    for (const auto& x : rec.recall)
      t.add_row({static_cast<std::int64_t>(x.k), x.ideal, x.calibrated, x.uncalibrated});
  }
  return r;
}

}  // namespace lightsim::studies
