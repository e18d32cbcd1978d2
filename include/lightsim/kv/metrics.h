// Retrieval metrics of block scorers against the exact-attention oracle (docs/metrics.md).
// One sample per (layer, KV head, decode step); aggregated as mean +- 95% CI (normal
// approximation, 1.96 standard errors; samples of one head are correlated, so the CI is a
// lower bound on the true uncertainty).
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "lightsim/core/context.h"
#include "lightsim/kv/blocks.h"
#include "lightsim/kv/cache.h"
#include "lightsim/kv/scorer.h"

namespace lightsim::kv {

struct EvalOptions {
  std::vector<std::size_t> ks = {8, 16, 32};  // blocks selected per KV head per step
  BlockOptions blocks;
  double kv_bytes = 2;  // bytes per stored K or V element (bf16)
};

struct Estimate {
  double mean = 0;
  double ci95 = 0;  // half-width
  std::size_t n = 0;
};
Estimate estimate(const std::vector<double>& samples);

struct KMetrics {
  std::size_t k = 0;            // requested
  std::size_t k_effective = 0;  // min(k, candidate blocks)
  Estimate recall;              // |selected_k & oracle_k| / k_effective
  std::vector<std::pair<std::size_t, Estimate>> recall_k_at_K;  // oracle top-k within selected K
  Estimate mass_recall;                                         // mass(selected_k) / mass(oracle_k)
  Estimate mass_coverage;           // (resident + selected mass) / total mass
  Estimate output_rel_error;        // |o_sparse - o_full| / |o_full|
  Estimate fetched_fraction;        // (resident + selected tokens) / T, per KV head
  Estimate needle_hit;              // per (head, step, needle)
  Estimate needle_hit_union;        // per (layer, step, needle): any KV head of the layer hit it
  Estimate union_fetched_fraction;  // per (layer, step): tokens fetched by any KV head / T
  // Traffic ledger, bytes per KV head per decode step (K and V read, summaries read).
  double metadata_bytes = 0, selected_bytes = 0, resident_bytes = 0;
  double bytes_per_step = 0, full_scan_bytes = 0, traffic_reduction = 0;
};

struct ScorerReport {
  std::string name;
  std::vector<KMetrics> per_k;
};

struct EvalSetup {
  std::string name;  // label in the report, e.g. "signature:pca:d32"
  ScorerFactory factory;
  ScorerOptions options;
};

struct EvalReport {
  std::size_t tokens = 0, blocks = 0, candidates = 0, resident_tokens = 0;
  std::size_t heads = 0, steps = 0, needles = 0;
  std::vector<ScorerReport> scorers;
};

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

// Evaluates every setup on every (layer, KV head) of `cache`, heads in parallel.
EvalReport evaluate(const KvCache& cache, const std::vector<EvalSetup>& setups,
                    const EvalOptions& options, Context& ctx);

}  // namespace lightsim::kv
