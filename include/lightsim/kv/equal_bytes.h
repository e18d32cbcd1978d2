// Equal-bytes comparisons (docs/metrics.md, "Equal bytes"): each scorer configured at the
// largest setting whose metadata fits a budget of bytes per block (fit_scorers,
// scorer_setup.h), evaluated in the same kv::evaluate call as the equal-k setups (so the
// exact attention is computed once), and reported beside them.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "lightsim/core/context.h"
#include "lightsim/core/json.h"
#include "lightsim/kv/metrics.h"
#include "lightsim/kv/scorer_setup.h"

namespace lightsim::kv {

// One scorer at one budget.
struct BudgetRow {
  std::string scorer;           // the equal-k setup's label
  std::string configured;       // the label of the configured setup; "" when it does not fit
  std::string knob;             // the setting changed ("dim=48"); "" for a fixed-size scorer
  double bytes_per_block = 0;   // at the setting (or at the smallest setting: not fitting)
  std::string reason;           // why it does not fit; "" when it fits
  std::vector<KMetrics> per_k;  // in the order of EvalOptions::ks; empty when it does not fit
};

struct BudgetSection {
  double budget = 0;            // metadata bytes per block
  std::vector<BudgetRow> rows;  // in the order of the equal-k setups
};

// The equal-k report and, per budget, the equal-bytes rows.
struct SelectReport {
  EvalReport equal_k;
  std::vector<BudgetSection> equal_bytes;  // empty: no budgets given
};

// What fit_scorers needs to configure the equal-k setups' labels at a budget.
struct ScorerChoice {
  std::span<const std::string> labels;
  std::span<const ScorerOption> options;
  const ScorerFamily* scorers = nullptr;
  ScorerEnvironment env;
};

// What a selection over a cache of geometry `cache` allows, checked before the cache is read or
// generated (`kv select`, Python evaluate_kv): each k of `ks` (the ks the user gave: default
// ones are clipped to the candidate blocks, KMetrics::k_effective) in [1, blocks of the
// layout] (UsageError naming "k (--k)", the value and the blocks), then check_scorers of the
// choice at one head of the layout.
void check_selection(const ScorerChoice& choice, std::span<const std::size_t> ks,
                     const BlockOptions& blocks, const KvGeometry& cache);

// evaluate(cache, setups, options) and the equal-bytes rows at every budget (bytes per block,
// each > 0: else InputError). setups must be resolve_scorers(choice...). With no budgets the
// report is evaluate's.
SelectReport select_blocks(const KvCache& cache, const std::vector<ScorerSetup>& setups,
                           const ScorerChoice& choice, const EvalOptions& options,
                           std::span<const double> budgets, Context& ctx);

// to_json(equal_k) plus, with budgets, "equal_bytes": [{budget_bytes, results: {scorer:
// {fits, configured, setting, bytes_per_block, recall: {k: estimate}} or {fits: false,
// bytes_per_block, reason}}}] (docs/metrics.md).
Json to_json(const SelectReport& report);
// to_text(equal_k) plus, with budgets, one row per (budget, scorer).
std::string to_text(const SelectReport& report);

}  // namespace lightsim::kv
