// KV workloads (docs/kv-data.md): kv_stats, a cache's calibration report; kv_calibrate, a
// synthetic cache of a profile beside the published real-model statistics of
// configs/references/kv_measured.yaml; kv_fit, a profile fitted to a cache's statistics.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <ostream>

#include "lightsim/core/atomic_file.h"
#include "lightsim/core/config_files.h"
#include "lightsim/core/error.h"
#include "lightsim/kv/calibration.h"
#include "lightsim/kv/fit.h"
#include "lightsim/kv/generator.h"
#include "lightsim/kv/io.h"
#include "lightsim/kv/stats.h"
#include "lightsim/ops/operation.h"
#include "lightsim/ops/register.h"

namespace lightsim::ops {

struct KvCalibrateRequest {
  static constexpr std::string_view kind = "kv_calibrate_request";
  std::string profile{};
  std::string measurements = "kv_measured";
  std::vector<std::int64_t> layers{};
  static void describe(config::Schema<KvCalibrateRequest>& s) {
    using R = KvCalibrateRequest;
    s.help("Request of kv calibrate: one KV profile against the published statistics.");
    s.field("profile", &R::profile,
            "KV profile: a configs/kv/ name or a file of kind kv_synthetic (--set addresses it)")
        .required();
    s.field("measurements", &R::measurements,
            "published statistics: a configs/references/ name or a file of kind kv_measurements");
    s.field("layers", &R::layers,
            "model layers to generate; empty = layers 0 and 1 and four spread over the rest "
            "(the middle and the last among them)")
        .min(0);
  }
};

struct KvStatsRequest {
  static constexpr std::string_view kind = "kv_stats_request";
  std::string cache{};
  std::int64_t recent = 512;
  static void describe(config::Schema<KvStatsRequest>& s) {
    s.help("Request of kv stats: the calibration report of one KV cache folder.");
    s.field("cache", &KvStatsRequest::cache, "KV cache folder (kv generate, scripts/export_kv.py)")
        .required();
    s.field("recent", &KvStatsRequest::recent, "recent window for the recent-mass figure, tokens")
        .range(std::int64_t{0}, std::int64_t{1} << 24);
  }
};

struct KvFitRequest {
  static constexpr std::string_view kind = "kv_fit_request";
  std::string cache{};
  std::string start = "qwen2.5-7b";
  std::string name = "fitted";
  std::vector<std::string> knobs{};
  std::int64_t max_evaluations = 300;
  double tolerance = 3.0;
  static void describe(config::Schema<KvFitRequest>& s) {
    using R = KvFitRequest;
    s.help("Request of kv fit: the generator's knobs fitted to one KV cache folder's statistics.");
    s.field("cache", &R::cache, "KV cache folder (kv generate, scripts/export_kv.py)").required();
    s.field("start", &R::start,
            "profile the search starts from and takes the unfitted knobs of: a configs/kv/ name "
            "or a kv_synthetic file (--set addresses it)");
    s.field("name", &R::name,
            "model name of the written profile; the file is <--out>/<name>.yaml (none without "
            "an output folder)");
    s.field("knobs", &R::knobs,
            "knobs to fit (noise_scale, spectrum_decay, sink_logit, local_correlation, "
            "diffuse_logit); empty = all, the others taken from the start profile");
    s.field("max_evaluations", &R::max_evaluations, "candidate caches generated, at most")
        .range(std::int64_t{1}, std::int64_t{100000});
    s.field("tolerance", &R::tolerance,
            "a statistic further than this many error scales from the cache's fails the fit")
        .positive();
  }
};

namespace {

kv::FitResult evaluate_fit(const KvFitRequest& q, Env& env) {
  LIGHTSIM_CHECK_AS(UsageError, !q.name.empty() && q.name.find_first_of("/\\") == std::string::npos,
                    "name: expected a file name without folders, got '{}'", q.name);
  const auto start_file = config::find_named(q.start, "kv", env.load, "KV profile");
  auto start = config::load_spec<kv::KvGeneratorSpec>(start_file, env.load);
  env.inputs_read();
  const kv::KvCache cache = kv::read_kv_cache(q.cache, env.ctx.memory_budget());
  if (!env.out.empty()) prepare_output_dir(env.out);
  start.model = q.name;
  kv::FitOptions options;
  options.max_evaluations = static_cast<std::size_t>(q.max_evaluations);
  options.tolerance = q.tolerance;
  options.knobs = q.knobs;
  kv::FitResult r = kv::fit_kv_cache(cache, start, options, env.ctx);
  r.profile_yaml = kv::profile_yaml(
      r.spec, fmt::format("# Fitted by `lightsim kv fit` to the cache {} ({}), from profile {}:\n"
                          "# loss {:.4g} after {} candidate caches (docs/kv-data.md, \"Fitting a "
                          "profile to a cache\").\n",
                          q.cache, r.source, q.start, r.loss, r.evaluations));
  if (!env.out.empty()) {
    const auto file = env.out / (q.name + ".yaml");
    write_file_atomic(file, r.profile_yaml);
    r.written = file.string();
  }
  return r;
}

kv::StatsReport evaluate_stats(const KvStatsRequest& q, Env& env) {
  env.inputs_read();  // --set addresses no config here
  const kv::KvCache cache = kv::read_kv_cache(q.cache, env.ctx.memory_budget());
  kv::StatsOptions options;
  options.recent_tokens = static_cast<std::size_t>(q.recent);
  return kv::calibration_report(cache, options, env.ctx);
}

constexpr std::size_t kEarlyLayers = 2;  // CalibrationOptions::early_layers
constexpr std::size_t kBodyLayers = 4;   // layers held beyond the early ones

kv::CalibrationReport evaluate_calibrate(const KvCalibrateRequest& q, Env& env) {
  const auto profile_file = config::find_named(q.profile, "kv", env.load, "KV profile");
  std::vector<std::int64_t> layers = q.layers;
  if (layers.empty()) {
    const auto first = config::load_spec<kv::KvGeneratorSpec>(profile_file, env.load);
    layers = kv::calibration_layers(first.model_layers, kEarlyLayers, kBodyLayers);
  }
  config::LoadOptions load = env.load;
  load.assignments.push_back(fmt::format("layers=[{}]", fmt::join(layers, ",")));
  const auto spec = config::load_spec<kv::KvGeneratorSpec>(profile_file, load);
  const config::LoadOptions roots = env.load.roots_only();  // published figures: no --set
  const auto measurements_file =
      config::find_named(q.measurements, "references", roots, "reference");
  const kv::KvMeasurements measurements =
      kv::load_kv_measurements(measurements_file.string(), roots);
  kv::require_generator_memory(spec, env.ctx.memory_budget(), env.ctx.threads());
  env.inputs_read();
  auto targets = kv::targets_for_profile(measurements, spec.model, measurements_file.string());
  const kv::KvCache cache = kv::generate_kv_cache(spec, env.ctx);
  kv::CalibrationOptions options;
  options.early_layers = kEarlyLayers;
  kv::CalibrationReport r =
      kv::calibrate(cache, spec.model, spec.model_layers, std::move(targets), options, env.ctx);
  r.measurements = measurements_file.string();
  return r;
}

}  // namespace

void register_kv_ops(Registry& registry) {
  add<KvStatsRequest, kv::StatsReport>(
      registry,
      {.info = {.name = "kv_stats",
                .command = {"kv", "stats"},
                .help = "Calibration report of a KV cache folder",
                .positional = {"cache"}},
       .evaluate = evaluate_stats,
       .to_json = [](const kv::StatsReport& r) { return kv::to_json(r); },
       .print = [](const kv::StatsReport& r, std::ostream& out) { out << kv::to_text(r); }});
  add<KvCalibrateRequest, kv::CalibrationReport>(
      registry,
      {.info = {.name = "kv_calibrate",
                .command = {"kv", "calibrate"},
                .help = "Generate a KV profile's synthetic cache and compare its statistics with "
                        "the published real-model ones (configs/references/kv_measured.yaml)",
                .positional = {"profile"}},
       .evaluate = evaluate_calibrate,
       .to_json = [](const kv::CalibrationReport& r) { return kv::to_json(r); },
       .print = [](const kv::CalibrationReport& r, std::ostream& out) { out << kv::to_text(r); }});
  add<KvFitRequest, kv::FitResult>(
      registry,
      {.info = {.name = "kv_fit",
                .command = {"kv", "fit"},
                .help = "Fit the synthetic generator's knobs to a KV cache folder's statistics and "
                        "write the profile (<--out>/<name>.yaml)",
                .positional = {"cache"}},
       .evaluate = evaluate_fit,
       .to_json = [](const kv::FitResult& r) { return kv::to_json(r); },
       .print = [](const kv::FitResult& r, std::ostream& out) { out << kv::to_text(r); }});
}

}  // namespace lightsim::ops
