// Block scorers: rank a KV head's blocks for one decode step.
//
// GQA rule: a KV head's blocks are fetched once for its whole query group, so a scorer returns
// one score per block for the group: the sum over the group's query heads of that head's
// per-block score (for the exact oracle, the sum of the heads' softmax masses).
//
// Implementations (family "kv_scorer", registered in register.cpp), each with its own options
// spec kind `scorer_<name>` (scorer_specs.h; `lightsim config explain scorer_<name>`):
//   exact      true softmax attention mass per block (the oracle; reads every key)
//   mean_key   q . mean key of the block
//   quest      Quest's bound sum_d max(q_d min_d, q_d max_d) over the block's bounding box
//   rep_keys   max over the block's representative keys of q . k (InfLLM-style)
//   signature  (P q) . (P mean key) with a d-dim projection P from the "kv_projection" family
//   faiss_ivfpq  FAISS IVF-PQ index over token keys (inner product): each query head retrieves
//              `retrieve` tokens; a block scores the estimated softmax mass of its retrieved
//              tokens, sum_g sum_t exp((s_t - s_max) / sqrt(D)) (RetrievalAttention-style)
//   prism      the Prism photonic accelerator (prism module, src/prism/scorer.cpp)
// Sink tokens and the recent window are resident regardless of scores (blocks.h).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "lightsim/core/config.h"
#include "lightsim/core/npy.h"
#include "lightsim/core/registry.h"
#include "lightsim/kv/blocks.h"
#include "lightsim/kv/projection.h"

namespace lightsim {
class Progress;
}

namespace lightsim::kv {

// Where a head sits, for per-head fits and streams.
struct HeadIndex {
  std::size_t layer = 0, kv_head = 0;
  std::uint64_t seed = 0;
  // A d x D projection of this head fitted by the caller (kv::evaluate's shared projection):
  // projected scorers (signature, prism) use it instead of fitting their own. Null: they fit.
  const ProjectionMatrix* projection = nullptr;
  // The run's stop flag (Context::cancel_flag; null = never): a scorer whose prepare() runs
  // long (FAISS training) polls it and throws Interrupted.
  const std::atomic<bool>* cancel = nullptr;
  // The run's progress when the caller reports one (null = none): a scorer whose prepare() runs
  // long (FAISS training) reports its own task there, shown inside the caller's.
  Progress* progress = nullptr;
};

class Scorer {
 public:
  virtual ~Scorer() = default;
  // Builds the head's summaries; called once before score(). `head` must outlive the scorer.
  virtual void prepare(const HeadView& head, const BlockLayout& layout, const HeadIndex& index) = 0;
  // out[b] for every block b of the layout (higher = more important) at decode step `step`.
  virtual void score(std::size_t step, std::span<float> out) const = 0;
  // Bytes of summaries/index metadata read per decode step.
  virtual double metadata_bytes() const = 0;
};

// Builds one Scorer per KV head, its implementation and options bound and checked.
using ScorerMaker = std::function<std::unique_ptr<Scorer>()>;

// A scorer to evaluate: its label in reports ("quest", "signature:pca:d32") and its maker.
struct ScorerSetup {
  std::string name;
  ScorerMaker make;
};

// How a projected scorer (signature, prism) obtains each head's d x D projection P.
struct ProjectionSource {
  std::size_t dim = 32;  // d
  // Fits P for one head ("kv_projection" family entry). Empty: P must come from the caller
  // (HeadIndex::projection), as with kv::evaluate's shared projection.
  ProjectionFitter fit{};
  std::shared_ptr<const NpyArray> learned{};  // the fitter's array for projection "learned"

  // index.projection when given (its d must equal dim: else InputError), otherwise fit() with
  // the head's stream (seed, {"sig", layer, kv_head}).
  ProjectionMatrix for_head(const HeadView& head, const HeadIndex& index) const;
};

// A spec's projection fields resolved: `projection` from `projections` (an unknown name is a
// ConfigError listing the known ones), d = dim (>= 1), and the .npy file (shape [layers,
// kv_heads, d, D]) read when `file` is not empty.
ProjectionSource projection_source(std::string_view projection, std::size_t dim,
                                   const std::filesystem::path& file,
                                   const ProjectionFamily& projections);

// The "learned" projection from an array in memory ([layers, kv_heads, d, D]; d = shape[2]).
ProjectionSource learned_projection(std::shared_ptr<const NpyArray> array);

// What a scorer's metadata size depends on: one head of a cache cut into a block layout.
struct SummaryGeometry {
  std::size_t tokens = 0, head_dim = 0, blocks = 0, block_tokens = 0;
};

// Metadata bytes per block (docs/metrics.md, "Equal bytes"): the traffic ledger's
// metadata_bytes (Scorer::metadata_bytes, bytes per KV head per decode step) over the
// layout's blocks N_b (all blocks, resident or not).
inline double per_block(double metadata_bytes, const SummaryGeometry& g) {
  return metadata_bytes / static_cast<double>(g.blocks);
}

// A scorer configured for a budget of metadata bytes per block (ScorerFactory::fit).
template <class Setting>
struct BudgetChoice {
  std::optional<Setting> setting{};  // empty: does not fit
  std::string knob{};                // the setting changed, "dim=48"; "" for a fixed-size scorer
  double bytes_per_block = 0;        // per_block() of the ledger at the setting (or at the
                                     // smallest setting when none fits)
  std::string reason{};              // why it does not fit (empty when it fits)
};
using BudgetFit = BudgetChoice<ScorerSetup>;

// What a scorer read from a config may need besides its own options.
struct ScorerEnvironment {
  const ProjectionFamily* projections = nullptr;  // resolves a spec's `projection` name
  config::LoadOptions load;                       // config roots for presets and files
};

// Where each field of a scorer's options document was set, for the messages of checks that
// depend on the cache (ScorerFactory::check): a CLI flag or Python keyword (the location
// ScorerOption::source gave it), a file's line and column, or the spec's default.
class OptionSources {
 public:
  OptionSources(const config::Node& document, std::string scorer)
      : document_(&document), scorer_(std::move(scorer)) {}
  // The fields of an options spec inside another spec (a study's), named by their key path
  // under `prefix` ("baselines.faiss."); given() is false for all of them (the spec cannot
  // tell a default from a written value, so what adapts to the cache keeps adapting).
  static OptionSources spec_keys(std::string prefix);
  // The user set `field` (a flag, a keyword, an options file), not the spec's default.
  bool given(std::string_view field) const;
  // "scorer_options.nlist (--nlist)", "f.yaml:4:8: nlist", "faiss_ivfpq nlist (default)" or
  // "baselines.faiss.nlist".
  std::string operator()(std::string_view field) const;

 private:
  OptionSources() = default;
  const config::Node* document_ = nullptr;
  std::string scorer_;  // or the key prefix, without a document
};

// The one message of a value outside the range a cache allows, for every adapter and spec
// rule: "WHERE: VALUE is out of range [LO, HI] for this cache (WHY)".
std::string out_of_cache_range(std::string_view where, std::int64_t value, std::int64_t lo,
                               std::int64_t hi, std::string_view why);
// UsageError of that message unless lo <= value <= hi.
void require_cache_range(std::string_view where, std::int64_t value, std::int64_t lo,
                         std::int64_t hi, std::string_view why);

// A "kv_scorer" family entry: the implementation's options spec kind and how to bind it.
struct ScorerFactory {
  const config::SchemaInfo* schema = nullptr;  // the options' spec kind, scorer_<name>
  // Reads the options from `document` (a top-level document of kind schema->kind) and binds
  // them. Throws ConfigError/InputError for bad options.
  std::function<ScorerSetup(const config::Node& document, const ScorerEnvironment& env)> bind;
  // The same options at the largest setting whose metadata fits `budget` bytes per block at
  // geometry g, or the reason none does. Empty: the scorer has no size rule (reported so).
  std::function<BudgetFit(const config::Node& document, const ScorerEnvironment& env,
                          const SummaryGeometry& g, double budget)>
      fit{};
  // The options' ranges that depend on the cache, at one head's geometry g (check_scorers,
  // scorer_setup.h; before any work): throws UsageError naming the option where it was set,
  // its value and the range for this cache. Empty: no option depends on the cache.
  std::function<void(const config::Node& document, const ScorerEnvironment& env,
                     const SummaryGeometry& g)>
      check{};
};
using ScorerFamily = Family<ScorerFactory>;

// The factory of an implementation whose options are spec S, bound by bind(spec, env).
template <config::Spec S, class Bind>
ScorerFactory scorer_factory(Bind bind) {
  return {&config::schema_of<S>().info(),
          [bind](const config::Node& document, const ScorerEnvironment& env) {
            return bind(config::read_spec<S>(document, env.load), env);
          }};
}

// The same with a size rule: fit(spec, env, g, budget) returns BudgetChoice<S>, bound by bind.
template <config::Spec S, class Bind, class Fit>
ScorerFactory scorer_factory(Bind bind, Fit fit) {
  ScorerFactory f = scorer_factory<S>(bind);
  f.fit = [bind, fit](const config::Node& document, const ScorerEnvironment& env,
                      const SummaryGeometry& g, double budget) {
    const BudgetChoice<S> c = fit(config::read_spec<S>(document, env.load), env, g, budget);
    BudgetFit out{{}, c.knob, c.bytes_per_block, c.reason};
    if (c.setting) out.setting = bind(*c.setting, env);
    return out;
  };
  return f;
}

// `factory` with its check: check(spec, env, sources, g) for the options read as spec S.
template <config::Spec S, class Check>
ScorerFactory with_cache_check(ScorerFactory factory, std::string scorer, Check check) {
  factory.check = [scorer = std::move(scorer), check](const config::Node& document,
                                                      const ScorerEnvironment& env,
                                                      const SummaryGeometry& g) {
    check(config::read_spec<S>(document, env.load), env, OptionSources(document, scorer), g);
  };
  return factory;
}

// The report label of a projected scorer: "NAME:PROJECTION:dD".
std::string projected_label(std::string_view scorer, std::string_view projection, std::size_t dim);

void register_scorers(ScorerFamily& family);

// Indices of the k highest-scoring candidate blocks, ties broken by lower block index, in
// descending score order. k is clipped to the number of candidates.
std::vector<std::size_t> top_k_blocks(std::span<const float> scores, const BlockLayout& layout,
                                      std::size_t k);

}  // namespace lightsim::kv
