// Calibration targets and the statistic of each kind (calibration.h; definitions also in
// docs/kv-data.md "Calibration targets").
#include "lightsim/kv/calibration.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "lightsim/core/config_files.h"
#include "lightsim/core/error.h"
#include "lightsim/kv/attention.h"
#include "lightsim/kv/stats.h"

namespace lightsim::kv {

namespace {
constexpr std::array<std::string_view, 6> kKindNames = {
    "retrieval_head_fraction",       "early_retrieval_head_fraction", "streaming_head_fraction",
    "early_streaming_head_fraction", "key_rank90_post_rope",          "attention_sparsity_1pct"};
}  // namespace

std::span<const std::string_view> statistic_kind_names() {
  return kKindNames;
}

std::string_view statistic_kind_name(StatisticKind kind) {
  return kKindNames[static_cast<std::size_t>(kind)];
}

StatisticKind statistic_kind(std::string_view name) {
  for (std::size_t i = 0; i < kKindNames.size(); ++i)
    if (kKindNames[i] == name) return static_cast<StatisticKind>(i);
  LIGHTSIM_THROW(ConfigError, "unknown statistic kind '{}' (known: {})", name,
                 fmt::join(kKindNames, ", "));
}

void MeasuredStatistic::describe(config::Schema<MeasuredStatistic>& s) {
  using S = MeasuredStatistic;
  s.help("One published statistic of a real model's KV cache or attention.");
  s.field("id", &S::id, "unique name of the target").required();
  s.field("model", &S::model, "the measured model, as the source names it").required();
  s.field("profiles", &S::profiles, "lightsim KV profiles (configs/kv/ `model:`) it applies to")
      .min_items(1)
      .required();
  s.field("context_tokens", &S::context_tokens, "context length of the measurement in tokens")
      .range(std::int64_t{1}, std::int64_t{1} << 30)
      .required();
  s.field("setting", &S::setting, "task, data and method of the measurement").required();
  std::vector<std::string> kinds(kKindNames.begin(), kKindNames.end());
  s.field("kind", &S::statistic, "the statistic (docs/kv-data.md defines each)")
      .one_of(kinds)
      .required();
  s.field("value", &S::value, "the published figure, in the statistic's unit").required();
  s.field("band", &S::band, "[low, high] accepted for ours, stated before any fit").required();
  s.field("use", &S::use, "knob: meant to set generator knobs; check: only checks them")
      .one_of({"knob", "check"});
  s.field("source", &S::source, "paper (arXiv id) and data repository").required();
  s.field("where", &S::where, "table, figure or data file the value is read from").required();
  s.field("note", &S::note, "caveats: sibling model, secondary reading, ...");
  s.rule([](const S& v) -> std::optional<std::string> {
    if (v.band.size() != 2)
      return fmt::format("band: expected [low, high], got {} values", v.band.size());
    if (!(v.band[0] <= v.value && v.value <= v.band[1]))
      return fmt::format("band [{}, {}] does not contain value {}", v.band[0], v.band[1], v.value);
    return std::nullopt;
  });
}

void KvMeasurements::describe(config::Schema<KvMeasurements>& s) {
  s.help(
      "Published statistics of real models' KV caches (calibration targets of `lightsim kv "
      "calibrate`; not seed figures).");
  s.field("statistics", &KvMeasurements::statistics, "the targets").min_items(1).required();
  s.rule([](const KvMeasurements& v) -> std::optional<std::string> {
    std::set<std::string> ids;
    for (const auto& t : v.statistics)
      if (!ids.insert(t.id).second) return fmt::format("statistics: id '{}' repeats", t.id);
    return std::nullopt;
  });
}

KvMeasurements load_kv_measurements(const std::string& name_or_file,
                                    const config::LoadOptions& options) {
  const config::LoadOptions roots = options.roots_only();  // published figures never take --set
  return config::load_spec<KvMeasurements>(
      config::find_named(name_or_file, "references", roots, "reference"), roots);
}

std::vector<std::int64_t> calibration_layers(std::int64_t model_layers, std::size_t early,
                                             std::size_t body) {
  std::set<std::int64_t> layers;
  const auto e = std::min<std::int64_t>(static_cast<std::int64_t>(early), model_layers);
  for (std::int64_t l = 0; l < e; ++l) layers.insert(l);
  const std::int64_t rest = model_layers - e;
  if (rest > 0 && body > 0) {
    // body layer k = 1..body at e - 1 + round(k (L - e) / body): the last layer always, the
    // middle one for an even count
    const auto b = static_cast<std::int64_t>(std::min<std::size_t>(body, rest));
    for (std::int64_t k = 1; k <= b; ++k)
      layers.insert(e - 1 +
                    static_cast<std::int64_t>(
                        std::round(static_cast<double>(k * rest) / static_cast<double>(b))));
  }
  return {layers.begin(), layers.end()};
}

namespace {

// Per held layer: its weight (the number of model layers it stands for) among the layers a
// statistic concerns; 0 for a layer it does not concern.
std::vector<double> layer_weights(const KvCache& cache, bool early_only, std::int64_t model_layers,
                                  std::size_t early) {
  const std::size_t n = cache.geometry().layers;
  std::size_t body = 0;
  for (std::size_t l = 0; l < n; ++l) body += cache.layer_ids[l] >= early;
  const double body_weight =
      body ? std::max(0.0, static_cast<double>(model_layers) - static_cast<double>(early)) /
                 static_cast<double>(body)
           : 0.0;
  std::vector<double> w(n, 0.0);
  for (std::size_t l = 0; l < n; ++l) {
    const bool is_early = cache.layer_ids[l] < early;
    if (early_only)
      w[l] = is_early ? 1.0 : 0.0;
    else
      w[l] = is_early ? 1.0 : body_weight;
  }
  return w;
}

// Weighted mean and 95% CI (normal approximation with the weighted standard error
// sqrt(sum w_i^2 (x_i - mean)^2) / sum w_i, inflated by n / (n - 1)); equal weights give
// estimate()'s interval.
Estimate weighted_estimate(const std::vector<double>& x, const std::vector<double>& w) {
  Estimate e;
  double sw = 0, swx = 0;
  for (std::size_t i = 0; i < x.size(); ++i)
    if (w[i] > 0) {
      ++e.n;
      sw += w[i];
      swx += w[i] * x[i];
    }
  if (e.n == 0) return e;
  e.mean = swx / sw;
  if (e.n > 1) {
    double ss = 0;
    for (std::size_t i = 0; i < x.size(); ++i)
      if (w[i] > 0) ss += w[i] * w[i] * (x[i] - e.mean) * (x[i] - e.mean);
    const double n = static_cast<double>(e.n);
    e.ci95 = 1.96 * std::sqrt(ss * n / (n - 1)) / sw;
  }
  return e;
}

// Runs per_head(layer, kv_head) -> values (one per unit of that head) over every held head in
// parallel, and weights each unit by its layer's weight.
template <class PerHead>
Estimate over_heads(const KvCache& cache, const std::vector<double>& weights, Context& ctx,
                    PerHead per_head) {
  const KvGeometry& g = cache.geometry();
  std::vector<std::vector<double>> values(g.layers * g.kv_heads);
  parallel_for(
      ctx, values.size(),
      [&](std::size_t i) {
        const std::size_t layer = i / g.kv_heads;
        if (weights[layer] > 0) values[i] = per_head(layer, i % g.kv_heads);
      },
      1);
  std::vector<double> x, w;
  for (std::size_t i = 0; i < values.size(); ++i)
    for (double v : values[i]) {
      x.push_back(v);
      w.push_back(weights[i / g.kv_heads]);
    }
  return weighted_estimate(x, w);
}

bool in_needle(const KvCache& cache, std::size_t t) {
  for (const auto& n : cache.needles)
    if (t >= n.begin && t < n.end) return true;
  return false;
}

}  // namespace

Estimate retrieval_head_fraction(const KvCache& cache, bool early, std::int64_t model_layers,
                                 const CalibrationOptions& o, Context& ctx) {
  if (cache.needles.empty()) return {};
  const auto weights = layer_weights(cache, early, model_layers, o.early_layers);
  return over_heads(cache, weights, ctx, [&](std::size_t layer, std::size_t kv_head) {
    const HeadView h = cache.head(layer, kv_head);
    std::vector<double> is_retrieval(h.group), p;
    for (std::size_t g = 0; g < h.group; ++g) {
      std::size_t hits = 0;
      for (std::size_t s = 0; s < h.steps; ++s) {
        attention_weights(h, g, s, p);
        const auto top = static_cast<std::size_t>(std::max_element(p.begin(), p.end()) - p.begin());
        hits += in_needle(cache, top);
      }
      const double score = static_cast<double>(hits) / static_cast<double>(h.steps);
      is_retrieval[g] = score > o.retrieval_score_threshold ? 1.0 : 0.0;
    }
    return is_retrieval;
  });
}

Estimate streaming_head_fraction(const KvCache& cache, bool early, std::int64_t model_layers,
                                 const CalibrationOptions& o, Context& ctx) {
  const auto weights = layer_weights(cache, early, model_layers, o.early_layers);
  return over_heads(cache, weights, ctx, [&](std::size_t layer, std::size_t kv_head) {
    const HeadView h = cache.head(layer, kv_head);
    const std::size_t sink = std::min(o.streaming_sink, h.tokens);
    const std::size_t recent_begin = h.tokens - std::min(o.streaming_recent, h.tokens);
    std::vector<double> p;
    double mass = 0;
    for (std::size_t g = 0; g < h.group; ++g)
      for (std::size_t s = 0; s < h.steps; ++s) {
        attention_weights(h, g, s, p);
        for (std::size_t t = 0; t < h.tokens; ++t)
          if (t < sink || t >= recent_begin) mass += p[t];
      }
    mass /= static_cast<double>(h.group * h.steps);
    return std::vector<double>{mass >= o.streaming_mass ? 1.0 : 0.0};
  });
}

Estimate key_rank90_post_rope(const KvCache& cache, std::int64_t model_layers,
                              const CalibrationOptions& o, Context& ctx) {
  const auto weights = layer_weights(cache, false, model_layers, o.early_layers);
  return over_heads(cache, weights, ctx, [&](std::size_t layer, std::size_t kv_head) {
    const HeadView h = cache.head(layer, kv_head);
    return std::vector<double>{static_cast<double>(
        key_rank(h, cache.rope_base, false, o.variance_fraction, o.max_rank_tokens))};
  });
}

Estimate attention_sparsity(const KvCache& cache, std::int64_t model_layers,
                            const CalibrationOptions& o, Context& ctx) {
  const auto weights = layer_weights(cache, false, model_layers, o.early_layers);
  return over_heads(cache, weights, ctx, [&](std::size_t layer, std::size_t kv_head) {
    const HeadView h = cache.head(layer, kv_head);
    std::vector<double> p;
    double share = 0;
    for (std::size_t g = 0; g < h.group; ++g)
      for (std::size_t s = 0; s < h.steps; ++s) {
        attention_weights(h, g, s, p);
        const double cut = o.sparsity_ratio * *std::max_element(p.begin(), p.end());
        const auto below = std::count_if(p.begin(), p.end(), [cut](double x) { return x < cut; });
        share += static_cast<double>(below) / static_cast<double>(h.tokens);
      }
    return std::vector<double>{share / static_cast<double>(h.group * h.steps)};
  });
}

Estimate compute_statistic(StatisticKind kind, const KvCache& cache, std::int64_t model_layers,
                           const CalibrationOptions& o, Context& ctx) {
  switch (kind) {
    case StatisticKind::retrieval_head_fraction:
      return retrieval_head_fraction(cache, false, model_layers, o, ctx);
    case StatisticKind::early_retrieval_head_fraction:
      return retrieval_head_fraction(cache, true, model_layers, o, ctx);
    case StatisticKind::streaming_head_fraction:
      return streaming_head_fraction(cache, false, model_layers, o, ctx);
    case StatisticKind::early_streaming_head_fraction:
      return streaming_head_fraction(cache, true, model_layers, o, ctx);
    case StatisticKind::key_rank90_post_rope:
      return key_rank90_post_rope(cache, model_layers, o, ctx);
    case StatisticKind::attention_sparsity_1pct:
      return attention_sparsity(cache, model_layers, o, ctx);
  }
  return {};
}

std::string_view verdict_name(Verdict v) {
  switch (v) {
    case Verdict::within:
      return "within band";
    case Verdict::outside:
      return "outside band";
    case Verdict::not_computable:
      return "not computable";
  }
  return "";
}

std::vector<MeasuredStatistic> targets_for_profile(const KvMeasurements& m,
                                                   std::string_view profile,
                                                   std::string_view file) {
  std::vector<MeasuredStatistic> out;
  std::set<std::string> known;
  for (const auto& t : m.statistics) {
    known.insert(t.profiles.begin(), t.profiles.end());
    if (std::find(t.profiles.begin(), t.profiles.end(), profile) != t.profiles.end())
      out.push_back(t);
  }
  LIGHTSIM_CHECK_AS(ConfigError, !out.empty(),
                    "{}: no statistic names profile '{}' in its profiles (profiles with targets: "
                    "{})",
                    file, profile, fmt::join(known, ", "));
  return out;
}

CalibrationReport calibrate(const KvCache& cache, std::string_view profile,
                            std::int64_t model_layers, std::vector<MeasuredStatistic> targets,
                            const CalibrationOptions& o, Context& ctx) {
  CalibrationReport r;
  r.profile = std::string(profile);
  r.source = cache.source;
  r.layers = cache.layer_ids;
  r.model_layers = model_layers;
  r.geometry = cache.geometry();
  r.options = o;
  for (auto& t : targets) {
    TargetComparison c;
    c.ours = compute_statistic(statistic_kind(t.statistic), cache, model_layers, o, ctx);
    if (c.ours.n > 0) {
      c.deviation = c.ours.mean - t.value;
      c.relative_deviation = t.value != 0 ? c.deviation / std::abs(t.value) : 0.0;
      c.verdict =
          t.band[0] <= c.ours.mean && c.ours.mean <= t.band[1] ? Verdict::within : Verdict::outside;
    }
    c.target = std::move(t);
    r.targets.push_back(std::move(c));
    ctx.throw_if_cancelled("kv calibrate");
  }
  return r;
}

}  // namespace lightsim::kv
