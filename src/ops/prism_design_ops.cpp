// prism_design: the Prism design-space search (prism/design.h; docs/prism.md, "Design-space
// search"): the Pareto front and the cheapest feasible design meeting the recall target, or "no
// feasible design" with the binding constraint.
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include <cmath>
#include <ostream>

#include "lightsim/core/config_files.h"
#include "lightsim/kv/generator.h"
#include "lightsim/kv/metrics.h"
#include "lightsim/ops/operation.h"
#include "lightsim/ops/register.h"
#include "lightsim/prism/design.h"

namespace lightsim::ops {

struct PrismDesignRequest {
  static constexpr std::string_view kind = "prism_design_request";
  std::string design{};
  static void describe(config::Schema<PrismDesignRequest>& s) {
    s.help("Request of prism design: one design search (kind prism_design).");
    s.field("design", &PrismDesignRequest::design,
            "design search name (configs/prism_designs/) or YAML file")
        .required();
  }
};

namespace {

struct DesignOpResult {
  std::string name{};
  prism::DesignResult result{};
};

DesignOpResult evaluate_design(const PrismDesignRequest& q, Env& env) {
  const prism::PrismDesignSpec spec = config::load_spec<prism::PrismDesignSpec>(
      config::find_named(q.design, prism::PrismDesignSpec::preset_dir, env.load, "prism design"),
      env.load);
  env.inputs_read();
  // The workload's cache at its longest context (the caches are generated one at a time and
  // the workload's own is kept: at most two at once), refused before the search starts.
  const kv::KvGeneratorSpec longest = prism::longest_design_workload(spec);
  kv::require_generator_memory(longest, env.ctx.memory_budget(), env.ctx.threads(),
                               kv::evaluation_thread_bytes(kv::generated_geometry(longest)));
  return {q.design, prism::search_designs(spec, env.ctx)};
}

Json design_json(const DesignOpResult& r) {
  Json j = prism::to_json(r.result);
  j["design"] = r.name;
  return j;
}

std::string variables_text(const prism::DesignVariables& v) {
  return fmt::format(
      "R {:.3g} um, Q {:.3g}, {:.3g} nm x d {}, {:+.1f} dBm/line, {} rows x {} chip(s), {}, {} "
      "bit, lock {:.3g} pm, {}, {}, B {}, k {}",
      v.ring_radius * 1e6, v.q_loaded, v.channel_spacing * 1e9, v.dim,
      10 * std::log10(v.laser_power / 1e-3), v.rows, v.chips,
      v.detection == photonics::DetectionMode::balanced ? "balanced PD" : "single-ended PD",
      v.weight_bits, v.lock_precision * 1e12, prism::to_string(v.query_encoding), v.projection,
      v.block_tokens, v.top_k);
}

void print_figures_header(std::ostream& out) {
  fmt::print(out, "  {:>6} {:>7} {:>7} {:>7} {:>10} {:>11} {:>9} {:>9}  {}\n", "#", "recall",
             "mass", "ideal", "nJ/query", "us/step", "static W", "mm^2", "design");
}

void print_figures(const prism::DesignCandidate& c, std::ostream& out) {
  const prism::DesignFigures& f = *c.figures;
  fmt::print(out, "  {:>6} {:>7.4f} {:>7.4f} {:>7.4f} {:>10.4g} {:>11.4g} {:>9.4g} {:>9.4g}  {}\n",
             c.index, f.recall, f.mass_recall, f.ideal_mass_recall, f.energy_per_query * 1e9,
             f.latency_per_step * 1e6, f.static_power, f.area * 1e6, variables_text(c.variables));
}

void print_design(const DesignOpResult& o, std::ostream& out) {
  const prism::DesignResult& r = o.result;
  fmt::print(out,
             "Prism design search {}: {} candidates ({} devices) at {} tokens; target {} >= "
             "{:.4g}, cheapest by {}\n",
             o.name, r.candidates, r.devices, r.context, prism::to_string(r.target.metric),
             r.target.recall, prism::to_string(r.target.cheapest_by));
  if (r.contexts.size() > 1)
    fmt::print(out,
               "  contexts {} tokens: each design judged by its worst (lowest recall, highest "
               "cost)\n",
               fmt::join(r.contexts, ", "));
  if (r.first_step > 0)
    fmt::print(out, "  recall scored on decode steps {} on (the earlier ones train qat)\n",
               r.first_step);
  fmt::print(out, "  feasible {} ({} distinct recall tuples scored)\n", r.feasible,
             r.scored_tuples);
  fmt::print(out, "  removed by (first failed constraint)  failed (of those checked)\n");
  for (const prism::ConstraintCount& c : r.removal)
    fmt::print(out, "    {:<16} {:>10} {:>10}\n", c.name, c.removed, c.failed);
  if (r.best) {
    const prism::DesignCandidate& b = r.all[*r.best];
    fmt::print(out, "\nCheapest feasible design meeting the target:\n");
    print_figures_header(out);
    print_figures(b, out);
    fmt::print(out, "  of its static power, the bias lock's relocks: {:.4g} W\n",
               b.figures->lock_power);
    if (b.figures->by_context.size() > 1)
      for (const prism::DesignContextFigures& t : b.figures->by_context)
        fmt::print(out,
                   "  at {:>8} tokens: recall {:.4f}, mass {:.4f} (ideal {:.4f}), {:.4g} "
                   "nJ/query, {:.4g} us/step, {} pass(es)\n",
                   t.tokens, t.recall, t.mass_recall, t.ideal_mass_recall, t.energy_per_query * 1e9,
                   t.latency_per_step * 1e6, t.passes);
    fmt::print(out, "  margins to each limit:\n");
    for (const prism::DesignConstraint& k : b.constraints)
      fmt::print(out, "    {:<16} {:>+12.4g} {:<5} ({:.4g} {} {} {:.4g} {})\n", k.name, k.margin,
                 k.unit, k.value, k.unit, k.sense == "at_least" ? ">=" : "<=", k.limit, k.unit);
  } else {
    fmt::print(out, "\nNo feasible design meets the target. Binding constraint: {}\n  {}\n",
               r.binding, r.binding_reason);
  }
  if (!r.front.empty()) {
    fmt::print(out,
               "\nPareto front ({} designs; recall, energy, latency, static power, area; ideal = "
               "the mass recall of the same projection scored exactly):\n",
               r.front.size());
    print_figures_header(out);
    for (std::size_t i : r.front) print_figures(r.all[i], out);
  }
}

}  // namespace

void register_prism_design_ops(Registry& registry) {
  add<PrismDesignRequest, DesignOpResult>(
      registry, {.info = {.name = "prism_design",
                          .command = {"prism", "design"},
                          .help = "Design-space search: feasibility, Pareto front, cheapest design "
                                  "meeting a recall target",
                          .positional = {"design"}},
                 .evaluate = evaluate_design,
                 .to_json = design_json,
                 .print = print_design});
}

}  // namespace lightsim::ops
