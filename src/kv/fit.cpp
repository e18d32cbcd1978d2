// The knob fit of fit.h: statistics of a cache, coordinate descent, the profile document.
#include "lightsim/kv/fit.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "lightsim/core/error.h"
#include "lightsim/kv/stats.h"

namespace lightsim::kv {

namespace {

constexpr std::size_t kMinTokens = 64;

// A fitted knob: its spec field, range and first step.
struct KnobDef {
  std::string_view name;
  double KvGeneratorSpec::*field;
  double low, high, step;
};

// The knobs, in search order, each the main lever of one statistic: noise_scale the
// post-RoPE key rank, spectrum_decay the value rank, sink_logit the sink mass,
// local_correlation adjacent-value similarity, diffuse_logit the tokens for 90% of the mass.
constexpr KnobDef kKnobs[] = {
    {"noise_scale", &KvGeneratorSpec::noise_scale, 0.0, 2.0, 0.25},
    {"spectrum_decay", &KvGeneratorSpec::spectrum_decay, 0.0, 3.0, 0.4},
    {"sink_logit", &KvGeneratorSpec::sink_logit, 0.0, 20.0, 2.0},
    {"local_correlation", &KvGeneratorSpec::local_correlation, 0.0, 0.99, 0.1},
    {"diffuse_logit", &KvGeneratorSpec::diffuse_logit, 0.0, 20.0, 2.0},
};
constexpr double kMinStep = 1.0 / 16;  // of the first step
constexpr int kGrid = 6;               // values per knob in the first pass

double mean_of(const std::vector<HeadStats>& heads,
               const std::function<double(const HeadStats&)>& f) {
  double s = 0;
  for (const auto& h : heads) s += f(h);
  return heads.empty() ? 0.0 : s / static_cast<double>(heads.size());
}

// Statistic name, value and its error scale (the resolution a fit is judged at).
std::vector<FitStatistic> statistics_of(const KvCache& cache, const FitOptions& o, Context& ctx) {
  StatsOptions so;
  so.recent_tokens = o.recent_tokens;
  const StatsReport r = calibration_report(cache, so, ctx);
  const double dim = static_cast<double>(cache.geometry().head_dim);
  std::vector<FitStatistic> out;
  auto add = [&](std::string name, double v, double scale) {
    out.push_back({.name = std::move(name), .target = v, .fitted = 0, .scale = scale});
  };
  // Per KV head over its values (the latent unrotated, without the key offsets): the rank
  // at 90% of the centered variance and the adjacent-token cosine after centering.
  double value_rank = 0, value_cos = 0;
  const KvGeometry g = cache.geometry();
  for (std::size_t l = 0; l < g.layers; ++l)
    for (std::size_t h = 0; h < g.kv_heads; ++h) {
      const HeadView v = cache.head(l, h);
      const std::size_t stride = std::max<std::size_t>(1, v.tokens / 4096);
      std::vector<float> sub;
      for (std::size_t t = 0; t < v.tokens; t += stride)
        sub.insert(sub.end(), v.value(t), v.value(t) + v.head_dim);
      value_rank += static_cast<double>(
          rank_for_variance(sub.data(), sub.size() / v.head_dim, v.head_dim, 0.9));
      value_cos += adjacent_cosine(v.values, v.tokens, v.head_dim, true);
    }
  const double heads = static_cast<double>(g.layers * g.kv_heads);
  add("rank90_post_rope", mean_of(r.heads, [](const HeadStats& h) { return double(h.rank_post); }),
      std::max(1.0, 0.03 * dim));
  add("value_rank90", value_rank / heads, std::max(1.0, 0.03 * dim));
  add("sink_mass", mean_of(r.heads, [](const HeadStats& h) { return h.sink_mass; }), 0.03);
  add("recent_mass", mean_of(r.heads, [](const HeadStats& h) { return h.recent_mass; }), 0.03);
  add("tokens90_fraction", mean_of(r.heads, [](const HeadStats& h) { return h.tokens90_fraction; }),
      0.02);
  add("adjacent_value_cos_centered", value_cos / heads, 0.02);
  return out;
}

// The spec of a synthetic cache with `cache`'s geometry, starting from `start`.
KvGeneratorSpec geometry_spec(const KvCache& cache, KvGeneratorSpec spec) {
  const KvGeometry g = cache.geometry();
  std::size_t top = 0;
  for (std::size_t id : cache.layer_ids) top = std::max(top, id);
  spec.model_layers = static_cast<std::int64_t>(top + 1);
  spec.layers.assign(cache.layer_ids.begin(), cache.layer_ids.end());
  spec.kv_heads = static_cast<std::int64_t>(g.kv_heads);
  spec.q_heads = static_cast<std::int64_t>(g.q_heads);
  spec.head_dim = static_cast<std::int64_t>(g.head_dim);
  spec.tokens = static_cast<std::int64_t>(g.tokens);
  spec.steps = static_cast<std::int64_t>(g.steps);
  spec.key_rank = std::min(spec.key_rank, spec.head_dim);
  spec.outlier_pairs = std::min(spec.outlier_pairs, spec.head_dim / 4);
  if (cache.rope_base > 0) spec.rope_base = cache.rope_base;
  spec.rope_ntk_factor = 1;  // the cache's base is the one it was rotated with
  spec.needle_depths.clear();
  if (!cache.needles.empty()) {
    const std::size_t len = cache.needles.front().end - cache.needles.front().begin;
    spec.needle_tokens = static_cast<std::int64_t>(std::max<std::size_t>(1, len));
    const double span = static_cast<double>(g.tokens - std::min(g.tokens, len));
    for (const auto& n : cache.needles)
      spec.needle_depths.push_back(
          span > 0 ? std::min(1.0, (static_cast<double>(n.begin) + 0.5) / span) : 0.0);
  }
  return spec;
}

double loss_of(const std::vector<FitStatistic>& s) {
  double l = 0;
  for (const auto& x : s) l += x.error() * x.error();
  return l;
}

}  // namespace

std::vector<std::string> fit_knob_names() {
  std::vector<std::string> out;
  for (const auto& k : kKnobs) out.emplace_back(k.name);
  return out;
}

std::vector<FitStatistic> fit_statistics(const KvCache& cache, const FitOptions& options,
                                         Context& ctx) {
  return statistics_of(cache, options, ctx);
}

FitResult fit_kv_cache(const KvCache& cache, const KvGeneratorSpec& start, const FitOptions& o,
                       Context& ctx) {
  const KvGeometry g = cache.geometry();
  std::vector<const KnobDef*> knobs;
  for (const auto& k : kKnobs)
    if (o.knobs.empty() || std::find(o.knobs.begin(), o.knobs.end(), k.name) != o.knobs.end())
      knobs.push_back(&k);
  for (const auto& name : o.knobs)
    LIGHTSIM_CHECK_AS(UsageError,
                      std::any_of(std::begin(kKnobs), std::end(kKnobs),
                                  [&](const KnobDef& k) { return k.name == name; }),
                      "knobs: unknown knob '{}' (known: {})", name,
                      fmt::join(fit_knob_names(), ", "));
  LIGHTSIM_CHECK_AS(DataFormatError, g.tokens >= kMinTokens,
                    "kv fit: the cache holds {} tokens; fitting needs at least {}", g.tokens,
                    kMinTokens);
  FitResult r;
  r.source = cache.source;
  r.geometry = g;
  r.layers = cache.layer_ids;
  r.rope_base = cache.rope_base;
  r.statistics = statistics_of(cache, o, ctx);
  for (const auto& s : r.statistics)
    LIGHTSIM_CHECK_AS(DataFormatError, std::isfinite(s.target),
                      "kv fit: the cache's {} is not finite (NaN or infinite keys or queries)",
                      s.name);
  KvGeneratorSpec spec = geometry_spec(cache, start);
  require_generator_memory(spec, ctx.memory_budget(), ctx.threads());

  // Loss of a candidate: its cache's statistics against the target ones (same order).
  auto evaluate = [&](const KvGeneratorSpec& candidate, std::vector<FitStatistic>* out) {
    ++r.evaluations;
    const KvCache synthetic = generate_kv_cache(candidate, ctx);
    std::vector<FitStatistic> fitted = statistics_of(synthetic, o, ctx);
    std::vector<FitStatistic> s = r.statistics;
    for (std::size_t i = 0; i < s.size(); ++i) s[i].fitted = fitted[i].target;
    ctx.throw_if_cancelled("kv fit");
    const double l = loss_of(s);
    if (out) *out = std::move(s);
    return l;
  };

  std::vector<FitStatistic> best_stats;
  double best = evaluate(spec, &best_stats);
  for (const auto& k : kKnobs) spec.*k.field = std::clamp(spec.*k.field, k.low, k.high);
  // Tries `spec` with knob k at `value`; keeps it when the loss drops.
  auto try_value = [&](const KnobDef& k, double value) {
    KvGeneratorSpec c = spec;
    c.*k.field = std::clamp(value, k.low, k.high);
    if (c.*k.field == spec.*k.field || r.evaluations >= o.max_evaluations) return false;
    std::vector<FitStatistic> s;
    const double l = evaluate(c, &s);
    if (l >= best) return false;
    best = l;
    best_stats = std::move(s);
    spec = c;
    return true;
  };
  for (std::size_t pass = 0; pass < o.passes && r.evaluations < o.max_evaluations; ++pass) {
    const double before = best;
    for (const KnobDef* kp : knobs) {
      const KnobDef& k = *kp;
      // First pass: the best of kGrid evenly spaced values over the knob's range (a start far
      // from the cache's knobs does not trap the descent); then +- step, halved when neither
      // side improves, down to kMinStep of the first step.
      if (pass == 0)
        for (int i = 0; i < kGrid; ++i) try_value(k, k.low + (k.high - k.low) * i / (kGrid - 1));
      for (double step = k.step / static_cast<double>(1 << std::min<std::size_t>(pass, 4));
           step >= k.step * kMinStep && r.evaluations < o.max_evaluations;)
        if (!try_value(k, spec.*k.field + step) && !try_value(k, spec.*k.field - step)) step /= 2;
    }
    if (!(best < before)) break;
  }

  r.statistics = best_stats;
  r.loss = best;
  r.spec = spec;
  for (const KnobDef* kp : knobs) {
    const KnobDef& k = *kp;
    r.knobs.push_back({.name = std::string(k.name),
                       .start = std::clamp(start.*k.field, k.low, k.high),
                       .value = spec.*k.field,
                       .low = k.low,
                       .high = k.high});
  }
  for (const auto& s : r.statistics) {
    if (std::abs(s.error()) <= o.tolerance) continue;
    std::string bounds;
    for (const auto& k : r.knobs)
      if (k.at_bound())
        bounds += fmt::format("{} {} at its bound {}", bounds.empty() ? ";" : ",", k.name, k.value);
    LIGHTSIM_THROW(DataFormatError,
                   "kv fit: the generator cannot reach the cache's {} = {:.4g} (best {:.4g}, "
                   "{:.1f} scales of {:.3g} off; tolerance {}){}",
                   s.name, s.target, s.fitted, s.error(), s.scale, o.tolerance, bounds);
  }
  return r;
}

}  // namespace lightsim::kv
