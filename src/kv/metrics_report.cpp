// The retrieval report as JSON and text (metrics.h), for every adapter (CLI, Python).
#include <fmt/format.h>

#include "lightsim/kv/metrics.h"

namespace lightsim::kv {
Json to_json(const Estimate& e) {
  return {{"mean", e.mean}, {"ci95", e.ci95}, {"n", e.n}};
}

namespace {

Json estimates_json(const std::vector<Estimate>& v) {
  Json a = Json::array();
  for (const Estimate& e : v) a.push_back(to_json(e));
  return a;
}

Json metrics_json(const KMetrics& m) {
  Json kk = Json::object();
  for (const auto& [big, e] : m.recall_k_at_K) kk[std::to_string(big)] = to_json(e);
  return {{"k_effective", m.k_effective},
          {"recall", to_json(m.recall)},
          {"recall_projected", to_json(m.recall_projected)},
          {"recall_k_at_K", kk},
          {"mass_recall", to_json(m.mass_recall)},
          {"mass_coverage", to_json(m.mass_coverage)},
          {"output_rel_error", to_json(m.output_rel_error)},
          {"fetched_fraction", to_json(m.fetched_fraction)},
          {"needle_hit", to_json(m.needle_hit)},
          {"needle_hit_union", to_json(m.needle_hit_union)},
          {"union_fetched_fraction", to_json(m.union_fetched_fraction)},
          {"needle_hit_by_head", estimates_json(m.needle_hit_by_head)},
          {"needle_hit_by_needle", estimates_json(m.needle_hit_by_needle)},
          {"needle_hit_union_by_needle", estimates_json(m.needle_hit_union_by_needle)},
          {"metadata_bytes", m.metadata_bytes},
          {"selected_bytes", m.selected_bytes},
          {"resident_bytes", m.resident_bytes},
          {"bytes_per_step", m.bytes_per_step},
          {"full_scan_bytes", m.full_scan_bytes},
          {"traffic_reduction", m.traffic_reduction}};
}

}  // namespace

Json to_json(const EvalReport& r) {
  Json results = Json::object();
  for (const ScorerReport& s : r.scorers) {
    Json per_k = Json::object();
    for (const KMetrics& m : s.per_k) per_k[std::to_string(m.k)] = metrics_json(m);
    results[s.name] = per_k;
  }
  return {{"source", r.source},
          {"tokens", r.tokens},
          {"block_tokens", r.block_tokens},
          {"blocks", r.blocks},
          {"candidate_blocks", r.candidates},
          {"resident_tokens", r.resident_tokens},
          {"kv_heads_evaluated", r.heads},
          {"steps", r.steps},
          {"needles", r.needles},
          {"results", results}};
}

std::string to_text(const EvalReport& r) {
  std::string out = fmt::format(
      "{}: {} tokens, {} blocks of {} ({} candidates), {} resident tokens, {} KV heads x {} "
      "steps, {} needles\n",
      r.source, r.tokens, r.blocks, r.block_tokens, r.candidates, r.resident_tokens, r.heads,
      r.steps, r.needles);
  out += fmt::format("{:<22} {:>5} {:>15} {:>8} {:>8} {:>8} {:>7} {:>7} {:>8} {:>10} {:>8}\n",
                     "scorer", "k", "recall@k", "mass_rec", "mass_cov", "out_err", "needle",
                     "n_union", "fetched", "bytes/step", "traffic");
  for (const ScorerReport& s : r.scorers)
    for (const KMetrics& m : s.per_k)
      out += fmt::format(
          "{:<22} {:>5} {:>8.3f}+-{:<5.3f} {:>8.3f} {:>8.3f} {:>8.4f} {:>7.3f} {:>7.3f} {:>8.3f} "
          "{:>10.4g} {:>7.1f}x\n",
          s.name, m.k, m.recall.mean, m.recall.ci95, m.mass_recall.mean, m.mass_coverage.mean,
          m.output_rel_error.mean, m.needle_hit.mean, m.needle_hit_union.mean,
          m.fetched_fraction.mean, m.bytes_per_step, m.traffic_reduction);
  return out;
}

}  // namespace lightsim::kv
