// Calibration report of a KV cache (`lightsim kv stats`): the statistics of
// ../shared/reference/kv.md measured on any cache, generated or exported from a real model.
// Definitions in docs/kv-data.md "Calibration report".
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "lightsim/core/context.h"
#include "lightsim/core/json_fwd.h"
#include "lightsim/kv/cache.h"

namespace lightsim::kv {

struct StatsOptions {
  std::size_t recent_tokens = 512;      // recent-window mass
  double variance_fraction = 0.9;       // rank for this share of (centered) variance
  double mass_fraction = 0.9;           // tokens holding this share of attention mass
  double outlier_ratio = 4.0;           // channel RMS > ratio x median channel RMS
  std::size_t max_rank_tokens = 16384;  // keys used for the rank (evenly strided subsample)
};

// ---- building blocks (row-major data [rows, dim]) ----------------------------------------
// Smallest r such that the top-r eigenvalues of the centered covariance hold `fraction` of
// the total variance (0 for zero variance).
std::size_t rank_for_variance(const float* data, std::size_t rows, std::size_t dim,
                              double fraction);
// Per-channel kurtosis E[(x - mu)^4] / sigma^4 (3 for a Gaussian; 0 for a constant channel).
std::vector<double> channel_kurtosis(const float* data, std::size_t rows, std::size_t dim);
// Channels whose RMS (uncentered) exceeds ratio x the median channel RMS, ascending.
std::vector<std::size_t> outlier_channels(const float* data, std::size_t rows, std::size_t dim,
                                          double ratio);
// Fewest tokens whose weights sum to >= fraction of sum(p).
std::size_t tokens_for_mass(std::span<const double> p, double fraction);
// Mean cosine of consecutive rows; `centered` subtracts the mean row first.
double adjacent_cosine(const float* data, std::size_t rows, std::size_t dim, bool centered);
// rank_for_variance of one head's keys on an even subsample of at most max_tokens of them
// (stride ceil(tokens / max_tokens)): post-RoPE as stored, or pre-RoPE with RoPE undone at
// `rope_base` (0 when rope_base is 0, i.e. unknown).
std::size_t key_rank(const HeadView& head, double rope_base, bool pre_rope, double fraction,
                     std::size_t max_tokens);

struct HeadStats {
  std::size_t layer = 0, kv_head = 0;       // layer = model layer id
  std::size_t rank_pre = 0, rank_post = 0;  // rank_pre 0 when rope_base is unknown
  double kurtosis_mean = 0, kurtosis_max = 0;
  std::vector<std::size_t> key_outliers, value_outliers;
  double adjacent_cos = 0, adjacent_cos_centered = 0;
  double sink_mass = 0, recent_mass = 0, tokens90_fraction = 0;  // means over group and steps
  double qk_cos_mean = 0, qk_cos_max = 0;                        // means over group and steps
};

struct StatsReport {
  std::string source;
  KvGeometry geometry;
  double rope_base = 0;
  StatsOptions options;
  std::vector<HeadStats> heads;
  std::vector<double> tokens90_edges;      // histogram bin edges, fraction of context
  std::vector<std::size_t> tokens90_hist;  // per (query head, step) sample
};

StatsReport calibration_report(const KvCache& cache, const StatsOptions& options, Context& ctx);
Json to_json(const StatsReport& report);
std::string to_text(const StatsReport& report);

}  // namespace lightsim::kv
