// Calibration of KV workloads against published real-model statistics (`lightsim kv
// calibrate`, docs/kv-data.md "Calibration targets"). The targets live in
// configs/references/kv_measured.yaml (kind kv_measurements); each names a statistic from a
// closed list of kinds, and each kind is computed on a cache by one function below, the way its
// source defines it (the definitions are in the comments and in the docs).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lightsim/core/config.h"
#include "lightsim/core/context.h"
#include "lightsim/core/json_fwd.h"
#include "lightsim/kv/cache.h"
#include "lightsim/kv/metrics.h"

namespace lightsim::kv {

// The closed list of statistic kinds a target may name (kv_measured.yaml `kind`).
enum class StatisticKind {
  retrieval_head_fraction,        // Wu et al. 2024: share of query heads with score > 0.1
  early_retrieval_head_fraction,  // the same over the early layers only
  streaming_head_fraction,        // DuoAttention: share of KV heads served by sink + recent
  early_streaming_head_fraction,  // the same over the early layers only
  key_rank90_post_rope,           // Loki: centered-PCA rank at 90% variance of a head's keys
  attention_sparsity_1pct,        // H2O: share of weights below 1% of the row maximum
};
std::span<const std::string_view> statistic_kind_names();
std::string_view statistic_kind_name(StatisticKind kind);
// Throws ConfigError for a name outside the list (the spec's one_of checks it first).
StatisticKind statistic_kind(std::string_view name);

// One published statistic of a real model.
struct MeasuredStatistic {
  static constexpr std::string_view kind = "kv_measured_statistic";
  std::string id{};                     // unique within the file
  std::string model{};                  // the measured model, as the source names it
  std::vector<std::string> profiles{};  // lightsim KV profiles (KvGeneratorSpec::model) it checks
  std::int64_t context_tokens = 0;      // context length of the measurement
  std::string setting{};                // task, data and method of the measurement
  std::string statistic{};              // a StatisticKind name (YAML key `kind`)
  double value = 0;                     // the published figure
  std::vector<double> band{};           // [low, high] accepted, stated before any fit
  std::string use = "check";            // knob: meant to set generator knobs; check: only checks
  std::string source{};                 // paper and data
  std::string where{};                  // table, figure or file the value is read from
  std::string note{};
  static void describe(config::Schema<MeasuredStatistic>& s);
};

struct KvMeasurements {
  static constexpr std::string_view kind = "kv_measurements";
  std::vector<MeasuredStatistic> statistics{};
  static void describe(config::Schema<KvMeasurements>& s);
};

// configs/references/kv_measured.yaml (or `name_or_file`) under the preset roots; published
// figures never take --set assignments.
KvMeasurements load_kv_measurements(const std::string& name_or_file,
                                    const config::LoadOptions& options);

// How the statistics read a cache; defaults are the sources' settings.
struct CalibrationOptions {
  std::size_t early_layers = 2;            // model layers [0, early_layers) are "early"
  double retrieval_score_threshold = 0.1;  // Wu et al.
  std::size_t streaming_sink = 128;        // DuoAttention's streaming attention: sink tokens
  std::size_t streaming_recent = 256;      // and recent tokens
  double streaming_mass = 0.5;             // a head is streaming when they hold >= this mass
  double variance_fraction = 0.9;          // Loki
  std::size_t max_rank_tokens = 16384;     // keys per head for the rank (even subsample)
  double sparsity_ratio = 0.01;            // H2O
};

// The model layers a calibration cache holds: the early layers [0, early) and `body` layers
// spread evenly over the rest, e - 1 + round(k (L - e) / body) for k = 1..body (the last layer
// always, the middle one for an even count), ascending, unique.
std::vector<std::int64_t> calibration_layers(std::int64_t model_layers, std::size_t early,
                                             std::size_t body = 2);

// Each statistic over the held layers of `cache` that it concerns ("early" kinds: layer ids
// below options.early_layers; the others: every held layer, each standing for the share of
// the model's `model_layers` it represents: an early layer for itself, a body layer for
// (model_layers - early) / body layers). Returns the mean and 95% CI over the statistic's units
// (query heads, KV heads); n = 0 when the cache cannot give it (no held layer concerned, or a
// retrieval statistic on a cache without needles).
//
// retrieval score of a query head (proxy of Wu et al.'s copy-paste score): the share of its
// decode steps whose most-attended token lies in a needle span; a retrieval head scores above
// retrieval_score_threshold. Wu et al. count only steps that copy the needle token the head
// attends to, so on the same cache this proxy is an upper bound.
Estimate retrieval_head_fraction(const KvCache& cache, bool early, std::int64_t model_layers,
                                 const CalibrationOptions& options, Context& ctx);
// streaming KV head (proxy of DuoAttention's gate alpha < 0.5): the mean over its query group
// and steps of the softmax mass on tokens [0, streaming_sink) and the last streaming_recent
// tokens is >= streaming_mass.
Estimate streaming_head_fraction(const KvCache& cache, bool early, std::int64_t model_layers,
                                 const CalibrationOptions& options, Context& ctx);
// Smallest r whose top-r eigenvalues of a KV head's centered key covariance (post-RoPE, as
// attention sees them) hold variance_fraction of the variance (rank_for_variance).
Estimate key_rank90_post_rope(const KvCache& cache, std::int64_t model_layers,
                              const CalibrationOptions& options, Context& ctx);
// Per KV head, the mean over its query group and steps of the share of context tokens whose
// softmax weight is below sparsity_ratio x the largest weight.
Estimate attention_sparsity(const KvCache& cache, std::int64_t model_layers,
                            const CalibrationOptions& options, Context& ctx);

// The statistic of `kind` (dispatches to the functions above).
Estimate compute_statistic(StatisticKind kind, const KvCache& cache, std::int64_t model_layers,
                           const CalibrationOptions& options, Context& ctx);

enum class Verdict { within, outside, not_computable };
std::string_view verdict_name(Verdict v);

struct TargetComparison {
  MeasuredStatistic target{};
  Estimate ours{};
  double deviation = 0;                       // ours.mean - target.value
  double relative_deviation = 0;              // deviation / |target.value| (0 when the value is 0)
  Verdict verdict = Verdict::not_computable;  // band[0] <= ours.mean <= band[1]
};

struct CalibrationReport {
  std::string profile{};              // KvGeneratorSpec::model
  std::string source{};               // the cache's provenance
  std::string measurements{};         // file the targets were read from
  std::vector<std::size_t> layers{};  // model layer ids held
  std::int64_t model_layers = 0;
  KvGeometry geometry{};
  CalibrationOptions options{};
  std::vector<TargetComparison> targets{};  // in file order
};

// The targets of `measurements` whose `profiles` contain `profile`, in file order. None is a
// ConfigError naming the file and listing the profiles that have targets.
std::vector<MeasuredStatistic> targets_for_profile(const KvMeasurements& measurements,
                                                   std::string_view profile, std::string_view file);

// Compares `cache` (generated for `profile`) with each target.
CalibrationReport calibrate(const KvCache& cache, std::string_view profile,
                            std::int64_t model_layers, std::vector<MeasuredStatistic> targets,
                            const CalibrationOptions& options, Context& ctx);

Json to_json(const CalibrationReport& report);
std::string to_text(const CalibrationReport& report);

}  // namespace lightsim::kv
