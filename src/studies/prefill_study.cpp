// Study `prefill`: the seed's prefill scenarios on the electrical baseline and the photonic
// pods (prefill::run_study), every figure of configs/references/prefill_study_seed.yaml beside
// ours (prefill::compare_with_seed), the per-point latency breakdown and the speedups
// (docs/studies.md, "prefill"; the model: docs/prefill.md).
#include <algorithm>
#include <cmath>

#include "lightsim/core/error_summary.h"
#include "lightsim/fabric/measured.h"
#include "lightsim/prefill/scenario.h"
#include "lightsim/prefill/sensitivity.h"
#include "lightsim/prefill/setup.h"
#include "lightsim/prefill/study.h"
#include "lightsim/studies/judge.h"
#include "lightsim/studies/runner.h"
#include "lightsim/studies/system.h"

namespace lightsim::studies {

void PrefillStudySpec::describe(config::Schema<PrefillStudySpec>& s) {
  s.help(
      "Study `prefill`: the seed's prefill scenarios on every fabric they list, the seed's "
      "figures beside ours (docs/studies.md).");
  s.field("scenarios", &PrefillStudySpec::scenarios,
          "prefill scenarios (configs/scenarios/NAME.yaml or files); the first fabric of each is "
          "the baseline")
      .min_items(1);
  s.field("gpu_counts", &PrefillStudySpec::gpu_counts,
          "GPU counts searched in every scenario; empty = each scenario's own")
      .range(std::int64_t{1}, std::int64_t{1} << 20);
  s.field("fixed_plans", &PrefillStudySpec::fixed_plans,
          "also run the scenarios' fixed communication-limited plans");
  s.field("agreement", &PrefillStudySpec::agreement,
          "relative band around a seed figure within which ours counts as reproducing it")
      .range(0.0, 1.0);
  s.field("validations", &PrefillStudySpec::validations,
          "ids of configs/references/prefill_measured.yaml to validate the copper model "
          "against (their published measurement beside our figure; not seed claims); empty: "
          "every measurement");
  s.field("sensitivity", &PrefillStudySpec::sensitivity,
          "assumptions under which every scenario is rerun and the seed's figures judged "
          "again: compute_efficiency_half, free_overlap, no_two_microbatch_overlap, "
          "no_ring_overlap, skewed_routing, skewed_routing_eplb (docs/prefill.md); empty: none");
}

std::string claim_id(std::string_view text) {
  std::string id;
  for (char c : text) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    const bool upper = c >= 'A' && c <= 'Z';
    if (keep || upper)
      id += upper ? static_cast<char>(c - 'A' + 'a') : c;
    else if (!id.empty() && id.back() != '_')
      id += '_';
  }
  while (!id.empty() && id.back() == '_') id.pop_back();
  return id.empty() ? std::string("claim") : id;
}

namespace {

using Seed = prefill::StudySeedReference;
using PrefillRun = Run<PrefillStudySpec, Seed>;

double ms(double s) {
  return s * 1e3;
}

// One seed figure beside our range of it: judged against the seed's range widened by the
// spec's agreement (relative).
void add_claim(PrefillRun& run, const prefill::FigureComparison& f) {
  const bool speedup = f.seed.figure.rfind("speedup", 0) == 0;
  const report::SeedValue seed = f.seed.low == f.seed.high
                                     ? report::SeedValue::point(f.seed.high)
                                     : report::SeedValue::range(f.seed.low, f.seed.high);
  std::string id = claim_id(f.seed.figure + "_" + f.seed.scenario + "_" + f.fabric);
  std::string text = fmt::format("{} [{}]", f.seed.text, f.fabric);
  const std::string unit = speedup ? "" : "1/s";
  if (!f.available) {
    run.judged(std::move(id), std::move(text), unit, seed, std::nullopt, Comparison::relative,
               run.spec.agreement)
        .explanation = "the scenarios run hold no such figure (see the study's config)";
    return;
  }
  report::Claim& c = run.judged_range(std::move(id), std::move(text), unit, seed, f.ours_low,
                                      f.ours_high, Comparison::relative, run.spec.agreement);
  const std::string ours = f.ours_low == f.ours_high
                               ? fmt::format("{:.3g}", f.ours_high)
                               : fmt::format("{:.3g}-{:.3g}", f.ours_low, f.ours_high);
  const std::string why =
      "docs/prefill.md, \"The seed's study\" (why we deviate) gives the reasons";
  switch (c.verdict) {
    case report::Verdict::holds:
      c.explanation = fmt::format("ours {} ({}) on {}", ours, f.how, f.fabric);
      break;
    case report::Verdict::holds_under_conditions:
      c.conditions = fmt::format("on {}, for part of our range only: ours span {} ({})", f.fabric,
                                 ours, f.how);
      c.explanation = why;
      break;
    default:
      c.explanation = fmt::format("ours {} ({}) on {} lies {} the seed's figure; {}", ours, f.how,
                                  f.fabric, f.ours_high < f.seed.low ? "below" : "above", why);
  }
}

void add_tables(PrefillRun& run, const std::vector<prefill::ScenarioStudy>& all) {
  run.table("points", "Best plan per scenario, fabric and GPU count",
            {{"scenario", ""},
             {"gpus", ""},
             {"fabric", ""},
             {"feasible", ""},
             {"plan", ""},
             {"latency", "ms"},
             {"ttft", "ms"},
             {"tokens_per_s_per_gpu", "1/s"},
             {"mfu", ""},
             {"exposed_share", ""},
             {"speedup", ""},
             {"note", ""}});
  // Latency = compute on the critical path + exposed communication + the rest (pipeline
  // fill and what the step model adds beyond the two), so the three stack to the latency.
  run.table("breakdown", "Latency breakdown of the best plans",
            {{"scenario", ""}, {"gpus", ""}, {"fabric", ""}, {"component", ""}, {"time", "ms"}});
  run.table("fixed_plans", "Fixed communication-limited plans",
            {{"scenario", ""},
             {"plan", ""},
             {"gpus", ""},
             {"fabric", ""},
             {"feasible", ""},
             {"latency", "ms"},
             {"exposed_share", ""},
             {"speedup", ""},
             {"note", ""}});
  for (const auto& s : all)
    for (const auto& p : s.points)
      for (std::size_t f = 0; f < p.per_fabric.size(); ++f) {
        const prefill::Result& b = p.per_fabric[f].best;
        const bool ok = b.feasible;
        run.add_row("points", {{"scenario", s.scenario.name},
                               {"gpus", p.gpus},
                               {"fabric", s.topologies[f].name},
                               {"feasible", ok},
                               {"plan", ok ? prefill::format_plan(b.plan) : std::string("-")},
                               {"latency", ok ? ms(b.latency_s) : 0.0},
                               {"ttft", ok ? ms(b.ttft_s) : 0.0},
                               {"tokens_per_s_per_gpu", ok ? b.tokens_per_s_per_gpu : 0.0},
                               {"mfu", ok ? b.mfu : 0.0},
                               {"exposed_share", ok ? b.exposed_total() / b.latency_s : 0.0},
                               {"speedup", p.speedup[f]},
                               {"note", ok ? std::string() : b.reason}});
      }
  for (const auto& s : all)
    for (const auto& p : s.points)
      for (std::size_t f = 0; f < p.per_fabric.size(); ++f) {
        const prefill::Result& b = p.per_fabric[f].best;
        if (!b.feasible) continue;
        const double compute = b.compute_total(), comm = b.exposed_total();
        const auto part = [&](const char* component, double seconds) {
          run.add_row("breakdown", {{"scenario", s.scenario.name},
                                    {"gpus", p.gpus},
                                    {"fabric", s.topologies[f].name},
                                    {"component", std::string(component)},
                                    {"time", ms(seconds)}});
        };
        part("compute", compute);
        part("communication", comm);
        part("other", b.latency_s - compute - comm);
      }
  for (const auto& s : all)
    for (const auto& p : s.fixed)
      for (std::size_t f = 0; f < p.per_fabric.size(); ++f) {
        const prefill::Result& b = p.per_fabric[f];
        const bool ok = b.feasible;
        run.add_row("fixed_plans", {{"scenario", s.scenario.name},
                                    {"plan", p.plan},
                                    {"gpus", p.gpus},
                                    {"fabric", s.topologies[f].name},
                                    {"feasible", ok},
                                    {"latency", ok ? ms(b.latency_s) : 0.0},
                                    {"exposed_share", ok ? b.exposed_total() / b.latency_s : 0.0},
                                    {"speedup", p.speedup[f]},
                                    {"note", ok ? std::string() : b.reason}});
      }
}

void add_charts(PrefillRun& run) {
  Chart stacked{.title =
                    "Prefill latency vs GPU count, best plan per fabric (compute / exposed "
                    "communication / other stacked)",
                .table = "breakdown",
                .mark = Mark::bar};
  stacked.x = Channel{.field = "fabric", .type = "nominal", .no_title = true};
  stacked.y =
      Channel{.field = "time", .type = "quantitative", .title = "latency (ms)", .stack = "zero"};
  stacked.color = Channel{.field = "component", .type = "nominal"};
  stacked.column = Channel{.field = "gpus", .type = "ordinal", .title = "GPUs"};
  stacked.row = Channel{.field = "scenario", .type = "nominal", .no_title = true};
  stacked.tooltip = {tip("fabric"), tip("gpus"), tip("component"), tip("time", ".1f")};
  stacked.independent = {"y"};
  run.chart(stacked);

  Chart speedup{.title = "Photonic speedup over the electrical baseline vs GPU count (best plans)",
                .table = "points",
                .mark = Mark::line_points,
                .filters = {"datum.feasible"}};
  speedup.x = Channel{.field = "gpus",
                      .type = "quantitative",
                      .title = "GPUs",
                      .scale = {.type = "log", .base = 2}};
  speedup.y =
      Channel{.field = "speedup", .type = "quantitative", .title = "speedup (baseline / fabric)"};
  speedup.color = Channel{.field = "fabric", .type = "nominal"};
  speedup.stroke_dash = Channel{.field = "scenario", .type = "nominal"};
  speedup.tooltip = {tip("scenario"), tip("fabric"), tip("gpus"), tip("plan"),
                     tip("speedup", ".2f")};
  run.chart(speedup);
}

// Where each validation row's time goes (issue 18 part 1, root cause): every compute class
// and every exposed communication kind of our latency for the deployed plan, the rest (pipeline
// fill and what the step model adds), and the gap to the latency the measured throughput
// implies (positive: the measured system is slower than ours). Shares are of our latency.
void add_validation_breakdown(PrefillRun& run,
                              const std::vector<std::pair<std::string, prefill::Result>>& rows,
                              const std::vector<double>& measured_latency) {
  run.table("validation_breakdown",
            "Our latency of each validation row by component, and its gap to the measurement",
            {{"id", ""}, {"kind", ""}, {"component", ""}, {"time", "ms"}, {"share", ""}});
  for (std::size_t i = 0; i < rows.size(); ++i) {
    // Named references, not a structured binding: clang 14 cannot capture a binding.
    const std::string& id = rows[i].first;
    const prefill::Result& r = rows[i].second;
    const auto part = [&](const char* kind, std::string_view component, double seconds) {
      run.add_row("validation_breakdown", {{"id", id},
                                           {"kind", std::string(kind)},
                                           {"component", std::string(component)},
                                           {"time", ms(seconds)},
                                           {"share", seconds / r.latency_s}});
    };
    for (std::size_t c = 0; c < prefill::kComputeClasses; ++c)
      if (r.compute[c] > 0)
        part("compute", prefill::compute_class_name(static_cast<prefill::ComputeClass>(c)),
             r.compute[c]);
    for (std::size_t c = 0; c < prefill::kCommKinds; ++c)
      if (r.exposed[c] > 0)
        part("exposed", prefill::comm_kind_name(static_cast<prefill::CommKind>(c)), r.exposed[c]);
    // The rest is pipeline fill; below 1e-9 of the latency it is the rounding of the sums.
    const double rest = r.latency_s - r.compute_total() - r.exposed_total();
    if (std::abs(rest) > 1e-9 * r.latency_s) part("other", "pipeline fill", rest);
    part("gap", "measured minus ours", measured_latency[i] - r.latency_s);
  }
}

// The copper model against published measurements of deployed systems: each measurement's
// scenario at its GPU count with its deployed plan on the scenario's first fabric; then the
// median and worst |error| over the rows not used to fit anything.
void add_validation(PrefillRun& run) {
  const auto ref = run.reference<prefill::MeasurementReference>("references/prefill_measured.yaml");
  std::vector<std::string> ids = run.spec.validations;
  if (ids.empty())
    for (const prefill::Measurement& m : ref.measurements) ids.push_back(m.name());
  run.table("validation",
            "Validation of the copper model against published measurements (not seed claims)",
            {{"id", ""},
             {"scenario", ""},
             {"fabric", ""},
             {"gpus", ""},
             {"plan", ""},
             {"fitted", ""},
             {"measured_tokens_per_s_per_gpu", "1/s"},
             {"ours_tokens_per_s_per_gpu", "1/s"},
             {"error", ""},
             {"compute_share", ""},
             {"exposed_share", ""},
             {"kernel_efficiency", ""},
             {"source", ""},
             {"note", ""}});
  std::vector<double> errors;                                     // |error| of the rows not fitted
  std::vector<std::string> error_ids;                             // their ids
  std::vector<std::pair<std::string, prefill::Result>> deployed;  // id, our result (feasible)
  std::vector<double> measured_latency;  // the batch's latency at the measured throughput
  for (const std::string& name : ids) {
    run.ctx.throw_if_cancelled(fmt::format("prefill study (before validation '{}')", name));
    const auto it = std::find_if(ref.measurements.begin(), ref.measurements.end(),
                                 [&](const prefill::Measurement& m) { return m.name() == name; });
    LIGHTSIM_CHECK_AS(ConfigError, it != ref.measurements.end(),
                      "prefill_study: validations: '{}' has no measurement in "
                      "configs/references/prefill_measured.yaml",
                      name);
    prefill::ScenarioSpec s = prefill::load_scenario(it->scenario, run.presets);
    s.gpu_counts = {it->gpus};
    s.fixed_plans = {it->plan};
    const model::Transformer m = prefill::load_model(s.model, run.presets);
    const fabric::Topology top = prefill::scenario_topology(s.fabrics[0]);  // deployed system
    const prefill::ScenarioStudy study = prefill::run_study(s, m, {top});
    const prefill::Result& b = study.fixed.at(0).per_fabric.at(0);
    const bool ok = b.feasible;  // an infeasible deployed plan is a result, with its reason
    const double error = ok ? b.tokens_per_s_per_gpu / it->tokens_per_s_per_gpu - 1 : 0.0;
    if (ok && !it->fitted) {
      errors.push_back(std::abs(error));
      error_ids.push_back(name);
    }
    if (ok) {
      deployed.emplace_back(name, b);
      measured_latency.push_back(b.latency_s * b.tokens_per_s_per_gpu / it->tokens_per_s_per_gpu);
    }
    run.add_row("validation", {{"id", name},
                               {"scenario", it->scenario},
                               {"fabric", top.name},
                               {"gpus", it->gpus},
                               {"plan", it->plan},
                               {"fitted", it->fitted ? "yes" : "no"},
                               {"measured_tokens_per_s_per_gpu", it->tokens_per_s_per_gpu},
                               {"ours_tokens_per_s_per_gpu", ok ? b.tokens_per_s_per_gpu : 0.0},
                               {"error", error},
                               {"compute_share", ok ? b.compute_total() / b.latency_s : 0.0},
                               {"exposed_share", ok ? b.exposed_total() / b.latency_s : 0.0},
                               {"kernel_efficiency", fabric::KernelEfficiency(top.gpu).describe()},
                               {"source", it->source},
                               {"note", ok ? std::string() : "infeasible: " + b.reason}});
  }
  run.table("validation_summary",
            "Median and worst |error| over the validation rows not used to fit a parameter",
            {{"rows", ""}, {"median_abs_error", ""}, {"worst_abs_error", ""}, {"worst_id", ""}});
  add_validation_breakdown(run, deployed, measured_latency);
  if (errors.empty()) return;
  const core::ErrorSummary summary = core::summarize_errors(errors);
  run.add_row("validation_summary", {{"rows", static_cast<std::int64_t>(summary.count)},
                                     {"median_abs_error", summary.median_abs_error},
                                     {"worst_abs_error", summary.worst_error},
                                     {"worst_id", error_ids[summary.worst_index]}});
}

// The collective models against published nccl-tests and DeepEP figures
// (configs/references/collectives_measured.yaml), each on the fabric restating its system;
// then the median and worst |error| over the rows not used to fit a parameter.
void add_collective_validation(PrefillRun& run) {
  const auto ref =
      run.reference<fabric::CollectiveMeasurementReference>("references/collectives_measured.yaml");
  run.table("collective_validation",
            "Validation of the collective models against published nccl-tests and DeepEP figures",
            {{"id", ""},
             {"library", ""},
             {"fabric", ""},
             {"op", ""},
             {"gpus", ""},
             {"metric", ""},
             {"unit", ""},
             {"fitted", ""},
             {"measured", ""},
             {"ours", ""},
             {"error", ""},
             {"how", ""},
             {"source", ""},
             {"note", ""}});
  std::vector<double> errors;          // |error| of the rows not fitted
  std::vector<std::string> error_ids;  // their ids
  for (const fabric::CollectiveMeasurement& m : ref.measurements) {
    run.ctx.throw_if_cancelled(fmt::format("prefill study (before collective row '{}')", m.id));
    const fabric::Topology top = fabric::build_topology(fabric::load_fabric(m.fabric, run.presets));
    const fabric::ModelledMeasurement o = fabric::model_measurement(top, m);
    const bool latency = measured_metric(m) == "latency";
    const double scale = latency ? 1e6 : 1e-9;  // us or GB/s
    const double measured = fabric::measured_value(m);
    const double error = o.feasible ? o.value / measured - 1 : 0.0;
    if (o.feasible && !m.fitted) {
      errors.push_back(std::abs(error));
      error_ids.push_back(m.id);
    }
    run.add_row(
        "collective_validation",
        {{"id", m.id},
         {"library", std::string(m.library == fabric::MeasuredLibrary::nccl ? "nccl" : "deepep")},
         {"fabric", m.fabric},
         {"op", m.op},
         {"gpus", m.gpus},
         {"metric", std::string(fabric::measured_metric(m))},
         {"unit", std::string(latency ? "us" : "GB/s")},
         {"fitted", m.fitted ? "yes" : "no"},
         {"measured", measured * scale},
         {"ours", o.feasible ? o.value * scale : 0.0},
         {"error", error},
         {"how", o.how},
         {"source", m.source},
         {"note", o.feasible ? std::string() : "infeasible: " + o.reason}});
  }
  run.table("collective_validation_summary",
            "Median and worst |error| over the collective rows not used to fit a parameter",
            {{"rows", ""}, {"median_abs_error", ""}, {"worst_abs_error", ""}, {"worst_id", ""}});
  if (errors.empty()) return;
  const core::ErrorSummary summary = core::summarize_errors(errors);
  run.add_row("collective_validation_summary", {{"rows", static_cast<std::int64_t>(summary.count)},
                                                {"median_abs_error", summary.median_abs_error},
                                                {"worst_abs_error", summary.worst_error},
                                                {"worst_id", error_ids[summary.worst_index]}});
}

// Every scenario of the study on all its fabrics, with assumption `assumption` applied
// (prefill/sensitivity.h; "as_modelled" changes nothing).
std::vector<prefill::ScenarioStudy> run_scenarios(PrefillRun& run, std::string_view assumption) {
  return run.map(run.spec.scenarios, [&](const std::string& name) {
    prefill::ScenarioSpec s = prefill::load_scenario(name, run.presets);
    if (!run.spec.gpu_counts.empty()) s.gpu_counts = run.spec.gpu_counts;
    if (!run.spec.fixed_plans) s.fixed_plans.clear();
    const model::Transformer m = prefill::load_model(s.model, run.presets);
    std::vector<fabric::Topology> tops;
    for (const auto& f : s.fabrics) tops.push_back(prefill::scenario_topology(f));
    prefill::apply_assumption(assumption, s, tops);
    return prefill::run_study(s, m, tops);
  });
}

// The seed's figures judged again under each assumption of the spec's `sensitivity` list
// (issue 18 part 10): one row per (figure, fabric, assumption), then per figure and fabric
// which assumptions move its verdict away from the one as modelled.
void add_sensitivity(PrefillRun& run, const std::vector<prefill::FigureComparison>& modelled) {
  run.table("sensitivity",
            "The seed's figures under each changed assumption (prefill/sensitivity.h)",
            {{"claim", ""},
             {"fabric", ""},
             {"assumption", ""},
             {"what", ""},
             {"seed_low", ""},
             {"seed_high", ""},
             {"ours_low", ""},
             {"ours_high", ""},
             {"verdict", ""}});
  run.table("sensitivity_summary", "Which assumptions move each verdict (robust: none does)",
            {{"claim", ""}, {"fabric", ""}, {"verdict", ""}, {"robust", ""}, {"moved_by", ""}});
  if (run.spec.sensitivity.empty()) return;
  const auto verdict = [&](const prefill::FigureComparison& f) {
    if (!f.available) return report::Verdict::not_comparable;
    const report::SeedValue seed = f.seed.low == f.seed.high
                                       ? report::SeedValue::point(f.seed.high)
                                       : report::SeedValue::range(f.seed.low, f.seed.high);
    return judge(seed, f.ours_low, f.ours_high, Comparison::relative, run.spec.agreement);
  };
  const auto what = [](std::string_view name) {
    for (const prefill::Assumption& a : prefill::sensitivity_assumptions())
      if (a.name == name) return a.what;
    return std::string();
  };
  std::vector<std::string> names{"as_modelled"};
  names.insert(names.end(), run.spec.sensitivity.begin(), run.spec.sensitivity.end());
  std::vector<std::string> moved(modelled.size());
  ProgressTask progress =
      run.ctx.progress().start("prefill sensitivity: assumptions", run.spec.sensitivity.size());
  for (const std::string& name : names) {
    run.ctx.throw_if_cancelled(fmt::format("prefill study (before assumption '{}')", name));
    std::vector<prefill::FigureComparison> changed;
    if (name == "as_modelled") {
      changed = modelled;
    } else {
      prefill::ScenarioSpec probe;  // checks the name before any scenario runs
      std::vector<fabric::Topology> none;
      prefill::apply_assumption(name, probe, none);
      changed = prefill::compare_with_seed(run_scenarios(run, name), run.seed);
      progress.advance();
    }
    for (std::size_t i = 0; i < changed.size() && i < modelled.size(); ++i) {
      const prefill::FigureComparison& f = changed[i];
      const report::Verdict v = verdict(f);
      if (v != verdict(modelled[i])) moved[i] += (moved[i].empty() ? "" : " ") + name;
      run.add_row("sensitivity",
                  {{"claim", claim_id(f.seed.figure + "_" + f.seed.scenario + "_" + f.fabric)},
                   {"fabric", f.fabric},
                   {"assumption", name},
                   {"what", what(name)},
                   {"seed_low", f.seed.low},
                   {"seed_high", f.seed.high},
                   {"ours_low", f.available ? f.ours_low : 0.0},
                   {"ours_high", f.available ? f.ours_high : 0.0},
                   {"verdict", std::string(report::to_string(v))}});
    }
  }
  progress.finish();
  for (std::size_t i = 0; i < modelled.size(); ++i) {
    const prefill::FigureComparison& f = modelled[i];
    run.add_row("sensitivity_summary",
                {{"claim", claim_id(f.seed.figure + "_" + f.seed.scenario + "_" + f.fabric)},
                 {"fabric", f.fabric},
                 {"verdict", std::string(report::to_string(verdict(f)))},
                 {"robust", moved[i].empty() ? "yes" : "no"},
                 {"moved_by", moved[i]}});
  }
}

void evaluate(PrefillRun& run) {
  const std::vector<prefill::ScenarioStudy> all = run_scenarios(run, "as_modelled");
  const std::vector<prefill::FigureComparison> modelled = prefill::compare_with_seed(all, run.seed);
  for (const auto& c : modelled) add_claim(run, c);
  add_tables(run, all);
  add_validation(run);
  add_collective_validation(run);
  add_sensitivity(run, modelled);
  add_charts(run);
}

}  // namespace

void add_prefill_study(Registry& registry) {
  add_study(registry,
            Definition<PrefillStudySpec, Seed>{
                .name = "prefill",
                .help = "the seed's prefill scenarios on the electrical and photonic fabrics",
                .title = "Prefill latency on the electrical baseline and the photonic pods",
                .spec_section = "SPEC 2.3",
                .reference = "references/prefill_study_seed.yaml",
                .evaluate = evaluate});
}

}  // namespace lightsim::studies
