// Retrieval evaluation for the Prism studies (impairments, context, needle): many block-scorer
// setups on one KV cache, the exact-attention oracle computed once per (layer, KV head, step).
//
// kv::evaluate (docs/metrics.md) is the reference implementation of the metrics; this engine
// computes the same Recall@k, mass recall, needle hits, fetched fractions and traffic ledger
// (a unit test checks they agree), skips the sparse attention output (its cost grows with the
// number of setups and the studies do not report it), and adds:
//   - Recall@k against a second truth, the top-k of a reference setup (the ideal, noiseless
//     signature scorer: "truth in the projected space", which isolates the hardware loss;
//     SPEC section 3), and
//   - needle hits per KV head index and per needle (depth).
// The projection P is fitted once per head and shared by every setup (options.projection =
// "learned" with the shared fit), so a study of a hundred setups fits one PCA per head.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lightsim/core/context.h"
#include "lightsim/core/npy.h"
#include "lightsim/kv/metrics.h"
#include "lightsim/kv/projection.h"
#include "lightsim/kv/scorer.h"

namespace lightsim::studies {

struct RetrievalSetup {
  std::string name;
  kv::ScorerFactory factory;
  kv::ScorerOptions options;  // projection/learned are overridden by a shared projection
};

struct RetrievalOptions {
  std::vector<std::size_t> ks = {8, 32};
  kv::BlockOptions blocks;
  double kv_bytes = 2;  // bytes per stored K or V element
  // Index of the setup whose top-k is the projected-space truth; empty: no projected recall.
  std::optional<std::size_t> reference;
  // Fit this projection ("kv_projection" family name) once per head and give it to every
  // setup as a learned projection; empty: each setup fits its own.
  std::string shared_projection = "pca";
  std::size_t dim = 32;                               // d of the shared projection
  const kv::ProjectionFamily* projections = nullptr;  // required with shared_projection
};

// One setup at one k. Means over samples (layer, KV head, step) with 95% CI half-widths.
struct RetrievalMetrics {
  std::size_t k = 0, k_effective = 0;
  kv::Estimate recall;            // |S_k & O_k| / k_eff, O_k the full-dimension oracle
  kv::Estimate recall_projected;  // |S_k & R_k| / k_eff, R_k the reference's top-k (n = 0: none)
  kv::Estimate mass_recall;       // m(S_k) / m(O_k)
  kv::Estimate needle_hit;        // per (head, step, needle)
  kv::Estimate needle_hit_union;  // per (layer, step, needle): any KV head of the layer
  kv::Estimate fetched_fraction;  // per head: (resident + fetched tokens) / T
  kv::Estimate union_fetched_fraction;                   // per (layer, step)
  std::vector<kv::Estimate> needle_hit_by_head;          // [kv_head]: over layers, steps, needles
  std::vector<kv::Estimate> needle_hit_by_needle;        // [needle]: over heads and steps
  std::vector<kv::Estimate> needle_hit_union_by_needle;  // [needle]: over layers and steps
  // Traffic ledger, bytes per KV head per decode step (docs/metrics.md).
  double metadata_bytes = 0, selected_bytes = 0, resident_bytes = 0;
  double bytes_per_step = 0, full_scan_bytes = 0, traffic_reduction = 0;
};

struct RetrievalReport {
  std::size_t tokens = 0, blocks = 0, candidates = 0, heads = 0, steps = 0, needles = 0;
  std::vector<std::vector<RetrievalMetrics>> setups;  // [setup][k index]
};

// The kv scorers (exact, signature, ..., and prism) and the projections, built locally so a
// study does not depend on what the caller registered.
struct ScorerCatalog {
  ScorerCatalog();
  kv::ScorerFamily scorers;
  kv::ProjectionFamily projections;
  // A setup of scorer `scorer` with d = dim and the projection family attached.
  RetrievalSetup setup(std::string name, std::string_view scorer, std::size_t dim) const;
};

// |a & b| / |b| for index lists without duplicates (b non-empty): the fraction of the truth
// `b` found in the selection `a`. Recall@k with b the truth's top-k.
double overlap_fraction(std::span<const std::size_t> selected, std::span<const std::size_t> truth);

// The d x D projection of every head of `cache`, shape [layers, kv_heads, d, D] (the kv
// "learned" layout), fitted by `fit` with the random stream the scorers use for their own fits
// (so a scorer fitting the same head itself gets the same matrix). evaluate_retrieval's shared
// projection is this with the options' shared_projection fitter. Heads in parallel; identical
// for any thread count.
NpyArray fit_head_projections(const kv::KvCache& cache, const kv::ProjectionFitter& fit,
                              std::size_t dim, Context& ctx);

// Evaluates every setup on every (layer, KV head) of `cache`, heads in parallel (identical
// results for any thread count). Polls ctx for cancellation between heads.
RetrievalReport evaluate_retrieval(const kv::KvCache& cache,
                                   const std::vector<RetrievalSetup>& setups,
                                   const RetrievalOptions& options, Context& ctx);

// evaluate_retrieval at several block layouts of one cache (options.blocks is ignored):
// result i is identical to evaluate_retrieval with options.blocks = blocks[i], but the shared
// projection is fitted once and the exact attention computed once per (head, step, query head)
// for all layouts, so a study sweeping block sizes pays for them once per cache.
std::vector<RetrievalReport> evaluate_retrieval(const kv::KvCache& cache,
                                                const std::vector<RetrievalSetup>& setups,
                                                const RetrievalOptions& options,
                                                std::span<const kv::BlockOptions> blocks,
                                                Context& ctx);

}  // namespace lightsim::studies
