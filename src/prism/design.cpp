// The design-space search (design.h; docs/prism.md, "Design-space search").
#include "lightsim/prism/design.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>

#include "lightsim/core/error.h"
#include "lightsim/core/parallel.h"
#include "lightsim/kv/metrics.h"
#include "lightsim/kv/scorer_specs.h"
#include "lightsim/photonics/feasibility.h"
#include "lightsim/prism/cost.h"
#include "lightsim/prism/die.h"
#include "lightsim/prism/lock_power.h"
#include "lightsim/prism/qat.h"
#include "lightsim/prism/scorer.h"

namespace lightsim::prism {
namespace {

// The check order: device checks (photonics::check_feasibility's order), then the die, the TEC
// steady state and the heater lock range of the cost model.
const std::array<const char*, 11> kConstraints = {
    "ring",        "aliasing", "crosstalk", "weight_range", "tuning_range", "thermal_budget",
    "link_budget", "reticle",  "tec",       "lock_range",   "lock"};

// The share of the workload's decode steps a "qat" projection trains on (the rest are scored).
constexpr double kQatTrainFraction = 0.5;

constexpr std::size_t kDeviceAxes = 7;
constexpr std::size_t kAxes = 14;

// Axis values resolved against the base accelerator (an empty list = the base's value).
struct Axes {
  std::vector<double> radius, q, spacing;
  std::vector<int> dim;
  std::vector<double> laser;
  std::vector<int> rows;
  std::vector<photonics::DetectionMode> detection;
  std::vector<int> bits;
  std::vector<double> lock;
  std::vector<int> chips;
  std::vector<QueryEncoding> encoding;
  std::vector<std::string> projection;
  std::vector<int> block, k;

  // Sizes in enumeration order (the first kDeviceAxes are the device axes).
  std::array<std::size_t, kAxes> sizes() const {
    return {radius.size(),   q.size(),          spacing.size(), dim.size(),  laser.size(),
            rows.size(),     detection.size(),  bits.size(),    lock.size(), chips.size(),
            encoding.size(), projection.size(), block.size(),   k.size()};
  }
};

template <class T, class U>
std::vector<T> or_base(const std::vector<U>& list, T base) {
  if (list.empty()) return {base};
  std::vector<T> out;
  for (const U& u : list) {
    if constexpr (std::is_arithmetic_v<U>)
      out.push_back(static_cast<T>(u));
    else
      out.push_back(static_cast<T>(u.si()));
  }
  return out;
}

Axes resolve_axes(const PrismDesignSpec& spec) {
  const AcceleratorSpec& a = spec.accelerator;
  const DesignSpaceSpec& s = spec.space;
  const double q = a.device.ring.q_loaded.value_or(ring_of(a.device).q_loaded());
  Axes x;
  x.radius = or_base<double>(s.ring_radius, a.device.ring.radius.si());
  x.q = or_base<double>(s.q_loaded, q);
  x.spacing = or_base<double>(s.channel_spacing, a.device.grid.spacing.si());
  x.dim = or_base<int>(s.dim, a.device.grid.channels);
  x.laser = or_base<double>(s.laser_power, a.device.laser.power_per_line.si());
  x.rows = or_base<int>(s.rows, a.device.bank.rows);
  if (s.detection.empty()) x.detection = {a.device.detector.mode};
  for (const std::string& e : s.detection)
    x.detection.push_back(e == "single_ended" ? photonics::DetectionMode::single_ended
                                              : photonics::DetectionMode::balanced);
  x.bits = or_base<int>(s.weight_bits, a.programming.weight_bits);
  x.lock = or_base<double>(s.lock_precision, a.impairments.calibration_residual.si());
  x.chips = or_base<int>(s.chips, a.interposer.chips);
  if (s.query_encoding.empty()) x.encoding = {a.electronics.query_encoding};
  for (const std::string& e : s.query_encoding)
    x.encoding.push_back(e == "balanced" ? QueryEncoding::balanced : QueryEncoding::intensity);
  x.projection = s.projection.empty() ? std::vector<std::string>{spec.projection} : s.projection;
  x.block = or_base<int>(s.block_tokens, a.programming.block_tokens);
  x.k = or_base<int>(s.top_k, a.selection.top_k);
  return x;
}

// Mixed-radix digits of candidate i, the last axis fastest.
std::array<std::size_t, kAxes> digits(std::size_t i, const std::array<std::size_t, kAxes>& sizes) {
  std::array<std::size_t, kAxes> d{};
  for (std::size_t a = sizes.size(); a-- > 0;) {
    d[a] = i % sizes[a];
    i /= sizes[a];
  }
  return d;
}

DesignVariables variables_at(const Axes& x, const std::array<std::size_t, kAxes>& d) {
  return {.ring_radius = x.radius[d[0]],
          .q_loaded = x.q[d[1]],
          .channel_spacing = x.spacing[d[2]],
          .dim = x.dim[d[3]],
          .laser_power = x.laser[d[4]],
          .rows = x.rows[d[5]],
          .detection = x.detection[d[6]],
          .weight_bits = x.bits[d[7]],
          .lock_precision = x.lock[d[8]],
          .chips = x.chips[d[9]],
          .query_encoding = x.encoding[d[10]],
          .projection = x.projection[d[11]],
          .block_tokens = x.block[d[12]],
          .top_k = x.k[d[13]]};
}

DesignConstraint constraint(std::string name, bool passed, double value, double limit,
                            std::string unit, std::string message) {
  DesignConstraint c{.name = std::move(name),
                     .passed = passed,
                     .value = value,
                     .limit = limit,
                     .unit = std::move(unit),
                     .message = std::move(message)};
  // weight_range's check reports (requested, reachable): the requested must be at most the
  // reachable, so its sense is at_most like the others; link_budget's ENOB must reach the target.
  const bool up = c.name == "link_budget";
  c.sense = up ? "at_least" : "at_most";
  c.margin = up ? value - limit : limit - value;
  return c;
}

// A ring the spec cannot realise (e.g. a Q its couplers cannot reach) is the `ring`
// constraint, with the solver's message; the other checks need a ring and are not run.
std::vector<DesignConstraint> device_constraints(const AcceleratorSpec& a) {
  photonics::FeasibilityReport r;
  try {
    r = photonics::check_feasibility(a.device, a.calibration.heater_bias);
  } catch (const Error& e) {
    DesignConstraint c = constraint("ring", false, 0, 0, "", e.what());
    c.margin = -std::numeric_limits<double>::infinity();
    return {c};
  }
  std::vector<DesignConstraint> out;
  for (const photonics::FeasibilityCheck& c : r.checks)
    out.push_back(constraint(c.name, c.passed, c.value, c.limit, c.unit, c.message));
  return out;
}

// The die, TEC and lock-range constraints of the cost model, and the lock's search
// (lock_power.h: the binary search reaches the target within calibration.max_iterations).
std::vector<DesignConstraint> system_constraints(const AcceleratorSpec& a, const CostReport& r,
                                                 const LockPower& lp) {
  const DieReport die = die_report(a, r.area_total);
  std::vector<DesignConstraint> out;
  out.push_back(constraint("reticle", die.fits, die.die_area * 1e6, die.reticle_limit * 1e6, "mm^2",
                           die.fits ? fmt::format("a die of {:.1f} mm^2 per chip fits the {:.0f} "
                                                  "mm^2 field",
                                                  die.die_area * 1e6, die.reticle_limit * 1e6)
                                    : die.reason));
  // The TEC and the tuning it holds against the thermal budget. requirements.thermal_budget
  // is the static power allowed per device, i.e. one bank of rows x channels on one chip
  // (photonics::thermal_check counts it so, with the device's fixed tuning.tec_power estimate);
  // the accelerator has banks x chips such units, and its TEC is modelled here (thermal.h
  // steady_state at the full-rate on-chip heat), so the fixed estimate is not added again:
  // static tuning (every bank) + TEC electrical power <= thermal_budget x banks x chips. No
  // steady state is a failure with an undefined margin (-inf).
  const double tuning = static_tuning_power(r);
  const double units = static_cast<double>(r.banks) * a.interposer.chips;
  const double per_unit = a.device.requirements.thermal_budget.si();
  const double total = tuning + r.thermal.tec_power;
  const bool within = total <= per_unit * units;
  DesignConstraint tec = constraint(
      "tec", r.thermal.feasible && within, total, per_unit * units, "W",
      r.thermal.feasible
          ? fmt::format("static tuning {:.3g} W + TEC {:.3g} W {} the thermal budget {:.3g} W "
                        "({:.3g} W per device x {} banks x {} chips)",
                        tuning, r.thermal.tec_power, within ? "is within" : "exceeds",
                        per_unit * units, per_unit, r.banks, a.interposer.chips)
          : r.thermal.reason);
  if (!r.thermal.feasible) tec.margin = -std::numeric_limits<double>::infinity();
  out.push_back(tec);
  // Heaters only (operating_point.h); a Pockels tuner has no holding-power lock range.
  DesignConstraint lock =
      constraint("lock_range", r.tuner.covers, 0, 0, "",
                 !r.tuner.heater  ? "Pockels tuning: no heater lock range to cover"
                 : r.tuner.covers ? "the heaters' lock range covers the resonance offsets"
                                  : r.tuner.reason);
  if (!r.tuner.covers) lock.margin = -std::numeric_limits<double>::infinity();
  out.push_back(lock);
  const double target_pm = a.calibration.target.si() * 1e12;
  DesignConstraint search = constraint(
      "lock", lp.search.feasible, lp.search.needed, a.calibration.max_iterations, "iterations",
      lp.search.feasible
          ? fmt::format("a +-{:.3g} pm lock takes {} halvings of the {:.3g} pm range", target_pm,
                        lp.search.halvings, (r.tuner.lock.hi - r.tuner.lock.lo) * 1e12)
          : lp.search.reason);
  if (lp.search.needed == 0) search.margin = -std::numeric_limits<double>::infinity();
  out.push_back(search);
  return out;
}

// The selection-relevant tuple of a candidate: every variable that changes the scores.
using RecallKey = std::tuple<double, double, double, int, double, int, int, int, double, int,
                             std::string, int, int>;
RecallKey recall_key(const DesignVariables& v, bool k_matters) {
  return {v.ring_radius,
          v.q_loaded,
          v.channel_spacing,
          v.dim,
          v.laser_power,
          v.rows,
          static_cast<int>(v.detection),
          v.weight_bits,
          v.lock_precision,
          static_cast<int>(v.query_encoding),
          v.projection,
          v.block_tokens,
          k_matters ? v.top_k : 0};
}

double cost_of(const DesignFigures& f, DesignCost c) {
  switch (c) {
    case DesignCost::energy:
      return f.energy_per_query;
    case DesignCost::static_power:
      return f.static_power;
    case DesignCost::area:
      return f.area;
    case DesignCost::latency:
      return f.latency_per_step;
  }
  return f.energy_per_query;
}

double metric_of(const DesignFigures& f, DesignMetric m) {
  return m == DesignMetric::mass_recall ? f.mass_recall : f.recall;
}

// a dominates b: recall at least b's and every cost at most b's, one of them strictly.
bool dominates(const DesignFigures& a, const DesignFigures& b, DesignMetric m) {
  const std::array<double, 5> x{-metric_of(a, m), a.energy_per_query, a.latency_per_step,
                                a.static_power, a.area};
  const std::array<double, 5> y{-metric_of(b, m), b.energy_per_query, b.latency_per_step,
                                b.static_power, b.area};
  bool strict = false;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (x[i] > y[i]) return false;
    if (x[i] < y[i]) strict = true;
  }
  return strict;
}

}  // namespace

DesignLayout layout_of(const DesignVariables& v) {
  return {.dim = v.dim,
          .block_tokens = v.block_tokens,
          .projection = v.projection,
          .qat_weight_bits = v.projection == "qat" ? v.weight_bits : 0};
}

kv::EvalReport score_layout(const kv::KvCache& cache, const DesignLayout& layout,
                            const std::vector<std::int64_t>& ks,
                            const std::vector<AcceleratorSpec>& accelerators, Context& ctx,
                            std::size_t first_step) {
  kv::EvalOptions o;
  o.ks.assign(ks.begin(), ks.end());
  o.blocks.block_tokens = static_cast<std::size_t>(layout.block_tokens);
  o.first_step = first_step;
  const auto d = static_cast<std::size_t>(layout.dim);
  if (layout.projection == "qat") {
    // Trained on the steps before first_step, scored on the rest.
    LIGHTSIM_CHECK(first_step == qat_training_steps(cache.geometry().steps, kQatTrainFraction),
                   "prism design: a qat layout scored from step {} (it trains on {})", first_step,
                   qat_training_steps(cache.geometry().steps, kQatTrainFraction));
    QatOptions q = accelerators.empty() ? QatOptions{} : qat_options_for(accelerators.front());
    q.weight_bits = layout.qat_weight_bits;
    o.shared_projection = kv::SharedProjection{qat_projection(q, kQatTrainFraction, o.blocks), d};
  } else {
    o.shared_projection = kv::SharedProjection{kv::standard_projection(layout.projection), d};
  }
  o.output_error = false;
  kv::ProjectionSource projection;
  projection.dim = d;
  std::vector<kv::ScorerSetup> setups{{"ideal", kv::signature_scorer(projection)}};
  for (const AcceleratorSpec& a : accelerators)
    setups.push_back({fmt::format("t{}", setups.size()), prism_scorer(a, projection)});
  return kv::evaluate(cache, setups, o, ctx);
}

namespace {

// Recall and mass recall of every distinct tuple, one kv::evaluate per layout.
void score_recall(const PrismDesignSpec& spec, const Axes& axes, DesignResult& r, Context& ctx) {
  const bool k_matters = spec.accelerator.selection.votes > 1;
  std::map<DesignLayout, std::map<RecallKey, std::vector<std::size_t>>> groups;
  for (DesignCandidate& c : r.all)
    if (c.feasible)
      groups[layout_of(c.variables)][recall_key(c.variables, k_matters)].push_back(c.index);
  if (groups.empty()) return;
  std::vector<std::int64_t> ks(axes.k.begin(), axes.k.end());
  std::sort(ks.begin(), ks.end());
  ks.erase(std::unique(ks.begin(), ks.end()), ks.end());
  for (std::size_t t = 0; t < r.contexts.size(); ++t) {
    // One cache per context, in turn; the workload's own is kept (DesignResult::cache).
    kv::KvGeneratorSpec workload = spec.workload;
    workload.tokens = r.contexts[t];
    ctx.log().info("prism design: generating the {}-token cache", workload.tokens);
    auto cache = std::make_shared<const kv::KvCache>(kv::generate_kv_cache(workload, ctx));
    if (workload.tokens == spec.workload.tokens) r.cache = cache;
    for (const auto& [layout, tuples] : groups) {
      ctx.throw_if_cancelled("prism design");
      // One Prism scorer per distinct tuple, after the ideal scorer (setup 0).
      std::vector<AcceleratorSpec> accelerators;
      std::vector<const std::vector<std::size_t>*> members{nullptr};
      for (const auto& [key, idx] : tuples) {
        accelerators.push_back(
            design_accelerator(spec, r.all[idx.front()].variables, r.contexts[t]));
        members.push_back(&idx);
      }
      if (t == 0) r.scored_tuples += accelerators.size();
      const kv::EvalReport rep = score_layout(*cache, layout, ks, accelerators, ctx, r.first_step);
      for (std::size_t s = 1; s < members.size(); ++s)
        for (std::size_t i : *members[s]) {
          DesignFigures& f = *r.all[i].figures;
          const auto ki = static_cast<std::size_t>(
              std::find(ks.begin(), ks.end(), r.all[i].variables.top_k) - ks.begin());
          const kv::KMetrics& m = rep.scorers[s].per_k[ki];
          const kv::KMetrics& ideal = rep.scorers[0].per_k[ki];
          DesignContextFigures& at = f.by_context[t];
          at.recall = m.recall.mean;
          at.mass_recall = m.mass_recall.mean;
          at.ideal_recall = ideal.recall.mean;
          at.ideal_mass_recall = ideal.mass_recall.mean;
          // The lowest over the contexts (the first context sets them).
          const bool first = t == 0;
          f.recall = first ? at.recall : std::min(f.recall, at.recall);
          f.mass_recall = first ? at.mass_recall : std::min(f.mass_recall, at.mass_recall);
          f.ideal_recall = first ? at.ideal_recall : std::min(f.ideal_recall, at.ideal_recall);
          f.ideal_mass_recall =
              first ? at.ideal_mass_recall : std::min(f.ideal_mass_recall, at.ideal_mass_recall);
        }
    }
  }
}

void choose(DesignResult& r) {
  const DesignTargetSpec& t = r.target;
  std::vector<std::size_t> feasible;
  for (const DesignCandidate& c : r.all)
    if (c.feasible) feasible.push_back(c.index);
  for (std::size_t i : feasible) {
    DesignCandidate& c = r.all[i];
    c.meets_target = metric_of(*c.figures, t.metric) >= t.recall;
    c.on_front = std::none_of(feasible.begin(), feasible.end(), [&](std::size_t j) {
      return j != i && dominates(*r.all[j].figures, *c.figures, t.metric);
    });
    if (c.on_front) r.front.push_back(i);
    if (c.meets_target) {
      const double mine = cost_of(*c.figures, t.cheapest_by);
      if (!r.best || mine < cost_of(*r.all[*r.best].figures, t.cheapest_by)) r.best = i;
    }
  }
  std::stable_sort(r.front.begin(), r.front.end(), [&](std::size_t a, std::size_t b) {
    return cost_of(*r.all[a].figures, t.cheapest_by) < cost_of(*r.all[b].figures, t.cheapest_by);
  });
  if (r.best) return;
  if (!feasible.empty()) {
    std::size_t top = feasible.front();
    for (std::size_t i : feasible)
      if (metric_of(*r.all[i].figures, t.metric) > metric_of(*r.all[top].figures, t.metric))
        top = i;
    const DesignFigures& f = *r.all[top].figures;
    r.binding = "recall_target";
    r.binding_reason = fmt::format(
        "{} of {} candidates are feasible, but the best of them (candidate {}) reaches {} = "
        "{:.4f}, below the target {:.4g}; its projection scored exactly, without the hardware, "
        "reaches {:.4f}",
        feasible.size(), r.candidates, top, to_string(t.metric), metric_of(f, t.metric), t.recall,
        t.metric == DesignMetric::mass_recall ? f.ideal_mass_recall : f.ideal_recall);
    return;
  }
  const ConstraintCount* most = &r.removal.front();
  for (const ConstraintCount& c : r.removal)
    if (c.removed > most->removed) most = &c;
  r.binding = most->name;
  r.binding_reason = fmt::format(
      "no candidate is feasible; {} removed the most: {} of {} candidates (each removed "
      "candidate is charged to the first constraint it fails, in the order {}); {} of the "
      "candidates checked against it fail it",
      most->name, most->removed, r.candidates, fmt::join(kConstraints, ", "), most->failed);
}

}  // namespace

std::vector<DesignVariables> enumerate_designs(const PrismDesignSpec& spec) {
  const Axes x = resolve_axes(spec);
  const auto sizes = x.sizes();
  std::size_t n = 1;
  for (std::size_t s : sizes) n *= s;
  std::vector<DesignVariables> out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) out.push_back(variables_at(x, digits(i, sizes)));
  return out;
}

std::vector<std::int64_t> design_contexts(const PrismDesignSpec& spec) {
  std::vector<std::int64_t> t = spec.contexts;
  t.push_back(spec.workload.tokens);
  std::sort(t.begin(), t.end());
  t.erase(std::unique(t.begin(), t.end()), t.end());
  return t;
}

kv::KvGeneratorSpec longest_design_workload(const PrismDesignSpec& spec) {
  kv::KvGeneratorSpec w = spec.workload;
  w.tokens = design_contexts(spec).back();
  return w;
}

AcceleratorSpec design_accelerator(const PrismDesignSpec& spec, const DesignVariables& v) {
  return design_accelerator(spec, v, spec.workload.tokens);
}

AcceleratorSpec design_accelerator(const PrismDesignSpec& spec, const DesignVariables& v,
                                   std::int64_t tokens) {
  AcceleratorSpec a = spec.accelerator;
  a.device.ring.radius = Length::si(v.ring_radius);
  a.device.ring.q_loaded = v.q_loaded;
  a.device.grid.spacing = Length::si(v.channel_spacing);
  a.device.grid.channels = v.dim;
  a.device.laser.power_per_line = Power::si(v.laser_power);
  a.device.bank.rows = v.rows;
  a.device.detector.mode = v.detection;
  a.device.dac.bits = v.weight_bits;
  a.programming.weight_bits = v.weight_bits;
  a.impairments.calibration_residual = Length::si(v.lock_precision);
  // A listed lock precision p is the lock's: a search that stops within +-target leaves a
  // residual uniform in +-target, rms target / sqrt(3) (configs/impairments/seed_table31.yaml:
  // +-2 pm -> 1.15 pm), so target = sqrt(3) p. An empty list keeps the base's lock.
  if (!spec.space.lock_precision.empty())
    a.calibration.target = Length::si(std::sqrt(3.0) * v.lock_precision);
  a.interposer.chips = v.chips;
  a.electronics.query_encoding = v.query_encoding;
  a.programming.block_tokens = v.block_tokens;
  a.programming.kv_heads = static_cast<int>(spec.workload.kv_heads);
  a.selection.top_k = v.top_k;
  const std::int64_t blocks = (tokens + v.block_tokens - 1) / v.block_tokens;
  a.logical_rows = static_cast<int>(blocks);
  return a;
}

DesignResult search_designs(const PrismDesignSpec& spec, Context& ctx) {
  const Axes axes = resolve_axes(spec);
  const auto sizes = axes.sizes();
  std::size_t n = 1;
  for (std::size_t s : sizes) n *= s;
  LIGHTSIM_CHECK_AS(InputError, n <= (std::size_t{1} << 22),
                    "prism design: space: {} candidates exceed the limit of 4194304", n);
  std::size_t devices = 1;
  for (std::size_t a = 0; a < kDeviceAxes; ++a) devices *= sizes[a];
  const std::size_t per_device = n / devices;
  DesignResult r{.candidates = n,
                 .target = spec.target,
                 .context = spec.workload.tokens,
                 .contexts = design_contexts(spec)};
  if (std::find(axes.projection.begin(), axes.projection.end(), "qat") != axes.projection.end())
    r.first_step =
        qat_training_steps(static_cast<std::size_t>(spec.workload.steps), kQatTrainFraction);
  r.devices = n / per_device;
  r.all.resize(n);

  // Device checks once per device tuple (the first candidate built on it).
  std::vector<std::vector<DesignConstraint>> device(r.devices);
  parallel_for(ctx.pool(), r.devices, [&](std::size_t dv) {
    const std::size_t i = dv * per_device;
    device[dv] = device_constraints(design_accelerator(spec, variables_at(axes, digits(i, sizes))));
  });
  // Then every candidate on a feasible device: the cost model and its constraints.
  parallel_for(ctx.pool(), n, [&](std::size_t i) {
    DesignCandidate& c = r.all[i];
    c.index = i;
    c.variables = variables_at(axes, digits(i, sizes));
    c.constraints = device[i / per_device];
    for (const DesignConstraint& k : c.constraints)
      if (!k.passed) {
        c.removed_by = k.name;
        return;
      }
    // The system constraints and costs at every context; each constraint is kept at the
    // context where its margin is smallest, each cost at the context where it is highest.
    const std::size_t device_count = c.constraints.size();
    const int layers = static_cast<int>(spec.workload.model_layers);
    DesignFigures f;
    for (std::size_t t = 0; t < r.contexts.size(); ++t) {
      const AcceleratorSpec a = design_accelerator(spec, c.variables, r.contexts[t]);
      const CostReport cr = cost(a);
      const LockPower lp = lock_power(a, cr);
      std::vector<DesignConstraint> sys = system_constraints(a, cr, lp);
      for (std::size_t k = 0; k < sys.size(); ++k) {
        if (r.contexts.size() > 1) sys[k].message += fmt::format(" (at {} tokens)", r.contexts[t]);
        if (t == 0)
          c.constraints.push_back(std::move(sys[k]));
        else if (DesignConstraint& kept = c.constraints[device_count + k];
                 (kept.passed && !sys[k].passed) ||
                 (kept.passed == sys[k].passed && sys[k].margin < kept.margin))
          kept = std::move(sys[k]);
      }
      // The lock's power is static (it runs whether or not queries arrive): its share per
      // query at the full system rate, like the cost model's static items.
      const DesignContextFigures at{.tokens = r.contexts[t],
                                    .energy_per_query = cr.total_energy + lp.power / cr.system_qps,
                                    .latency_per_step = layers * cr.timeline.latency,
                                    .passes = cr.timeline.passes};
      f.energy_per_query = std::max(f.energy_per_query, at.energy_per_query);
      f.latency_per_query = std::max(f.latency_per_query, cr.timeline.latency);
      f.latency_per_step = std::max(f.latency_per_step, at.latency_per_step);
      f.query_interval = std::max(f.query_interval, cr.timeline.interval);
      f.static_power = std::max(f.static_power, cr.static_power_total + lp.power);
      f.lock_power = std::max(f.lock_power, lp.power);
      f.area = std::max(f.area, cr.area_total);
      f.passes = std::max(f.passes, cr.timeline.passes);
      f.by_context.push_back(at);
    }
    for (std::size_t k = device_count; k < c.constraints.size(); ++k)
      if (!c.constraints[k].passed) {
        c.removed_by = c.constraints[k].name;
        return;
      }
    c.feasible = true;
    c.figures = std::move(f);
  });
  for (const char* name : kConstraints) {
    ConstraintCount cc{.name = name};
    for (const DesignCandidate& c : r.all) {
      if (c.removed_by == name) ++cc.removed;
      for (const DesignConstraint& k : c.constraints)
        if (k.name == name && !k.passed) ++cc.failed;
    }
    r.removal.push_back(cc);
  }
  for (const DesignCandidate& c : r.all) r.feasible += c.feasible ? 1 : 0;
  score_recall(spec, axes, r, ctx);
  choose(r);
  return r;
}

}  // namespace lightsim::prism
