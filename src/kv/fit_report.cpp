// Fit output: the profile document, JSON and text (fit.h).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "lightsim/core/json.h"
#include "lightsim/kv/fit.h"

namespace lightsim::kv {

std::string profile_yaml(const KvGeneratorSpec& s, std::string_view header) {
  std::string y = std::string(header);
  y += "schema_version: 1\nkind: kv_synthetic\n";
  y += fmt::format("model: \"{}\"\n", s.model);
  y += fmt::format("model_layers: {}\nlayers: [{}]\n", s.model_layers, fmt::join(s.layers, ", "));
  y += fmt::format("kv_heads: {}\nq_heads: {}\nhead_dim: {}\nrope_base: {}\n", s.kv_heads,
                   s.q_heads, s.head_dim, s.rope_base);
  y += fmt::format("tokens: {}\nsteps: {}\ndtype: {}\n", s.tokens, s.steps, s.dtype);
  y += fmt::format("key_rank: {}\nspectrum_decay: {}\nkey_scale: {}\nnoise_scale: {}\n", s.key_rank,
                   s.spectrum_decay, s.key_scale, s.noise_scale);
  y += fmt::format("offset_scale: {}\noutlier_pairs: {}\noutlier_scale: {}\n", s.offset_scale,
                   s.outlier_pairs, s.outlier_scale);
  y += fmt::format("semantic_wavelength: {}\nsegment_tokens: {}\ntopic_weight: {}\n",
                   s.semantic_wavelength, s.segment_tokens, s.topic_weight);
  y += fmt::format("local_correlation: {}\nsink_logit: {}\nsink_logit_streaming: {}\n",
                   s.local_correlation, s.sink_logit, s.sink_logit_streaming);
  y += fmt::format("retrieval_fraction: {}\nstreaming_fraction: {}\n", s.retrieval_fraction,
                   s.streaming_fraction);
  y += fmt::format("early_layers: {}\nearly_retrieval_fraction: {}\nearly_streaming_fraction: {}\n",
                   s.early_layers, s.early_retrieval_fraction, s.early_streaming_fraction);
  y += fmt::format("retrieval_group_share: {}\nretrieval_logit: {}\nstreaming_logit: {}\n",
                   s.retrieval_group_share, s.retrieval_logit, s.streaming_logit);
  y += fmt::format("diffuse_logit: {}\nquery_ood: {}\nquery_bias: {}\n", s.diffuse_logit,
                   s.query_ood, s.query_bias);
  y += fmt::format("query_drift: {}\nquery_jitter: {}\ntarget_switch: {}\n", s.query_drift,
                   s.query_jitter, s.target_switch);
  y += fmt::format("needle_depths: [{}]\nneedle_tokens: {}\nneedle_norm_matched: {}\n",
                   fmt::join(s.needle_depths, ", "), s.needle_tokens, s.needle_norm_matched);
  y += fmt::format("sink_logit_exact: {}\n", s.sink_logit_exact);
  return y;
}

Json to_json(const FitResult& r) {
  Json stats = Json::array(), knobs = Json::array();
  for (const auto& s : r.statistics)
    stats.push_back({{"name", s.name},
                     {"cache", s.target},
                     {"fitted", s.fitted},
                     {"scale", s.scale},
                     {"error_scales", s.error()}});
  for (const auto& k : r.knobs)
    knobs.push_back({{"name", k.name},
                     {"start", k.start},
                     {"fitted", k.value},
                     {"range", {k.low, k.high}},
                     {"at_bound", k.at_bound()}});
  return {{"source", r.source},
          {"layers", r.layers},
          {"kv_heads", r.geometry.kv_heads},
          {"q_heads", r.geometry.q_heads},
          {"head_dim", r.geometry.head_dim},
          {"tokens", r.geometry.tokens},
          {"steps", r.geometry.steps},
          {"rope_base", r.rope_base},
          {"statistics", stats},
          {"knobs", knobs},
          {"loss", r.loss},
          {"evaluations", r.evaluations},
          {"profile", r.profile_yaml},
          {"written", r.written}};
}

std::string to_text(const FitResult& r) {
  const auto& g = r.geometry;
  std::string out = fmt::format(
      "kv fit {}: layers {}, {} KV heads, {} query heads, D = {}, T = {}, {} steps, rope_base "
      "{}\n",
      r.source, fmt::join(r.layers, ","), g.kv_heads, g.q_heads, g.head_dim, g.tokens, g.steps,
      r.rope_base);
  out += fmt::format("{:<28} {:>10} {:>10} {:>8} {:>8}\n", "statistic", "cache", "fitted", "scale",
                     "error");
  for (const auto& s : r.statistics)
    out += fmt::format("{:<28} {:>10.4g} {:>10.4g} {:>8.3g} {:>+8.2f}\n", s.name, s.target,
                       s.fitted, s.scale, s.error());
  out += fmt::format("{:<28} {:>10} {:>10} {:>16}\n", "knob", "start", "fitted", "range");
  for (const auto& k : r.knobs)
    out += fmt::format("{:<28} {:>10.4g} {:>10.4g} {:>16}{}\n", k.name, k.start, k.value,
                       fmt::format("[{}, {}]", k.low, k.high), k.at_bound() ? "  at bound" : "");
  out += fmt::format(
      "loss {:.4g} (sum of squared errors in scales) after {} candidate caches{}\n", r.loss,
      r.evaluations,
      r.written.empty() ? std::string() : fmt::format("; profile written to {}", r.written));
  return out;
}

}  // namespace lightsim::kv
