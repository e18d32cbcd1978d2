// Scorers chosen by name, for every adapter (`lightsim kv select`, Python evaluate_kv and
// score): one resolution from the registry's "kv_scorer" and "kv_projection" families, so the
// CLI and Python accept the same names (a projection a module registers, such as prism's
// "qat", is usable everywhere `lightsim list` shows it).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "lightsim/core/registry.h"
#include "lightsim/kv/scorer.h"

namespace lightsim::kv {

// An option given by an adapter (a CLI flag, a Python keyword argument): `value` (YAML text)
// for the field `field` of every selected scorer whose options spec has that field. `source`
// names it in messages ("scorer_options.nlist").
struct ScorerOption {
  std::string field, value, source;
};

// The setups named by `labels`:
//   all               exact, mean_key, quest, rep_keys, faiss_ivfpq, and signature with the
//                     pca, pca_qk, random and first projections
//   NAME              a scorer of `scorers` with its options' defaults
//   NAME:PROJECTION   the same with the options' `projection` = PROJECTION (signature, prism)
//   FILE              a YAML/JSON file (ending .yaml, .yml or .json) of a scorer options kind
//                     (scorer_<name>: `lightsim config explain scorer_faiss_ivfpq`)
// `options` are set on top. env.projections must be the registry's projection family; the
// assignments of env.load are not applied (options arrive as ScorerOption). An unknown name
// is a ConfigError with a suggestion; an option that no selected scorer takes, or a
// PROJECTION on a scorer without one, is a UsageError.
std::vector<ScorerSetup> resolve_scorers(std::span<const std::string> labels,
                                         std::span<const ScorerOption> options,
                                         const ScorerFamily& scorers, const ScorerEnvironment& env);

// The same scorers, each at the largest setting of its knob (signature dim, rep_keys reps,
// faiss_ivfpq pq_m) whose metadata fits `budget` bytes per block at `geometry` (per_block,
// scorer.h), or the reason it does not fit (a scorer without a knob fits at its own size or
// not at all). Result i belongs to resolve_scorers' setup i.
std::vector<BudgetFit> fit_scorers(std::span<const std::string> labels,
                                   std::span<const ScorerOption> options,
                                   const ScorerFamily& scorers, const ScorerEnvironment& env,
                                   const SummaryGeometry& geometry, double budget);

// The options of the setups named by `labels` (as resolve_scorers) whose ranges depend on the
// cache, checked at one head's geometry `geometry` before any work (ScorerFactory::check:
// faiss_ivfpq's pq_m, nlist, nprobe, pq_nbits, retrieve; signature's and prism's dim): a
// UsageError naming the option where it was set (flag, keyword, file:line:column, or the
// default), its value and the range this cache allows. The one check of `kv select`, Python
// evaluate_kv and score.
void check_scorers(std::span<const std::string> labels, std::span<const ScorerOption> options,
                   const ScorerFamily& scorers, const ScorerEnvironment& env,
                   const SummaryGeometry& geometry);

// The registry's scorer and projection families (registered by kv::register_all).
const ScorerFamily& scorer_family(const Registry& registry);
const ProjectionFamily& projection_family(const Registry& registry);

}  // namespace lightsim::kv
