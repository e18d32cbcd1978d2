// Study `prefill`: the seed's prefill scenarios on the electrical baseline and the photonic
// pods (prefill::run_study), every figure of configs/references/prefill_study_seed.yaml beside
// ours (prefill::compare_with_seed), the per-point latency breakdown and the speedups
// (docs/studies.md, "prefill"; the model: docs/prefill.md).
#include <algorithm>

#include "lightsim/prefill/scenario.h"
#include "lightsim/prefill/study.h"
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
          "scenarios of configs/references/prefill_measured.yaml to validate the copper model "
          "against (their published measurement beside our figure; not seed claims)");
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

double ms(double s) {
  return s * 1e3;
}

// The verdict of one comparison: our range against the seed's, widened by `band`.
void judge(report::Claim& c, const prefill::FigureComparison& f, double band) {
  const double lo = f.seed.low * (1 - band), hi = f.seed.high * (1 + band);
  const std::string ours = f.ours_low == f.ours_high
                               ? fmt::format("{:.3g}", f.ours_high)
                               : fmt::format("{:.3g}-{:.3g}", f.ours_low, f.ours_high);
  const std::string why =
      "docs/prefill.md, \"The seed's study\" (why we deviate) gives the reasons";
  if (f.ours_high >= lo && f.ours_low <= hi) {
    if (f.ours_low >= lo && f.ours_high <= hi) {
      c.verdict = report::Verdict::holds;
      c.explanation = fmt::format("ours {} ({}) on {}", ours, f.how, f.fabric);
    } else {
      c.verdict = report::Verdict::holds_under_conditions;
      c.conditions = fmt::format("on {}, for part of our range only: ours span {} ({})", f.fabric,
                                 ours, f.how);
      c.explanation = why;
    }
    return;
  }
  c.verdict = report::Verdict::does_not_hold;
  c.explanation = fmt::format("ours {} ({}) on {} lies {} the seed's figure; {}", ours, f.how,
                              f.fabric, f.ours_high < lo ? "below" : "above", why);
}

void add_tables(report::StudyResult& r, const std::vector<prefill::ScenarioStudy>& all) {
  Table points({{"scenario", ""},
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
  for (const auto& s : all)
    for (const auto& p : s.points)
      for (std::size_t f = 0; f < p.per_fabric.size(); ++f) {
        const prefill::Result& b = p.per_fabric[f].best;
        const bool ok = b.feasible;
        points.add_row({s.scenario.name, p.gpus, s.topologies[f].name, ok,
                        ok ? prefill::format_plan(b.plan) : std::string("-"),
                        ok ? ms(b.latency_s) : 0.0, ok ? ms(b.ttft_s) : 0.0,
                        ok ? b.tokens_per_s_per_gpu : 0.0, ok ? b.mfu : 0.0,
                        ok ? b.exposed_total() / b.latency_s : 0.0, p.speedup[f],
                        ok ? std::string() : b.reason});
      }
  // Latency = compute on the critical path + exposed communication + the rest (pipeline
  // fill and what the step model adds beyond the two), so the three stack to the latency.
  Table parts({{"scenario", ""}, {"gpus", ""}, {"fabric", ""}, {"component", ""}, {"time", "ms"}});
  for (const auto& s : all)
    for (const auto& p : s.points)
      for (std::size_t f = 0; f < p.per_fabric.size(); ++f) {
        const prefill::Result& b = p.per_fabric[f].best;
        if (!b.feasible) continue;
        const double compute = b.compute_total(), comm = b.exposed_total();
        const std::string& fabric = s.topologies[f].name;
        parts.add_row({s.scenario.name, p.gpus, fabric, std::string("compute"), ms(compute)});
        parts.add_row({s.scenario.name, p.gpus, fabric, std::string("communication"), ms(comm)});
        parts.add_row({s.scenario.name, p.gpus, fabric, std::string("other"),
                       ms(b.latency_s - compute - comm)});
      }
  Table fixed({{"scenario", ""},
               {"plan", ""},
               {"gpus", ""},
               {"fabric", ""},
               {"feasible", ""},
               {"latency", "ms"},
               {"exposed_share", ""},
               {"speedup", ""},
               {"note", ""}});
  for (const auto& s : all)
    for (const auto& p : s.fixed)
      for (std::size_t f = 0; f < p.per_fabric.size(); ++f) {
        const prefill::Result& b = p.per_fabric[f];
        const bool ok = b.feasible;
        fixed.add_row({s.scenario.name, p.plan, p.gpus, s.topologies[f].name, ok,
                       ok ? ms(b.latency_s) : 0.0, ok ? b.exposed_total() / b.latency_s : 0.0,
                       p.speedup[f], ok ? std::string() : b.reason});
      }
  r.tables.push_back({"points", "Best plan per scenario, fabric and GPU count", std::move(points)});
  r.tables.push_back({"breakdown", "Latency breakdown of the best plans", std::move(parts)});
  r.tables.push_back({"fixed_plans", "Fixed communication-limited plans", std::move(fixed)});
}

void add_charts(report::StudyResult& r) {
  r.add_chart(
      "Prefill latency vs GPU count, best plan per fabric (compute / exposed "
      "communication / other stacked)",
      "breakdown", Json::parse(R"json({
    "mark": "bar",
    "encoding": {
      "x": {"field": "fabric", "type": "nominal", "title": null, "axis": {"labels": false}},
      "y": {"field": "time", "type": "quantitative", "title": "latency (ms)", "stack": "zero"},
      "color": {"field": "component", "type": "nominal"},
      "column": {"field": "gpus", "type": "ordinal", "title": "GPUs"},
      "row": {"field": "scenario", "type": "nominal", "title": null},
      "tooltip": [{"field": "fabric"}, {"field": "gpus"}, {"field": "component"},
                  {"field": "time", "format": ".1f"}]
    },
    "resolve": {"scale": {"y": "independent"}}
  })json"));
  r.add_chart("Photonic speedup over the electrical baseline vs GPU count (best plans)", "points",
              Json::parse(R"json({
    "transform": [{"filter": "datum.feasible"}],
    "mark": {"type": "line", "point": true},
    "encoding": {
      "x": {"field": "gpus", "type": "quantitative", "scale": {"type": "log", "base": 2},
            "title": "GPUs"},
      "y": {"field": "speedup", "type": "quantitative", "title": "speedup (baseline / fabric)"},
      "color": {"field": "fabric", "type": "nominal"},
      "strokeDash": {"field": "scenario", "type": "nominal"},
      "tooltip": [{"field": "scenario"}, {"field": "fabric"}, {"field": "gpus"},
                  {"field": "plan"}, {"field": "speedup", "format": ".2f"}]
    }
  })json"));
}

// The copper model against published measurements of deployed systems: each measurement's
// scenario at its GPU count with its deployed plan on the scenario's first fabric.
void add_validation(report::StudyResult& r, const std::vector<std::string>& scenarios,
                    const config::LoadOptions& load, Context& ctx) {
  if (scenarios.empty()) return;
  const prefill::MeasurementReference ref = prefill::load_measurements(load);
  Table& t = r.add_table("validation",
                         "Validation of the copper model against published measurements (not "
                         "seed claims)",
                         {{"scenario", ""},
                          {"fabric", ""},
                          {"gpus", ""},
                          {"plan", ""},
                          {"measured_tokens_per_s_per_gpu", "1/s"},
                          {"ours_tokens_per_s_per_gpu", "1/s"},
                          {"error", ""},
                          {"compute_share", ""},
                          {"exposed_share", ""},
                          {"source", ""},
                          {"note", ""}});
  for (const std::string& name : scenarios) {
    ctx.throw_if_cancelled(fmt::format("prefill study (before validation '{}')", name));
    const auto it = std::find_if(ref.measurements.begin(), ref.measurements.end(),
                                 [&](const prefill::Measurement& m) { return m.scenario == name; });
    LIGHTSIM_CHECK_AS(ConfigError, it != ref.measurements.end(),
                      "prefill_study: validations: '{}' has no measurement in "
                      "configs/references/prefill_measured.yaml",
                      name);
    prefill::ScenarioSpec s = prefill::load_scenario(it->scenario, load);
    s.gpu_counts = {it->gpus};
    s.fixed_plans = {it->plan};
    s.fabrics.resize(1);  // the deployed system's fabric
    const model::Transformer m = prefill::load_model(s.model, load);
    fabric::Topology top = fabric::build_topology(fabric::load_fabric(s.fabrics[0], load));
    top.name = s.fabrics[0];
    const prefill::ScenarioStudy study = prefill::run_study(s, m, {top});
    const prefill::Result& b = study.fixed.at(0).per_fabric.at(0);
    const bool ok = b.feasible;  // an infeasible deployed plan is a result, with its reason
    t.add_row({name, top.name, it->gpus, it->plan, it->tokens_per_s_per_gpu,
               ok ? b.tokens_per_s_per_gpu : 0.0,
               ok ? b.tokens_per_s_per_gpu / it->tokens_per_s_per_gpu - 1 : 0.0,
               ok ? b.compute_total() / b.latency_s : 0.0,
               ok ? b.exposed_total() / b.latency_s : 0.0, it->source,
               ok ? std::string() : "infeasible: " + b.reason});
  }
}

}  // namespace

report::StudyResult run_prefill_study(const StudyInput& in, Context& ctx) {
  const auto spec = config::read_spec<PrefillStudySpec>(in.document, in.load);
  config::LoadOptions plain = in.load;  // --set applies to the study's config only
  plain.assignments.clear();
  report::StudyResult r;
  r.study = in.name;
  r.title = "Prefill latency on the electrical baseline and the photonic pods";
  r.spec_section = "SPEC 2.3";
  r.seed = ctx.seed();
  r.config = config::to_yaml(in.document);

  std::vector<prefill::ScenarioStudy> all;
  ProgressTask progress = ctx.progress().start("prefill", spec.scenarios.size());
  for (const std::string& name : spec.scenarios) {
    ctx.throw_if_cancelled(fmt::format("prefill study (before scenario '{}')", name));
    prefill::ScenarioSpec s = prefill::load_scenario(name, plain);
    if (!spec.gpu_counts.empty()) s.gpu_counts = spec.gpu_counts;
    if (!spec.fixed_plans) s.fixed_plans.clear();
    const model::Transformer m = prefill::load_model(s.model, plain);
    std::vector<fabric::Topology> tops;
    for (const auto& f : s.fabrics) {
      tops.push_back(fabric::build_topology(fabric::load_fabric(f, plain)));
      tops.back().name = f;
    }
    all.push_back(prefill::run_study(s, m, tops));
    progress.advance();
  }
  progress.finish();

  for (const auto& c : prefill::compare_with_seed(all, prefill::load_study_seed(plain))) {
    const bool speedup = c.seed.figure.rfind("speedup", 0) == 0;
    report::Claim& claim =
        r.add_claim(claim_id(c.seed.figure + "_" + c.seed.scenario + "_" + c.fabric),
                    fmt::format("{} [{}]", c.seed.text, c.fabric), speedup ? "" : "1/s");
    claim.seed_value = c.seed.low == c.seed.high
                           ? report::SeedValue::point(c.seed.high)
                           : report::SeedValue::range(c.seed.low, c.seed.high);
    if (!c.available) {
      claim.explanation = "the scenarios run hold no such figure (see the study's config)";
      continue;
    }
    claim.ours = c.ours_high;
    judge(claim, c, spec.agreement);
  }
  add_tables(r, all);
  add_validation(r, spec.validations, plain, ctx);
  add_charts(r);
  return r;
}

}  // namespace lightsim::studies
