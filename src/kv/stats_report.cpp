// Calibration report output: JSON and text (stats.h).
#include <algorithm>
#include <functional>

#include <fmt/format.h>

#include "lightsim/core/json.h"
#include "lightsim/kv/stats.h"

namespace lightsim::kv {
namespace {

struct Spread {
  double mean = 0, min = 0, max = 0;
};

Spread spread(const StatsReport& r, const std::function<double(const HeadStats&)>& f) {
  Spread s{0, 1e300, -1e300};
  for (const auto& h : r.heads) {
    const double v = f(h);
    s.mean += v / static_cast<double>(r.heads.size());
    s.min = std::min(s.min, v);
    s.max = std::max(s.max, v);
  }
  return s;
}

// Share of key outlier channels that sit in the lowest-frequency quarter of RoPE pairs
// (pair index i = channel mod D/2 >= 3/8 D; theta_i = base^(-2i/D) is smallest there).
double low_frequency_share(const StatsReport& r) {
  const std::size_t half = r.geometry.head_dim / 2;
  std::size_t total = 0, low = 0;
  for (const auto& h : r.heads)
    for (std::size_t c : h.key_outliers) {
      ++total;
      low += (c % half) * 4 >= half * 3;
    }
  return total ? static_cast<double>(low) / static_cast<double>(total) : 0.0;
}

using Field = std::pair<const char*, std::function<double(const HeadStats&)>>;
std::vector<Field> fields() {
  return {
      {"rank90_pre_rope", [](const HeadStats& h) { return static_cast<double>(h.rank_pre); }},
      {"rank90_post_rope", [](const HeadStats& h) { return static_cast<double>(h.rank_post); }},
      {"key_kurtosis_mean", [](const HeadStats& h) { return h.kurtosis_mean; }},
      {"key_kurtosis_max", [](const HeadStats& h) { return h.kurtosis_max; }},
      {"key_outlier_channels",
       [](const HeadStats& h) { return static_cast<double>(h.key_outliers.size()); }},
      {"value_outlier_channels",
       [](const HeadStats& h) { return static_cast<double>(h.value_outliers.size()); }},
      {"sink_mass", [](const HeadStats& h) { return h.sink_mass; }},
      {"recent_mass", [](const HeadStats& h) { return h.recent_mass; }},
      {"tokens90_fraction", [](const HeadStats& h) { return h.tokens90_fraction; }},
      {"adjacent_key_cos", [](const HeadStats& h) { return h.adjacent_cos; }},
      {"adjacent_key_cos_centered", [](const HeadStats& h) { return h.adjacent_cos_centered; }},
      {"qk_cos_mean", [](const HeadStats& h) { return h.qk_cos_mean; }},
      {"qk_cos_max", [](const HeadStats& h) { return h.qk_cos_max; }},
  };
}

}  // namespace

Json to_json(const StatsReport& r) {
  Json summary = Json::object();
  for (const auto& [name, f] : fields()) {
    const Spread s = spread(r, f);
    summary[name] = {{"mean", s.mean}, {"min", s.min}, {"max", s.max}};
  }
  summary["key_outliers_low_frequency_share"] = low_frequency_share(r);
  Json heads = Json::array();
  for (const auto& h : r.heads) {
    Json j = {{"layer", h.layer},
              {"kv_head", h.kv_head},
              {"key_outliers", h.key_outliers},
              {"value_outliers", h.value_outliers}};
    for (const auto& [name, f] : fields()) j[name] = f(h);
    heads.push_back(std::move(j));
  }
  return {{"source", r.source},
          {"layers", r.geometry.layers},
          {"kv_heads", r.geometry.kv_heads},
          {"q_heads", r.geometry.q_heads},
          {"head_dim", r.geometry.head_dim},
          {"tokens", r.geometry.tokens},
          {"steps", r.geometry.steps},
          {"rope_base", r.rope_base},
          {"recent_tokens", r.options.recent_tokens},
          {"summary", summary},
          {"tokens90_histogram", {{"edges", r.tokens90_edges}, {"counts", r.tokens90_hist}}},
          {"heads", heads}};
}

std::string to_text(const StatsReport& r) {
  const auto& g = r.geometry;
  std::string out = fmt::format(
      "{}: {} layer(s) x {} KV heads ({} query heads), D = {}, T = {}, {} decode steps, RoPE "
      "base {}\n",
      r.source, g.layers, g.kv_heads, g.q_heads, g.head_dim, g.tokens, g.steps, r.rope_base);
  out += fmt::format("{:<28} {:>10} {:>10} {:>10}\n", "statistic (over KV heads)", "mean", "min",
                     "max");
  for (const auto& [name, f] : fields()) {
    const Spread s = spread(r, f);
    out += fmt::format("{:<28} {:>10.4g} {:>10.4g} {:>10.4g}\n", name, s.mean, s.min, s.max);
  }
  out += fmt::format("key outliers in the lowest-frequency quarter of RoPE pairs: {:.0f}%\n",
                     100 * low_frequency_share(r));
  out += fmt::format("recent window for recent_mass: {} tokens; rank for {:.0f}% variance\n",
                     r.options.recent_tokens, 100 * r.options.variance_fraction);
  out += "tokens holding 90% of attention mass (fraction of context), per (query head, step):\n";
  for (std::size_t b = 0; b < r.tokens90_hist.size(); ++b)
    out += fmt::format("  ({:<5g}, {:<5g}]  {}\n", r.tokens90_edges[b], r.tokens90_edges[b + 1],
                       r.tokens90_hist[b]);
  return out;
}

}  // namespace lightsim::kv
