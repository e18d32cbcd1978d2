// Retrieval metrics of block scorers against the exact-attention oracle (docs/metrics.md): the
// one retrieval engine, behind `lightsim kv select`, Python evaluate_kv and the Prism studies
// (context, needle, impairments). One sample per (layer, KV head, decode step); aggregated as
// mean +- 95% CI (normal approximation, 1.96 standard errors; samples of one head are
// correlated, so the CI is a lower bound on the true uncertainty).
//
// Options beyond the metrics of one scorer against the oracle:
//   - Recall@k against a second truth, the top-k of a reference setup (e.g. the ideal,
//     noiseless signature scorer: "truth in the projected space", which isolates the hardware
//     loss; SPEC section 3);
//   - a projection fitted once per head and shared by every projected setup, so an evaluation
//     of a hundred setups fits one PCA per head;
//   - several block layouts of one cache in one evaluation (the projection and the exact
//     attention computed once per head and step for all of them);
//   - the sparse attention output error (its cost grows with setups x group x tokens) on or
//     off.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "lightsim/core/context.h"
#include "lightsim/core/json.h"
#include "lightsim/kv/blocks.h"
#include "lightsim/kv/cache.h"
#include "lightsim/kv/projection.h"
#include "lightsim/kv/scorer.h"

namespace lightsim::kv {

// A projection fitted once per head (fit_head_projections' stream) and given to every
// projected scorer instead of its own fit (HeadIndex::projection).
struct SharedProjection {
  ProjectionFitter fit;  // e.g. standard_projection("pca")
  std::size_t dim = 32;  // d; every projected setup must use the same d
};

struct EvalOptions {
  std::vector<std::size_t> ks = {8, 16, 32};  // blocks selected per KV head per step
  BlockOptions blocks;                        // the layout (evaluate over one layout)
  double kv_bytes = 2;                        // bytes per stored K or V element (bf16)
  // Index of the setup whose top-k is the second truth of recall_projected; empty: none.
  std::optional<std::size_t> reference;
  // Empty: each projected scorer fits its own projection.
  std::optional<SharedProjection> shared_projection;
  // The sparse attention output error (output_rel_error); off: its estimate has n = 0.
  bool output_error = true;
  // Non-empty: a progress task of this label over the (layer, KV head) pairs, advanced as each
  // finishes (the `kv select` command; studies keep their own progress and leave it empty).
  std::string progress_label{};
  // Decode steps before it are not scored (neither attention nor any scorer runs on them): the
  // part a trained projection (e.g. prism's "qat") was fitted on, so every figure is held out.
  // Must be below the cache's steps; EvalReport::steps counts the scored ones.
  std::size_t first_step = 0;
};

struct Estimate {
  double mean = 0;
  double ci95 = 0;  // half-width
  std::size_t n = 0;
};
Estimate estimate(const std::vector<double>& samples);
// {mean, ci95, n}: an estimate in every kv report's JSON (docs/metrics.md).
Json to_json(const Estimate& e);

// One setup at one k. n = 0 for an estimate not computed (recall_projected without a
// reference, output_rel_error with output_error off).
struct KMetrics {
  std::size_t k = 0;            // requested
  std::size_t k_effective = 0;  // min(k, candidate blocks)
  Estimate recall;              // |S_k & O_k| / k_eff, O_k the full-attention oracle's top-k
  Estimate recall_projected;    // |S_k & R_k| / k_eff, R_k the reference setup's top-k
  std::vector<std::pair<std::size_t, Estimate>> recall_k_at_K;  // oracle top-k within selected K
  Estimate mass_recall;                                         // mass(S_k) / mass(O_k)
  Estimate mass_coverage;           // (resident + selected mass) / total mass
  Estimate output_rel_error;        // |o_sparse - o_full| / |o_full|
  Estimate fetched_fraction;        // (resident + selected tokens) / T, per KV head
  Estimate needle_hit;              // per (head, step, needle)
  Estimate needle_hit_union;        // per (layer, step, needle): any KV head of the layer hit it
  Estimate union_fetched_fraction;  // per (layer, step): tokens fetched by any KV head / T
  std::vector<Estimate> needle_hit_by_head;          // [kv_head]: over layers, steps, needles
  std::vector<Estimate> needle_hit_by_needle;        // [needle]: over heads and steps
  std::vector<Estimate> needle_hit_union_by_needle;  // [needle]: over layers and steps
  // Traffic ledger, bytes per KV head per decode step (K and V read, summaries read).
  double metadata_bytes = 0, selected_bytes = 0, resident_bytes = 0;
  double bytes_per_step = 0, full_scan_bytes = 0, traffic_reduction = 0;
};

struct ScorerReport {
  std::string name;
  std::vector<KMetrics> per_k;  // in the order of EvalOptions::ks
};

struct EvalReport {
  std::string source;  // the cache's provenance (KvCache::source)
  std::size_t tokens = 0, block_tokens = 0, blocks = 0, candidates = 0, resident_tokens = 0;
  std::size_t heads = 0, steps = 0, needles = 0;
  std::vector<ScorerReport> scorers;  // in the order of the setups
};

// What one worker thread of evaluate holds for the head it evaluates, beside the cache, for
// the memory checks before a run (studies' Definition::require_memory): per token, the group's
// attention probabilities ((group + 1) doubles, group_attention) and 12 bytes per key channel
// (a double and a float copy's worth: the scorers' per-head scratch, e.g. FAISS's training
// residuals, the quantized and projected keys). Calibrated on measured peaks (docs/hardening.md,
// "Limits": each thread beyond the first added 1.43-1.51 KB per token to the impairments
// study's peak RSS at 8192-32768 tokens, head_dim 128, group 7; this gives 1.6 KB there).
std::uint64_t evaluation_thread_bytes(const KvGeometry& g);

// A needle is hit when every one of its tokens is resident (sink or recent window) or lies in
// a block with mask[block] != 0. mask: layout.blocks() entries.
bool needle_hit(const NeedleSpan& needle, const BlockLayout& layout, std::span<const char> mask);

// The union of the blocks the KV heads of one layer selected at one decode step (a layer's
// heads share the fetched K/V; docs/metrics.md, union_fetched_fraction): sets mask (resized to
// layout.blocks()) to 1 for every block in any of `selections` and 0 elsewhere, and returns the
// fetched fraction (resident tokens + the tokens of those blocks) / layout.tokens().
double union_of_heads(const BlockLayout& layout,
                      std::span<const std::span<const std::size_t>> selections,
                      std::vector<char>& mask);

// |a & b| / |b| for index lists without duplicates (b non-empty): the fraction of the truth
// `b` found in the selection `a`. Recall@k with b the truth's top-k.
double overlap_fraction(std::span<const std::size_t> selected, std::span<const std::size_t> truth);

// Evaluates every setup on every (layer, KV head) of `cache` at the layout options.blocks,
// heads in parallel (identical results for any thread count). Polls ctx for cancellation
// between heads. Bad ks or reference: InputError.
EvalReport evaluate(const KvCache& cache, const std::vector<ScorerSetup>& setups,
                    const EvalOptions& options, Context& ctx);

// The same at several block layouts of one cache (options.blocks is ignored): result i is
// identical to evaluate with options.blocks = layouts[i], but the shared projection is fitted
// once and the exact attention computed once per (head, step, query head) for all layouts.
std::vector<EvalReport> evaluate(const KvCache& cache, const std::vector<ScorerSetup>& setups,
                                 const EvalOptions& options, std::span<const BlockOptions> layouts,
                                 Context& ctx);

// The report as JSON: {source, tokens, block_tokens, blocks, candidate_blocks,
// resident_tokens, kv_heads_evaluated, steps, needles, results: {scorer: {k: {k_effective,
// every estimate as {mean, ci95, n}, recall_k_at_K: {K: estimate}, the needle breakdowns as
// lists of estimates, the traffic ledger in bytes}}}} (docs/metrics.md).
Json to_json(const EvalReport& report);
// The report as a text table, one row per (scorer, k).
std::string to_text(const EvalReport& report);

}  // namespace lightsim::kv
