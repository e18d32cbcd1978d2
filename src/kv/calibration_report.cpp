// Calibration report output: JSON and text (calibration.h).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "lightsim/core/json.h"
#include "lightsim/kv/calibration.h"

namespace lightsim::kv {

Json to_json(const CalibrationReport& r) {
  Json targets = Json::array();
  std::size_t within = 0, outside = 0, not_computable = 0;
  for (const auto& c : r.targets) {
    const auto& t = c.target;
    within += c.verdict == Verdict::within;
    outside += c.verdict == Verdict::outside;
    not_computable += c.verdict == Verdict::not_computable;
    Json j = {{"id", t.id},
              {"kind", t.statistic},
              {"model", t.model},
              {"context_tokens", t.context_tokens},
              {"setting", t.setting},
              {"measured", t.value},
              {"band", t.band},
              {"use", t.use},
              {"source", t.source},
              {"where", t.where},
              {"ours", to_json(c.ours)},
              {"verdict", std::string(verdict_name(c.verdict))}};
    if (c.verdict != Verdict::not_computable) {
      j["deviation"] = c.deviation;
      j["relative_deviation"] = c.relative_deviation;
    }
    targets.push_back(std::move(j));
  }
  const auto& o = r.options;
  return {
      {"profile", r.profile},
      {"source", r.source},
      {"measurements", r.measurements},
      {"model_layers", r.model_layers},
      {"layers", r.layers},
      {"kv_heads", r.geometry.kv_heads},
      {"q_heads", r.geometry.q_heads},
      {"tokens", r.geometry.tokens},
      {"steps", r.geometry.steps},
      {"options",
       {{"early_layers", o.early_layers},
        {"retrieval_score_threshold", o.retrieval_score_threshold},
        {"streaming_sink_tokens", o.streaming_sink},
        {"streaming_recent_tokens", o.streaming_recent},
        {"streaming_mass", o.streaming_mass},
        {"variance_fraction", o.variance_fraction},
        {"sparsity_ratio", o.sparsity_ratio}}},
      {"targets", targets},
      {"summary", {{"within", within}, {"outside", outside}, {"not_computable", not_computable}}}};
}

std::string to_text(const CalibrationReport& r) {
  const auto& g = r.geometry;
  std::string out = fmt::format(
      "kv calibrate {}: {} (layers {} of {}, {} KV heads, {} query heads, T = {}, {} decode "
      "steps) against {}\n",
      r.profile, r.source, fmt::join(r.layers, ","), r.model_layers, g.kv_heads, g.q_heads,
      g.tokens, g.steps, r.measurements);
  out += fmt::format("{:<38} {:<32} {:>9} {:>17} {:>17} {:>10}  {}\n", "target", "kind", "measured",
                     "band", "ours (95% CI)", "deviation", "verdict");
  std::size_t within = 0;
  for (const auto& c : r.targets) {
    const auto& t = c.target;
    const std::string band = fmt::format("[{:.4g}, {:.4g}]", t.band[0], t.band[1]);
    const std::string ours =
        c.ours.n ? fmt::format("{:.4g} +- {:.2g}", c.ours.mean, c.ours.ci95) : std::string("-");
    const std::string dev = c.verdict == Verdict::not_computable
                                ? std::string("-")
                                : fmt::format("{:+.4g}", c.deviation);
    within += c.verdict == Verdict::within;
    out += fmt::format("{:<38} {:<32} {:>9.4g} {:>17} {:>17} {:>10}  {} ({})\n", t.id, t.statistic,
                       t.value, band, ours, dev, verdict_name(c.verdict), t.use);
  }
  out += fmt::format(
      "{} of {} targets within band. Measured at the source's own context (see --json "
      "context_tokens); ours at T = {}. Definitions: docs/kv-data.md, \"Calibration targets\".\n",
      within, r.targets.size(), g.tokens);
  return out;
}

}  // namespace lightsim::kv
