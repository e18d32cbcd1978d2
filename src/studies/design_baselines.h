// The prism_design study's comparison with the GPU's own selectors at equal recall
// (docs/prism.md, "GPU baselines at equal recall"; docs/studies.md, "prism_design").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lightsim/core/context.h"
#include "lightsim/prism/design.h"
#include "lightsim/studies/design.h"
#include "lightsim/studies/runner.h"

namespace lightsim::studies::design_detail {

// One GPU selector's recall on the design's workload at one (block_tokens, k), mean +- 95% CI
// over (layer, KV head, step) samples (kv::evaluate). upper_bound: the figure is an ideal
// stand-in (dsa_indexer: the exact q.k scorer, kv "exact"; a trained indexer can only do worse).
struct BaselineRecall {
  std::string selector;
  std::int64_t block_tokens = 0, top_k = 0;
  double recall = 0, recall_ci = 0, mass_recall = 0, mass_recall_ci = 0;
  bool upper_bound = false;
};

// The selectors' recalls on a cache generated from spec.workload (the search's cache: same
// spec, same seed), at every (block_tokens, top_k) of the candidates.
std::vector<BaselineRecall> baseline_recalls(const prism::PrismDesignSpec& spec,
                                             const DesignBaselinesSpec& baselines,
                                             const prism::DesignResult& r, Context& ctx);

// Prism at `batch` sequences per decode step (one query per sequence, layer and KV head; the
// layers in sequence, a layer's queries back to back on its KV head's bank): energy = queries x
// energy_per_query (static shares at full rate), time = layers (latency + (batch - 1) interval).
struct PrismStep {
  double energy = 0, time = 0;  // J, s per decode step
};
PrismStep prism_step(const prism::DesignFigures& f, const kv::KvGeneratorSpec& workload,
                     std::int64_t batch);

// The tables gpu_baselines, vs_gpu and step_costs, one claim per selector and the chart.
void add_gpu_baselines(RunBase& run, const DesignStudySpec& spec, const prism::DesignResult& r);

}  // namespace lightsim::studies::design_detail
