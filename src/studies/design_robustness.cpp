// The prism_design study's robustness of the front (design_robustness.h).
#include "design_robustness.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "lightsim/kv/generator.h"
#include "lightsim/kv/metrics.h"

namespace lightsim::studies {

void DesignRobustnessSpec::describe(config::Schema<DesignRobustnessSpec>& s) {
  using S = DesignRobustnessSpec;
  s.help(
      "Each front design's recall again at a higher drift and on another calibrated workload "
      "profile (docs/prism.md, \"Robustness of the front\").");
  s.field("profile", &S::profile,
          "another kv_synthetic profile (configs/kv/ name; the search's tokens, layers and "
          "steps kept); \"\" = off");
  s.field("drift_local_sigma", &S::drift_local_sigma,
          "per-ring drift sigma set on every front design (impairments.drift_local_sigma); "
          "0 = off")
      .range("0 pm", "1000 pm");
}

namespace design_detail {
namespace {

struct Figures {
  double recall = 0, mass_recall = 0, ideal_recall = 0, ideal_mass_recall = 0;
};

// The front designs' recalls on `cache` (one kv::evaluate per layout with that projection's
// ideal scorer as setup 0), each design's accelerator from `accelerator_of`.
template <class F>
std::vector<Figures> front_recalls(const kv::KvCache& cache, const prism::DesignResult& r,
                                   F accelerator_of, Context& ctx) {
  std::map<prism::DesignLayout, std::vector<std::size_t>> groups;  // -> positions in r.front
  for (std::size_t p = 0; p < r.front.size(); ++p)
    groups[prism::layout_of(r.all[r.front[p]].variables)].push_back(p);
  std::vector<Figures> out(r.front.size());
  for (const auto& [layout, members] : groups) {
    ctx.throw_if_cancelled("prism design robustness");
    std::vector<std::int64_t> ks;
    std::vector<prism::AcceleratorSpec> accelerators;
    for (std::size_t p : members) {
      ks.push_back(r.all[r.front[p]].variables.top_k);
      accelerators.push_back(accelerator_of(r.all[r.front[p]].variables));
    }
    std::sort(ks.begin(), ks.end());
    ks.erase(std::unique(ks.begin(), ks.end()), ks.end());
    const kv::EvalReport rep =
        prism::score_layout(cache, layout, ks, accelerators, ctx, r.first_step);
    for (std::size_t s = 1; s <= members.size(); ++s) {
      const std::size_t p = members[s - 1];
      const auto ki = static_cast<std::size_t>(
          std::find(ks.begin(), ks.end(), r.all[r.front[p]].variables.top_k) - ks.begin());
      const kv::KMetrics& m = rep.scorers[s].per_k[ki];
      const kv::KMetrics& ideal = rep.scorers[0].per_k[ki];
      out[p] = {m.recall.mean, m.mass_recall.mean, ideal.recall.mean, ideal.mass_recall.mean};
    }
  }
  return out;
}

double metric_of(prism::DesignMetric m, const Figures& f) {
  return m == prism::DesignMetric::mass_recall ? f.mass_recall : f.recall;
}

}  // namespace

kv::KvGeneratorSpec robustness_workload(const DesignStudySpec& spec,
                                        const config::LoadOptions& load) {
  const prism::PrismDesignSpec& ds = spec.design;
  const auto file = config::find_named(spec.robustness.profile, kv::KvGeneratorSpec::preset_dir,
                                       ".yaml", load, "kv profile");
  kv::KvGeneratorSpec w = config::load_spec<kv::KvGeneratorSpec>(file, load);
  w.tokens = ds.workload.tokens;
  w.layers = ds.workload.layers;
  w.steps = ds.workload.steps;
  return w;
}

void add_robustness(RunBase& run, const DesignStudySpec& spec, const prism::DesignResult& r) {
  const DesignRobustnessSpec& rb = spec.robustness;
  const bool drift = rb.drift_local_sigma.si() > 0, profile = !rb.profile.empty();
  if ((!drift && !profile) || r.front.empty()) return;
  const prism::PrismDesignSpec& ds = spec.design;
  const prism::DesignMetric metric = r.target.metric;
  std::vector<Figures> at_drift(r.front.size()), on_profile(r.front.size());
  if (drift) {
    run.ctx.log().info("prism design: the front at drift {} pm", rb.drift_local_sigma.si() * 1e12);
    at_drift = front_recalls(
        *r.cache, r,
        [&](const prism::DesignVariables& v) {
          prism::AcceleratorSpec a = prism::design_accelerator(ds, v);
          a.impairments.drift_local_sigma = rb.drift_local_sigma;
          return a;
        },
        run.ctx);
  }
  std::string profile_name = "-";
  if (profile) {
    prism::PrismDesignSpec other = ds;
    other.workload = robustness_workload(spec, run.presets);
    profile_name = other.workload.model;
    run.ctx.log().info("prism design: the front on profile {}", rb.profile);
    const kv::KvCache cache = kv::generate_kv_cache(other.workload, run.ctx);
    on_profile = front_recalls(
        cache, r,
        [&](const prism::DesignVariables& v) { return prism::design_accelerator(other, v); },
        run.ctx);
  }
  const std::string mname = prism::to_string(metric);
  run.table("robustness",
            fmt::format("Each front design's {} as searched, at a per-ring drift of {:.3g} pm, "
                        "and on profile {}",
                        mname, rb.drift_local_sigma.si() * 1e12, profile ? rb.profile : "-"),
            {{"index", ""},
             {"energy_nj", "nJ"},
             {"searched", ""},
             {"at_drift", ""},
             {"on_profile", ""},
             {"profile_ideal", ""},
             {"drift_drop", ""},
             {"profile_drop", ""}});
  for (std::size_t p = 0; p < r.front.size(); ++p) {
    const prism::DesignCandidate& c = r.all[r.front[p]];
    const double base =
        metric == prism::DesignMetric::mass_recall ? c.figures->mass_recall : c.figures->recall;
    const double dr = drift ? metric_of(metric, at_drift[p]) : base;
    const double pr = profile ? metric_of(metric, on_profile[p]) : base;
    const double pi =
        profile ? (metric == prism::DesignMetric::mass_recall ? on_profile[p].ideal_mass_recall
                                                              : on_profile[p].ideal_recall)
                : 0.0;
    run.add_row("robustness", {{"index", static_cast<std::int64_t>(c.index)},
                               {"energy_nj", c.figures->energy_per_query * 1e9},
                               {"searched", base},
                               {"at_drift", dr},
                               {"on_profile", pr},
                               {"profile_ideal", pi},
                               {"drift_drop", base - dr},
                               {"profile_drop", base - pr}});
  }
  Chart chart{.title = fmt::format("Robustness of the front: {} as searched, at drift, on {}",
                                   mname, profile ? rb.profile : "-"),
              .table = "robustness",
              .mark = Mark::line_points,
              .fold = {"searched", "at_drift", "on_profile"},
              .fold_as = {"condition", "value"}};
  chart.x = Channel{.field = "energy_nj",
                    .type = "quantitative",
                    .title = "energy per query (nJ)",
                    .scale = {.zero = false, .type = "log"}};
  chart.y = Channel{.field = "value", .type = "quantitative", .title = mname};
  chart.color = Channel{.field = "condition", .type = "nominal"};
  chart.tooltip = {tip("index"), tip("condition"), tip("value", ".4f"), tip("energy_nj", ".4g")};
  run.chart(chart);
}

}  // namespace design_detail
}  // namespace lightsim::studies
