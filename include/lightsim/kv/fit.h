// Fitting the synthetic generator's knobs to a KV cache's statistics (`lightsim kv fit DIR`,
// docs/kv-data.md "Fitting a profile to a cache"). The statistics are kv stats' per-head means
// (stats.h); the knobs are the generator's (generator.h). The search is deterministic:
// coordinate descent from the start profile, each knob stepped by +- step (halved when neither
// side improves) within its range, every candidate cache generated with the run's seed.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "lightsim/core/context.h"
#include "lightsim/core/json_fwd.h"
#include "lightsim/kv/cache.h"
#include "lightsim/kv/generator.h"

namespace lightsim::kv {

// One fitted statistic: the cache's value, the fitted synthetic cache's, and the scale its
// error is measured in (loss term ((fitted - target) / scale)^2).
struct FitStatistic {
  std::string name{};
  double target = 0, fitted = 0, scale = 1;
  double error() const { return (fitted - target) / scale; }
};

// One fitted knob (a KvGeneratorSpec field): start value, fitted value and its range.
struct FitKnob {
  std::string name{};
  double start = 0, value = 0, low = 0, high = 0;
  bool at_bound() const { return value <= low || value >= high; }
};

struct FitOptions {
  std::size_t max_evaluations = 300;  // candidate caches generated, at most
  std::size_t passes = 4;             // coordinate-descent passes over the knobs, at most
  double tolerance = 3.0;             // a statistic whose |error| exceeds this is not fitted
  std::size_t recent_tokens = 512;    // recent window of the recent-mass statistic
  std::vector<std::string> knobs{};   // knobs to fit (fit_knob_names()); empty = all
};

// The knobs kv fit can fit, in search order.
std::vector<std::string> fit_knob_names();

struct FitResult {
  std::string source{};  // the cache's provenance
  KvGeometry geometry{};
  std::vector<std::size_t> layers{};
  double rope_base = 0;
  std::vector<FitStatistic> statistics{};
  std::vector<FitKnob> knobs{};
  double loss = 0;  // sum of squared errors at the fitted knobs
  std::size_t evaluations = 0;
  KvGeneratorSpec spec{};    // the fitted profile
  std::string profile_yaml;  // the profile document (kind kv_synthetic)
  std::string written{};     // file the profile was written to ("" = none)
};

// The statistics of `cache` the fit matches, means over KV heads: kv stats' rank90_post_rope,
// sink_mass, recent_mass and tokens90_fraction, and over each head's values (the latent
// without RoPE and key offsets) value_rank90 (centered-PCA rank at 90% of the variance) and
// adjacent_value_cos_centered.
std::vector<FitStatistic> fit_statistics(const KvCache& cache, const FitOptions& options,
                                         Context& ctx);

// Fits `start`'s knobs (noise_scale, spectrum_decay, sink_logit, local_correlation,
// diffuse_logit) to `cache`, the geometry (layers, heads, head_dim, tokens, steps, rope_base,
// needles) taken from the cache; only options.knobs when given (UsageError for a name outside
// fit_knob_names()). DataFormatError when the cache cannot be fitted: too short
// (fewer than 64 tokens), or a statistic left outside options.tolerance scales (named, with
// the knob at its bound if one is).
FitResult fit_kv_cache(const KvCache& cache, const KvGeneratorSpec& start,
                       const FitOptions& options, Context& ctx);

// The profile document of `spec` (kind kv_synthetic, every knob written), after `header`
// (comment lines).
std::string profile_yaml(const KvGeneratorSpec& spec, std::string_view header);

Json to_json(const FitResult& result);
std::string to_text(const FitResult& result);

}  // namespace lightsim::kv
