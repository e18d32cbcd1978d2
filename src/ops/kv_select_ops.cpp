// KV caches and block selection (docs/kv-data.md, docs/metrics.md): kv_generate writes a
// synthetic cache folder; kv_select scores and selects blocks of a cache with the named
// scorers and reports the retrieval metrics against exact attention (kv::evaluate, the one
// retrieval engine of the CLI, Python and the Prism studies).
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <algorithm>

#include <filesystem>
#include <map>
#include <ostream>

#include "lightsim/core/atomic_file.h"
#include "lightsim/core/config_files.h"
#include "lightsim/kv/equal_bytes.h"
#include "lightsim/kv/generator.h"
#include "lightsim/kv/io.h"
#include "lightsim/kv/metrics.h"
#include "lightsim/kv/scorer_setup.h"
#include "lightsim/ops/operation.h"
#include "lightsim/ops/register.h"

namespace lightsim::ops {

struct KvGenerateRequest {
  static constexpr std::string_view kind = "kv_generate_request";
  std::string config{};
  static void describe(config::Schema<KvGenerateRequest>& s) {
    s.help("Request of kv generate: one synthetic KV cache, written to the output folder.");
    s.field("config", &KvGenerateRequest::config,
            "generator config: a configs/kv/ name or a file of kind kv_synthetic (--set "
            "addresses it)")
        .required();
  }
};

struct KvSelectRequest {
  static constexpr std::string_view kind = "kv_select_request";
  std::string cache{};
  std::vector<std::string> scorer{"all"};
  std::vector<std::int64_t> k{};  // empty: EvalOptions' 8, 16, 32
  std::int64_t block = 128;
  std::int64_t sink = 4;
  std::int64_t recent = 512;
  double kv_bytes = 2;
  std::map<std::string, std::string> scorer_options{};
  std::vector<double> budget_bytes{};
  static void describe(config::Schema<KvSelectRequest>& s) {
    using R = KvSelectRequest;
    s.help("Request of kv select: block scorers against exact attention over a KV cache.");
    s.field("cache", &R::cache,
            "KV cache folder (kv generate, scripts/export_kv.py), or a KV profile (a configs/kv/ "
            "name or a kind kv_synthetic file; --set addresses it) generated with the seed")
        .required();
    s.field("scorer", &R::scorer,
            "scorers: all, NAME, NAME:PROJECTION (signature, prism) or a scorer options file "
            "(kind scorer_NAME); names: `lightsim list` (kv_scorer)")
        .min_items(1);
    s.field("k", &R::k,
            "blocks selected per KV head and step, each at most the cache's blocks (empty: 8, "
            "16 and 32, each clipped to the candidate blocks)")
        .range(std::int64_t{1}, std::int64_t{1} << 24);
    s.field("block", &R::block, "block size, tokens").range(std::int64_t{1}, std::int64_t{1} << 24);
    s.field("sink", &R::sink, "sink tokens always resident")
        .range(std::int64_t{0}, std::int64_t{1} << 24);
    s.field("recent", &R::recent, "recent-window tokens always resident")
        .range(std::int64_t{0}, std::int64_t{1} << 24);
    s.field("kv_bytes", &R::kv_bytes, "bytes per stored K/V element (the traffic ledger)")
        .positive();
    s.field("scorer_options", &R::scorer_options,
            "fields of the scorers' options specs (`lightsim config explain scorer_NAME`), each "
            "set on every selected scorer that takes it: {nlist: 64, dim: 16}");
    s.field("budget_bytes", &R::budget_bytes,
            "equal-bytes comparisons: metadata bytes per block; each scorer at the largest "
            "setting that fits each budget, or reported as not fitting (docs/metrics.md); "
            "empty = off")
        .positive();
  }
};

struct KvGenerated {
  std::filesystem::path out;
  kv::KvGeometry geometry;
  std::uint64_t seed = 0;
};

namespace {

// A folder is a cache; a config file or a bare name is a KV profile (generated); any other
// path is a cache folder that does not exist (read_kv_cache says so).
bool names_a_profile(const std::string& cache) {
  if (std::filesystem::is_directory(cache)) return false;
  const std::filesystem::path p(cache);
  const std::string ext = p.extension().string();
  return ext == ".yaml" || ext == ".yml" || ext == ".json" || !config::looks_like_path(cache);
}

kv::KvGeneratorSpec load_profile(const std::string& name, const Env& env) {
  const auto file = config::find_named(name, "kv", env.load, "KV profile");
  return config::load_spec<kv::KvGeneratorSpec>(file, env.load);
}

KvGenerated evaluate_generate(const KvGenerateRequest& q, Env& env) {
  const kv::KvGeneratorSpec spec = load_profile(q.config, env);
  kv::require_generator_memory(spec, env.ctx.memory_budget(),
                               env.ctx.threads());  // before --out is created
  LIGHTSIM_CHECK_AS(UsageError, !env.out.empty(),
                    "kv generate writes a cache folder: give an output folder (--out)");
  env.inputs_read();
  prepare_output_dir(env.out);  // fail before generating when the folder is unusable
  const kv::KvCache cache = kv::generate_kv_cache(spec, env.ctx, "kv generate: layer x KV head");
  kv::write_kv_cache(env.out, cache);
  return {env.out, cache.geometry(), env.ctx.seed()};
}

// The scorer options of a request, each named for messages by its key and by the CLI flag
// that sets it ("scorer_options.nprobe (--nprobe)"): the map keeps no location of the flag,
// key or Python keyword that set it, and a message naming only the key left the flag's user
// to guess.
std::vector<kv::ScorerOption> scorer_options(const KvSelectRequest& q) {
  std::vector<kv::ScorerOption> out;
  for (const auto& [field, value] : q.scorer_options) {
    std::string flag = field;
    std::replace(flag.begin(), flag.end(), '_', '-');
    out.push_back({field, value, fmt::format("scorer_options.{} (--{})", field, flag)});
  }
  return out;
}

kv::SelectReport evaluate_select(const KvSelectRequest& q, Env& env) {
  const std::vector<kv::ScorerOption> options = scorer_options(q);
  const kv::ScorerChoice choice{q.scorer,
                                options,
                                &kv::scorer_family(env.registry),
                                {&kv::projection_family(env.registry), env.load}};
  const std::vector<kv::ScorerSetup> setups =
      kv::resolve_scorers(q.scorer, options, *choice.scorers, choice.env);
  kv::EvalOptions eo;
  const std::vector<std::size_t> given_ks(q.k.begin(), q.k.end());
  if (!given_ks.empty()) eo.ks = given_ks;  // else EvalOptions' 8, 16, 32
  eo.blocks = {static_cast<std::size_t>(q.block), static_cast<std::size_t>(q.sink),
               static_cast<std::size_t>(q.recent)};
  eo.kv_bytes = q.kv_bytes;
  eo.progress_label = "kv select: layer x KV head";
  // The ks and scorer options whose ranges depend on the cache are checked against its
  // geometry before it is generated or its arrays read.
  if (names_a_profile(q.cache)) {
    const kv::KvGeneratorSpec spec = load_profile(q.cache, env);
    kv::check_selection(choice, given_ks, eo.blocks, kv::generated_geometry(spec));
    kv::require_generator_memory(spec, env.ctx.memory_budget(), env.ctx.threads(),
                                 kv::evaluation_thread_bytes(kv::generated_geometry(spec)));
    env.inputs_read();
    return kv::select_blocks(kv::generate_kv_cache(spec, env.ctx), setups, choice, eo,
                             q.budget_bytes, env.ctx);
  }
  kv::check_selection(choice, given_ks, eo.blocks, kv::read_kv_geometry(q.cache));
  env.inputs_read();
  return kv::select_blocks(kv::read_kv_cache(q.cache, env.ctx.memory_budget()), setups, choice, eo,
                           q.budget_bytes, env.ctx);
}

// One flag per field of the registered scorers' option specs (--nlist, --pq-m, ...): its help
// from the first spec that has it, naming every scorer that takes it.
std::vector<KeyFlag> scorer_option_flags(const Registry& registry) {
  std::vector<KeyFlag> flags;
  std::vector<std::vector<std::string>> takers;
  const kv::ScorerFamily& scorers = kv::scorer_family(registry);
  for (const Implementation& impl : scorers.implementations())
    for (const config::FieldInfo& f : scorers.get(impl.name).schema->fields) {
      std::size_t i = 0;
      while (i < flags.size() && flags[i].key != f.name) ++i;
      if (i == flags.size()) {
        flags.push_back({"scorer_options", f.name,
                         fmt::format("{} (default {}; `lightsim config explain scorer_NAME`)",
                                     f.help, f.required ? "none" : f.default_text)});
        takers.emplace_back();
      }
      takers[i].push_back(impl.name);
    }
  for (std::size_t i = 0; i < flags.size(); ++i)
    flags[i].help = fmt::format("{} [scorer_options.{}: {}]", flags[i].help, flags[i].key,
                                fmt::join(takers[i], ", "));
  return flags;
}

}  // namespace

void register_kv_select_ops(Registry& registry) {
  add<KvGenerateRequest, KvGenerated>(
      registry,
      {.info = {.name = "kv_generate",
                .command = {"kv", "generate"},
                .help = "Write a synthetic KV cache (kind kv_synthetic) to --out (docs/kv-data.md)",
                .positional = {"config"}},
       .evaluate = evaluate_generate,
       .to_json =
           [](const KvGenerated& r) {
             return Json{{"out", r.out.string()},
                         {"layers", r.geometry.layers},
                         {"kv_heads", r.geometry.kv_heads},
                         {"tokens", r.geometry.tokens},
                         {"seed", r.seed}};
           },
       .print =
           [](const KvGenerated& r, std::ostream& out) {
             out << fmt::format(
                 "lightsim kv generate: {} layer(s) x {} KV heads x {} tokens -> {}\n",
                 r.geometry.layers, r.geometry.kv_heads, r.geometry.tokens, r.out.string());
           }});
  add<KvSelectRequest, kv::SelectReport>(
      registry,
      {.info = {.name = "kv_select",
                .command = {"kv", "select"},
                .help = "Score and select blocks; print retrieval metrics",
                .key_flags = scorer_option_flags},
       .evaluate = evaluate_select,
       .to_json = [](const kv::SelectReport& r) { return kv::to_json(r); },
       .print = [](const kv::SelectReport& r, std::ostream& out) { out << kv::to_text(r); }});
}

}  // namespace lightsim::ops
