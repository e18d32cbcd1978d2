// Equal-bytes comparisons (equal_bytes.h).
#include "lightsim/kv/equal_bytes.h"

#include <fmt/format.h>

#include <cmath>
#include <optional>

#include "lightsim/core/error.h"

namespace lightsim::kv {

void check_selection(const ScorerChoice& choice, std::span<const std::size_t> ks,
                     const BlockOptions& blocks, const KvGeometry& cache) {
  const BlockLayout layout(cache.tokens, blocks);
  const SummaryGeometry g{cache.tokens, cache.head_dim, layout.blocks(), layout.block_tokens()};
  for (std::size_t k : ks)
    require_cache_range("k (--k)", static_cast<std::int64_t>(k), 1,
                        static_cast<std::int64_t>(layout.blocks()),
                        fmt::format("{} tokens in {} blocks of {} (--block)", cache.tokens,
                                    layout.blocks(), layout.block_tokens()));
  LIGHTSIM_CHECK(choice.scorers != nullptr, "check_selection: no scorer family");
  check_scorers(choice.labels, choice.options, *choice.scorers, choice.env, g);
}

SelectReport select_blocks(const KvCache& cache, const std::vector<ScorerSetup>& setups,
                           const ScorerChoice& choice, const EvalOptions& options,
                           std::span<const double> budgets, Context& ctx) {
  for (double b : budgets)
    LIGHTSIM_CHECK_AS(InputError, std::isfinite(b) && b > 0,
                      "budget_bytes: {} is not a positive number of metadata bytes per block", b);
  LIGHTSIM_CHECK(budgets.empty() || choice.scorers != nullptr,
                 "select_blocks: budgets need the scorer family");
  const KvGeometry& kg = cache.geometry();
  const BlockLayout layout(kg.tokens, options.blocks);
  const SummaryGeometry g{kg.tokens, kg.head_dim, layout.blocks(), layout.block_tokens()};
  std::vector<ScorerSetup> all = setups;
  SelectReport report;
  std::vector<std::vector<std::optional<std::size_t>>> where;  // [budget][row]: index in `all`
  for (double budget : budgets) {
    std::vector<BudgetFit> fits =
        fit_scorers(choice.labels, choice.options, *choice.scorers, choice.env, g, budget);
    LIGHTSIM_CHECK(fits.size() == setups.size(), "select_blocks: {} fits for {} setups",
                   fits.size(), setups.size());
    BudgetSection section{budget, {}};
    where.emplace_back();
    for (std::size_t i = 0; i < fits.size(); ++i) {
      BudgetFit& f = fits[i];
      section.rows.push_back({setups[i].name, "", f.knob, f.bytes_per_block, f.reason, {}});
      where.back().emplace_back();
      if (!f.setting) continue;
      where.back().back() = all.size();
      all.push_back(std::move(*f.setting));
    }
    report.equal_bytes.push_back(std::move(section));
  }
  EvalReport full = evaluate(cache, all, options, ctx);
  for (std::size_t b = 0; b < report.equal_bytes.size(); ++b)
    for (std::size_t i = 0; i < setups.size(); ++i) {
      if (!where[b][i]) continue;
      BudgetRow& row = report.equal_bytes[b].rows[i];
      const ScorerReport& s = full.scorers[*where[b][i]];
      row.configured = s.name;
      row.per_k = s.per_k;
      // The size rule and the ledger are one definition: they agree.
      const double ledger = per_block(s.per_k.front().metadata_bytes, g);
      LIGHTSIM_CHECK(std::abs(ledger - row.bytes_per_block) <= 1e-9 * row.bytes_per_block,
                     "{}: the size rule gives {} B per block, the ledger {}", s.name,
                     row.bytes_per_block, ledger);
    }
  full.scorers.resize(setups.size());
  report.equal_k = std::move(full);
  return report;
}

Json to_json(const SelectReport& r) {
  Json out = to_json(r.equal_k);
  if (r.equal_bytes.empty()) return out;
  Json sections = Json::array();
  for (const BudgetSection& s : r.equal_bytes) {
    Json results = Json::object();
    for (const BudgetRow& row : s.rows) {
      if (row.configured.empty()) {
        results[row.scorer] = {
            {"fits", false}, {"bytes_per_block", row.bytes_per_block}, {"reason", row.reason}};
        continue;
      }
      Json recall = Json::object();
      for (const KMetrics& m : row.per_k) recall[std::to_string(m.k)] = to_json(m.recall);
      results[row.scorer] = {{"fits", true},
                             {"configured", row.configured},
                             {"setting", row.knob},
                             {"bytes_per_block", row.bytes_per_block},
                             {"recall", recall}};
    }
    sections.push_back({{"budget_bytes", s.budget}, {"results", results}});
  }
  out["equal_bytes"] = sections;
  return out;
}

std::string to_text(const SelectReport& r) {
  std::string out = to_text(r.equal_k);
  if (r.equal_bytes.empty()) return out;
  out += "equal bytes: each scorer at the largest setting whose metadata fits the budget\n";
  out += fmt::format("{:>10} {:<22} {:<22} {:<10} {:>9}  {}\n", "B/block", "scorer", "configured",
                     "setting", "used B", "recall@k +- 95% CI");
  for (const BudgetSection& s : r.equal_bytes)
    for (const BudgetRow& row : s.rows) {
      if (row.configured.empty()) {
        out += fmt::format("{:>10.6g} {:<22} does not fit: {}\n", s.budget, row.scorer, row.reason);
        continue;
      }
      std::string recalls;
      for (const KMetrics& m : row.per_k)
        recalls += fmt::format("  @{} {:.3f}+-{:.3f}", m.k, m.recall.mean, m.recall.ci95);
      out += fmt::format("{:>10.6g} {:<22} {:<22} {:<10} {:>9.6g}{}\n", s.budget, row.scorer,
                         row.configured, row.knob.empty() ? "-" : row.knob, row.bytes_per_block,
                         recalls);
    }
  return out;
}

}  // namespace lightsim::kv
