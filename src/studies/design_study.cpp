// The `prism_design` study (include/lightsim/studies/design.h; docs/studies.md).
#include "lightsim/studies/design.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "design_baselines.h"
#include "design_robustness.h"
#include "lightsim/core/error.h"
#include "lightsim/kv/scorer_specs.h"
#include "lightsim/studies/runner.h"
#include "support.h"

namespace lightsim::studies {

void DesignStudySpec::describe(config::Schema<DesignStudySpec>& s) {
  s.help(
      "The Prism design-space search as a study: the Pareto front (recall, energy, latency, "
      "static power, area) and the cheapest feasible design meeting the recall target.");
  s.field("description", &DesignStudySpec::description, "what this configuration is");
  s.field("design", &DesignStudySpec::design,
          "the design search (kind prism_design; `preset: NAME` from configs/prism_designs)");
  s.field("baselines", &DesignStudySpec::baselines,
          "the GPU's own selectors compared with the front at equal recall (empty gpus: none)");
  s.field("robustness", &DesignStudySpec::robustness,
          "each front design's recall at a higher drift and on another workload profile");
  // The FAISS baseline's options whose ranges depend on the workload's cache: the kv
  // scorer's own check (kv select's), before anything is generated.
  s.rule([](const DesignStudySpec& v) -> std::optional<std::string> {
    const DesignBaselinesSpec& b = v.baselines;
    if (b.gpus.empty() || b.batches.empty() ||
        std::find(b.selectors.begin(), b.selectors.end(), "faiss_ivfpq") == b.selectors.end())
      return std::nullopt;
    const kv::KvGeneratorSpec& w = v.design.workload;
    try {
      kv::check_faiss_ivfpq(b.faiss, kv::OptionSources::spec_keys("baselines.faiss."),
                            {.tokens = static_cast<std::size_t>(w.tokens),
                             .head_dim = static_cast<std::size_t>(w.head_dim)});
    } catch (const InputError& e) {
      return fmt::format("{} (design.workload: {} tokens, head_dim {})", e.what(), w.tokens,
                         w.head_dim);
    }
    return std::nullopt;
  });
}

namespace {

using DesignRun = Run<DesignStudySpec, NoReference>;

void add_candidate_row(DesignRun& run, const std::string& table, const prism::DesignCandidate& c,
                       bool best) {
  const prism::DesignFigures& f = *c.figures;
  const prism::DesignVariables& v = c.variables;
  run.add_row(table, {{"index", static_cast<std::int64_t>(c.index)},
                      {"best", best},
                      {"recall", f.recall},
                      {"mass_recall", f.mass_recall},
                      {"ideal_recall", f.ideal_recall},
                      {"ideal_mass_recall", f.ideal_mass_recall},
                      {"energy_nj", f.energy_per_query * 1e9},
                      {"latency_us", f.latency_per_step * 1e6},
                      {"static_w", f.static_power},
                      {"lock_uw", f.lock_power * 1e6},
                      {"area_mm2", f.area * 1e6},
                      {"ring_radius_um", v.ring_radius * 1e6},
                      {"q_loaded", v.q_loaded},
                      {"spacing_nm", v.channel_spacing * 1e9},
                      {"dim", static_cast<std::int64_t>(v.dim)},
                      {"laser_dbm", 10 * std::log10(v.laser_power / 1e-3)},
                      {"rows", static_cast<std::int64_t>(v.rows)},
                      {"detection", std::string(v.detection == photonics::DetectionMode::balanced
                                                    ? "balanced"
                                                    : "single_ended")},
                      {"weight_bits", static_cast<std::int64_t>(v.weight_bits)},
                      {"lock_pm", v.lock_precision * 1e12},
                      {"chips", static_cast<std::int64_t>(v.chips)},
                      {"query_encoding", prism::to_string(v.query_encoding)},
                      {"projection", v.projection},
                      {"block_tokens", static_cast<std::int64_t>(v.block_tokens)},
                      {"top_k", static_cast<std::int64_t>(v.top_k)}});
}

void evaluate(DesignRun& run) {
  const prism::DesignResult r = prism::search_designs(run.spec.design, run.ctx);
  const std::string metric = prism::to_string(r.target.metric);
  run.table("front",
            fmt::format("Pareto front of {} candidates at {} tokens ({} feasible)", r.candidates,
                        r.context, r.feasible),
            {{"index", ""},          {"best", ""},         {"recall", ""},
             {"mass_recall", ""},    {"ideal_recall", ""}, {"ideal_mass_recall", ""},
             {"energy_nj", "nJ"},    {"latency_us", "us"}, {"static_w", "W"},
             {"lock_uw", "uW"},      {"area_mm2", "mm^2"}, {"ring_radius_um", "um"},
             {"q_loaded", ""},       {"spacing_nm", "nm"}, {"dim", ""},
             {"laser_dbm", "dBm"},   {"rows", ""},         {"detection", ""},
             {"weight_bits", "bit"}, {"lock_pm", "pm"},    {"chips", ""},
             {"query_encoding", ""}, {"projection", ""},   {"block_tokens", ""},
             {"top_k", ""}});
  for (std::size_t i : r.front) add_candidate_row(run, "front", r.all[i], r.best == i);
  run.table("removal", "Candidates removed by each constraint (first failure in the check order)",
            {{"constraint", ""}, {"removed", ""}, {"failed", ""}});
  for (const prism::ConstraintCount& c : r.removal)
    run.add_row("removal", {{"constraint", c.name},
                            {"removed", static_cast<std::int64_t>(c.removed)},
                            {"failed", static_cast<std::int64_t>(c.failed)}});

  report::Claim& c =
      run.qualitative("design_meets_target",
                      fmt::format("a feasible Prism design reaches {} >= {:.3g} at {} tokens",
                                  metric, r.target.recall, r.context));
  if (r.best) {
    const prism::DesignCandidate& b = r.all[*r.best];
    c.verdict = report::Verdict::holds;
    c.explanation = fmt::format(
        "Cheapest by {}: candidate {} ({} = {:.4f}, {:.4g} nJ per query, {:.4g} us per decode "
        "step, {:.4g} W static, {:.4g} mm^2); {} of {} candidates are feasible.",
        prism::to_string(r.target.cheapest_by), b.index, metric,
        metric == "recall" ? b.figures->recall : b.figures->mass_recall,
        b.figures->energy_per_query * 1e9, b.figures->latency_per_step * 1e6,
        b.figures->static_power, b.figures->area * 1e6, r.feasible, r.candidates);
  } else {
    c.verdict = report::Verdict::does_not_hold;
    c.explanation = fmt::format("No feasible design meets the target; binding constraint {}: {}.",
                                r.binding, r.binding_reason);
  }

  Chart chart{.title = fmt::format("Pareto front: {} versus energy per query", metric),
              .table = "front",
              .mark = Mark::line_points};
  chart.x = Channel{.field = "energy_nj",
                    .type = "quantitative",
                    .title = "energy per query (nJ)",
                    .scale = {.zero = false, .type = "log"}};
  chart.y = Channel{.field = metric, .type = "quantitative", .title = metric};
  chart.color = Channel{.field = "query_encoding", .type = "nominal"};
  chart.tooltip = {tip("index"),
                   tip(metric, ".4f"),
                   tip("energy_nj", ".4g"),
                   tip("latency_us", ".4g"),
                   tip("static_w", ".4g"),
                   tip("lock_uw", ".3g"),
                   tip("area_mm2", ".4g"),
                   tip("dim"),
                   tip("projection"),
                   tip("weight_bits"),
                   tip("q_loaded"),
                   tip("chips"),
                   tip("rows")};
  run.chart(chart);
  design_detail::add_robustness(run, run.spec, r);
  design_detail::add_gpu_baselines(run, run.spec, r);
}

}  // namespace

void add_design_study(Registry& registry) {
  add_study(registry,
            Definition<DesignStudySpec>{
                .name = "prism_design",
                .help = "Prism design-space search: feasibility, Pareto front, "
                        "cheapest design meeting a recall target (issue 23)",
                .title = "Is there a Prism design worth building? The design search",
                .evaluate = evaluate,
                // The cache the search and the GPU baselines score on.
                .require_memory = [](const DesignStudySpec& s, std::uint64_t budget,
                                     std::size_t threads, const config::LoadOptions& load) {
                  const kv::KvGeneratorSpec w = prism::longest_design_workload(s.design);
                  support::require_cache_memory(w, budget, "design.workload", threads);
                  // The other profile's cache is generated while the search's is
                  // held (design_robustness.cpp): both at once.
                  if (!s.robustness.profile.empty())
                    support::require_cache_memory(
                        design_detail::robustness_workload(s, load), budget, "robustness.profile",
                        threads, kv::generated_geometry(s.design.workload).array_bytes());
                }});
}

}  // namespace lightsim::studies
