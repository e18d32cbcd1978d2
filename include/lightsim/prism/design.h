// Design-space search for the Prism selector (docs/prism.md, "Design-space search"): a grid of
// free variables around a base accelerator, every candidate checked against named feasibility
// constraints before it is scored, recall on a synthetic KV workload (memoised per distinct
// selection-relevant tuple), the analytic cost model for energy, latency, static power and area,
// the Pareto front and the cheapest feasible design meeting a recall target.
//
// Enumeration: the cartesian product of the axes in a fixed order (device axes outermost:
// ring_radius, q_loaded, channel_spacing, dim, laser_power, rows, detection; then weight_bits,
// lock_precision, chips, query_encoding, projection, block_tokens, top_k); candidate i's index is
// its position in that order. Pruning: the device checks (photonics::check_feasibility) run once
// per distinct device tuple; a failed device removes every candidate built on it without building
// them. Then, per candidate, the die (reticle), TEC steady state, heater lock range (cost.h,
// die.h) and the lock's binary search (lock_power.h). Each removed candidate is charged to the
// first constraint it fails in this order. Recall is computed only for feasible candidates, once
// per distinct selection-relevant tuple (every axis but chips and top_k: fan-out scales the laser
// so each chip receives the same power, and k does not change the scores), all ks in one
// kv::evaluate per layout (dim, block_tokens, projection).
// Contexts (PrismDesignSpec::contexts): the system constraints and the costs are computed at
// every context and recall scored on the workload regenerated at each; a constraint failing at
// any context removes the candidate, each constraint is reported at its smallest margin, and
// the figures are the worst over the contexts (lowest recall, highest cost), with every
// context's own in DesignFigures::by_context.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lightsim/core/config.h"
#include "lightsim/core/context.h"
#include "lightsim/core/json_fwd.h"
#include "lightsim/core/units.h"
#include "lightsim/kv/generator.h"
#include "lightsim/kv/metrics.h"
#include "lightsim/prism/accelerator.h"

namespace lightsim::prism {

// The most candidates a design space may give (the product of its lists; design_spec.cpp).
inline constexpr std::uint64_t kMaxDesignCandidates = 100'000;

// The free variables; an empty list means the base accelerator's value (one value).
struct DesignSpaceSpec {
  static constexpr std::string_view kind = "prism_design_space";
  std::vector<Length> ring_radius{};
  std::vector<double> q_loaded{};
  std::vector<Length> channel_spacing{};
  std::vector<std::int64_t> dim{};          // d = wavelength channels = rings per row
  std::vector<Power> laser_power{};         // per line at the laser
  std::vector<std::int64_t> rows{};         // physical rows per chip (time multiplexing)
  std::vector<std::string> detection{};     // balanced, single_ended (device.detector.mode)
  std::vector<std::int64_t> weight_bits{};  // digital weights = weight DAC bits
  std::vector<Length> lock_precision{};     // rms resonance error the bias lock leaves
  std::vector<std::int64_t> chips{};
  std::vector<std::string> query_encoding{};  // intensity, balanced
  std::vector<std::string> projection{};      // kv_projection names (empty: spec.projection)
  std::vector<std::int64_t> block_tokens{};
  std::vector<std::int64_t> top_k{};
  static void describe(config::Schema<DesignSpaceSpec>& s);
};

enum class DesignMetric { mass_recall, recall };  // recall: Recall@k vs full attention
enum class DesignCost { energy, static_power, area, latency };  // what "cheapest" minimises

struct DesignTargetSpec {
  static constexpr std::string_view kind = "prism_design_target";
  DesignMetric metric = DesignMetric::mass_recall;
  double recall = 0.8;
  DesignCost cheapest_by = DesignCost::energy;
  static void describe(config::Schema<DesignTargetSpec>& s);
};

struct PrismDesignSpec {
  static constexpr std::string_view kind = "prism_design";
  static constexpr std::string_view preset_dir = "prism_designs";
  std::string description{};
  AcceleratorSpec accelerator{};  // the base: every field the space does not set
  // The workload: a calibrated synthetic KV profile; `tokens` is the context.
  kv::KvGeneratorSpec workload{};
  // The kv_projection fitted once per head and layout, shared by candidates (the default of
  // space.projection).
  std::string projection = "pca";
  // Further contexts (tokens) the design must serve beside workload.tokens: every candidate is
  // checked and scored at each (the workload's cache regenerated at that length), and judged by
  // its worst context (DesignFigures). Empty: workload.tokens alone.
  std::vector<std::int64_t> contexts{};
  DesignSpaceSpec space{};
  DesignTargetSpec target{};
  static void describe(config::Schema<PrismDesignSpec>& s);
};

// One candidate's values (indices resolved to values).
struct DesignVariables {
  double ring_radius = 0, q_loaded = 0, channel_spacing = 0;  // m, -, m
  int dim = 0;
  double laser_power = 0;  // W per line
  int rows = 0;
  photonics::DetectionMode detection = photonics::DetectionMode::balanced;
  int weight_bits = 0;
  double lock_precision = 0;  // m
  int chips = 0;
  QueryEncoding query_encoding = QueryEncoding::intensity;
  std::string projection{};  // kv_projection of the signatures
  int block_tokens = 0, top_k = 0;
};

// What one kv::evaluate of the search shares: the signatures' dimension, block size and
// projection (fitted once per head for the layout).
struct DesignLayout {
  int dim = 0, block_tokens = 0;
  std::string projection{};
  // "qat" only (0 otherwise): the weight bits the projection is trained for, the candidate's
  // own (prism::qat_projection with qat_options_for the base accelerator at these bits).
  int qat_weight_bits = 0;
  auto operator<=>(const DesignLayout&) const = default;
};
DesignLayout layout_of(const DesignVariables& v);

// A named constraint of one candidate: passed when value <= limit ("at_most") or value >=
// limit ("at_least"); margin = limit - value or value - limit (negative: violated), in unit.
struct DesignConstraint {
  std::string name{};  // ring, aliasing, crosstalk, weight_range, tuning_range, thermal_budget,
                       // link_budget, reticle, tec, lock_range, lock
  bool passed = true;
  double value = 0, limit = 0, margin = 0;
  std::string unit{}, sense{}, message{};
};

// One candidate at one context (PrismDesignSpec::contexts).
struct DesignContextFigures {
  std::int64_t tokens = 0;
  double recall = 0, mass_recall = 0, ideal_recall = 0, ideal_mass_recall = 0;
  double energy_per_query = 0;  // J
  double latency_per_step = 0;  // s
  int passes = 1;
};

// A candidate's figures over its contexts: each recall figure the lowest, each cost the highest
// of its contexts (the worst context binds; with one context, that context's figures).
struct DesignFigures {
  double recall = 0, mass_recall = 0;  // mean over heads x steps
  // The same projection (d, block size, k) scored exactly, with no hardware: what the
  // signatures alone allow, so a shortfall can be told apart from the photonics' (kv
  // "signature" scorer).
  double ideal_recall = 0, ideal_mass_recall = 0;
  double energy_per_query = 0;   // J, CostReport::total_energy + lock_power / system rate
                                 // (static shares at full rate)
  double latency_per_query = 0;  // s, one KV head's selection
  double latency_per_step = 0;   // s, model_layers x latency_per_query (layers in sequence)
  double query_interval = 0;     // s between back-to-back queries on one bank (Timeline)
  double static_power = 0;       // W, the cost model's static power + lock_power
  double lock_power = 0;         // W, the bias lock's relocks (lock_power.h), all rings
  double area = 0;               // m^2, all chips
  int passes = 1;
  std::vector<DesignContextFigures> by_context{};  // ascending tokens (the search's contexts)
};

struct DesignCandidate {
  std::size_t index = 0;  // position in the enumeration order
  DesignVariables variables{};
  bool feasible = false;
  std::string removed_by{};                     // first failed constraint ("" when feasible)
  std::vector<DesignConstraint> constraints{};  // all checked so far (device ones always)
  std::optional<DesignFigures> figures{};       // feasible candidates only
  bool on_front = false;
  bool meets_target = false;
};

struct ConstraintCount {
  std::string name{};
  std::size_t removed = 0;  // candidates charged to it (first failure in the check order)
  std::size_t failed = 0;   // candidates among those checked against it that fail it
};

struct DesignResult {
  std::size_t candidates = 0, feasible = 0, scored_tuples = 0, devices = 0;
  std::vector<DesignCandidate> all{};      // in enumeration order
  std::vector<std::size_t> front{};        // indices into `all`, by ascending cost
  std::optional<std::size_t> best{};       // the cheapest feasible design meeting the target
  std::vector<ConstraintCount> removal{};  // in the check order
  // When there is no best: the binding constraint and why it is binding.
  std::string binding{}, binding_reason{};
  DesignTargetSpec target{};
  std::int64_t context = 0;              // workload.tokens
  std::vector<std::int64_t> contexts{};  // every context scored, ascending (context among them)
  // The first decode step scored: 0, or with a "qat" projection in the space the steps it
  // trains on (qat_training_steps of workload.steps), held out of every layout's figures so
  // projections are compared on the same steps.
  std::size_t first_step = 0;
  // The workload cache recall was scored on (spec.workload; null when no candidate was
  // feasible): kept so the study's robustness and GPU baselines score the same cache without
  // generating it again.
  std::shared_ptr<const kv::KvCache> cache{};
};

// Recall on one layout of `cache`: one kv::evaluate at `ks` (sorted, unique) over the decode
// steps from `first_step` on, with the layout's projection fitted once at its dim ("qat":
// trained on the steps before first_step, with the first accelerator's quantizers at the
// layout's weight bits); setup 0 is that projection's exact scorer ("ideal"), then one Prism
// scorer per accelerator, in order. The search and the study's robustness of the front score
// through it.
kv::EvalReport score_layout(const kv::KvCache& cache, const DesignLayout& layout,
                            const std::vector<std::int64_t>& ks,
                            const std::vector<AcceleratorSpec>& accelerators, Context& ctx,
                            std::size_t first_step = 0);

// Every candidate of `spec` in enumeration order (variables only).
std::vector<DesignVariables> enumerate_designs(const PrismDesignSpec& spec);
// The base accelerator with a candidate's variables applied at a context of `tokens` (logical
// rows = its blocks); without `tokens`, at the workload's context.
AcceleratorSpec design_accelerator(const PrismDesignSpec& spec, const DesignVariables& v,
                                   std::int64_t tokens);
AcceleratorSpec design_accelerator(const PrismDesignSpec& spec, const DesignVariables& v);
// workload.tokens and spec.contexts, sorted, without repeats.
std::vector<std::int64_t> design_contexts(const PrismDesignSpec& spec);
// The workload at the longest of design_contexts (the largest cache the search generates: the
// memory estimate's input).
kv::KvGeneratorSpec longest_design_workload(const PrismDesignSpec& spec);

// The search (see the contract above). Deterministic for ctx's seed and any thread count.
DesignResult search_designs(const PrismDesignSpec& spec, Context& ctx);

std::string to_string(DesignMetric m);
std::string to_string(DesignCost c);
// {index, variables, feasible, removed_by, figures (feasible only; with by_context: [{tokens,
// recall, mass_recall, ideal_recall, ideal_mass_recall, energy_per_query_j, latency_per_step_s,
// passes}]), constraints: [{name, passed,
// value, limit, margin (null when undefined), unit, sense, message}]}
Json design_candidate_json(const DesignCandidate& c);
// {context_tokens, contexts, first_scored_step, target, candidates, devices, feasible,
// scored_tuples, removal: [{name, removed, failed}], front: [candidate], best: candidate | null,
// binding: {constraint, reason} | null}
Json to_json(const DesignResult& r);

}  // namespace lightsim::prism
