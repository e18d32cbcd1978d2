// `lightsim kv generate|select|stats`: KV workloads, block selection and calibration.
#include <iostream>
#include <sstream>

#include "cli.h"
#include "lightsim/core/atomic_file.h"
#include "lightsim/core/json.h"
#include "lightsim/kv/generator.h"
#include "lightsim/kv/io.h"
#include "lightsim/kv/metrics.h"
#include "lightsim/kv/register.h"
#include "lightsim/kv/stats.h"
#include "lightsim/prism/scorer.h"

namespace lightsim::cli {
namespace {

struct SelectOptions {
  std::filesystem::path cache;
  std::vector<std::string> scorers{"all"};
  std::vector<std::size_t> ks{8, 16, 32};
  std::string projection = "pca";
  std::size_t dim = 32;
  std::size_t reps = 4;
  std::size_t block = 128, sink = 4, recent = 512;
  double kv_bytes = 2;
  std::filesystem::path projection_file;
  std::size_t nlist = 0, pq_m = 16, pq_nbits = 8, nprobe = 16, retrieve = 256;
  std::string accelerator;  // for scorer prism: accelerator name or file
};

// "all" or NAME or signature:PROJECTION; returns (label, scorer, projection).
std::vector<std::array<std::string, 3>> expand_scorers(const SelectOptions& o) {
  std::vector<std::array<std::string, 3>> out;
  for (const std::string& s : o.scorers) {
    if (s == "all") {
      for (const char* n : {"exact", "mean_key", "quest", "rep_keys", "faiss_ivfpq"})
        out.push_back({n, n, ""});
      for (const char* p : {"pca", "pca_qk", "random", "first"})
        out.push_back({fmt::format("signature:{}:d{}", p, o.dim), "signature", p});
      continue;
    }
    const auto colon = s.find(':');
    const std::string name = s.substr(0, colon);
    const std::string proj = colon == std::string::npos ? o.projection : s.substr(colon + 1);
    const bool projected = name == "signature" || name == "prism";
    out.push_back({projected ? fmt::format("{}:{}:d{}", name, proj, o.dim) : name, name,
                   projected ? proj : ""});
  }
  return out;
}

void run_select(const SelectOptions& so, const GlobalOptions& options) {
  kv::ScorerFamily scorers(kv::kScorerFamily, "");
  kv::ProjectionFamily projections(kv::kProjectionFamily, "");
  kv::register_scorers(scorers);
  kv::register_projections(projections);
  prism::register_scorer(scorers);
  std::optional<prism::AcceleratorSpec> accelerator;
  if (!so.accelerator.empty())
    accelerator = prism::load_accelerator(so.accelerator, options.load_options());
  std::optional<NpyArray> learned;
  options.require_all_used();
  if (!so.projection_file.empty()) learned = read_npy(so.projection_file, 4);
  std::vector<kv::EvalSetup> setups;
  for (const auto& [label, name, proj] : expand_scorers(so)) {
    kv::ScorerOptions o;
    o.projection = proj.empty() ? so.projection : proj;
    o.dim = so.dim;
    o.reps = so.reps;
    o.projections = &projections;
    o.learned = learned ? &*learned : nullptr;
    o.nlist = so.nlist;
    o.pq_m = so.pq_m;
    o.pq_nbits = so.pq_nbits;
    o.nprobe = so.nprobe;
    o.retrieve = so.retrieve;
    if (name == "signature" || name == "prism")
      (void)projections.get(o.projection);  // unknown name -> error now
    if (name == "prism") {
      LIGHTSIM_CHECK_AS(InputError, accelerator.has_value(),
                        "--scorer prism needs --accelerator CONFIG");
      prism::attach_accelerator(o, *accelerator);
    }
    setups.push_back({label, scorers.get(name), o});
  }
  const kv::KvCache cache = kv::read_kv_cache(so.cache);
  Context ctx(options.context_options(1, Time::si(5.0)));
  kv::EvalOptions eo;
  eo.ks = so.ks;
  eo.blocks = {so.block, so.sink, so.recent};
  eo.kv_bytes = so.kv_bytes;
  const kv::EvalReport r = kv::evaluate(cache, setups, eo, ctx);

  if (options.json) {
    Json results = Json::object();
    for (const auto& s : r.scorers) {
      Json per_k = Json::object();
      for (const auto& m : s.per_k) {
        Json kk = Json::object();
        for (const auto& [big, e] : m.recall_k_at_K) kk[std::to_string(big)] = e.mean;
        per_k[std::to_string(m.k)] = {{"k_effective", m.k_effective},
                                      {"recall_at_k", m.recall.mean},
                                      {"recall_at_k_ci95", m.recall.ci95},
                                      {"recall_k_at_K", kk},
                                      {"mass_recall", m.mass_recall.mean},
                                      {"mass_coverage", m.mass_coverage.mean},
                                      {"output_rel_error", m.output_rel_error.mean},
                                      {"output_rel_error_ci95", m.output_rel_error.ci95},
                                      {"needle_hit_rate", m.needle_hit.mean},
                                      {"needle_hit_union_rate", m.needle_hit_union.mean},
                                      {"fetched_fraction", m.fetched_fraction.mean},
                                      {"union_fetched_fraction", m.union_fetched_fraction.mean},
                                      {"metadata_bytes", m.metadata_bytes},
                                      {"selected_bytes", m.selected_bytes},
                                      {"resident_bytes", m.resident_bytes},
                                      {"bytes_per_step", m.bytes_per_step},
                                      {"full_scan_bytes", m.full_scan_bytes},
                                      {"traffic_reduction", m.traffic_reduction},
                                      {"samples", m.recall.n}};
      }
      results[s.name] = per_k;
    }
    std::cout << dump_json({{"cache", so.cache.string()},
                            {"source", cache.source},
                            {"tokens", r.tokens},
                            {"block_tokens", so.block},
                            {"blocks", r.blocks},
                            {"candidate_blocks", r.candidates},
                            {"resident_tokens", r.resident_tokens},
                            {"kv_heads_evaluated", r.heads},
                            {"steps", r.steps},
                            {"needles", r.needles},
                            {"results", results}});
    return;
  }
  std::cout << fmt::format(
      "{}: {} tokens, {} blocks of {} ({} candidates), {} resident tokens, {} KV heads x {} "
      "steps, {} needles\n",
      so.cache.string(), r.tokens, r.blocks, so.block, r.candidates, r.resident_tokens, r.heads,
      r.steps, r.needles);
  std::cout << fmt::format("{:<22} {:>5} {:>15} {:>8} {:>8} {:>8} {:>7} {:>7} {:>8} {:>10} {:>8}\n",
                           "scorer", "k", "recall@k", "mass_rec", "mass_cov", "out_err", "needle",
                           "n_union", "fetched", "bytes/step", "traffic");
  for (const auto& s : r.scorers)
    for (const auto& m : s.per_k)
      std::cout << fmt::format(
          "{:<22} {:>5} {:>8.3f}+-{:<5.3f} {:>8.3f} {:>8.3f} {:>8.4f} {:>7.3f} {:>7.3f} {:>8.3f} "
          "{:>10.4g} {:>7.1f}x\n",
          s.name, m.k, m.recall.mean, m.recall.ci95, m.mass_recall.mean, m.mass_coverage.mean,
          m.output_rel_error.mean, m.needle_hit.mean, m.needle_hit_union.mean,
          m.fetched_fraction.mean, m.bytes_per_step, m.traffic_reduction);
}

}  // namespace

void add_kv_commands(CLI::App& app, const GlobalOptions& options, const Registry& registry) {
  (void)registry;
  CLI::App* kv = app.add_subcommand("kv", "KV caches: generate, select blocks, calibrate");
  kv->require_subcommand(1);

  auto* gen = kv->add_subcommand(
      "generate", "Write a synthetic KV cache (kind kv_synthetic) to --out (docs/kv-data.md)");
  auto config_file = std::make_shared<std::filesystem::path>();
  gen->add_option("CONFIG", *config_file, "Generator config (kind kv_synthetic)")->required();
  gen->callback([config_file, &options] {
    const auto spec = config::load_spec<kv::KvGeneratorSpec>(*config_file, options.load_options());
    options.require_all_used();
    prepare_output_dir(options.out);  // fail before generating when the folder is unusable
    Context ctx(options.context_options(1, Time::si(5.0)));
    const kv::KvCache cache = kv::generate_kv_cache(spec, ctx);
    kv::write_kv_cache(options.out, cache);
    const auto& g = cache.geometry();
    if (options.json)
      std::cout << dump_json({{"out", options.out.string()},
                              {"layers", g.layers},
                              {"kv_heads", g.kv_heads},
                              {"tokens", g.tokens},
                              {"seed", ctx.seed()}});
    else if (!options.quiet)
      std::cout << fmt::format(
          "lightsim kv generate: {} layer(s) x {} KV heads x {} tokens -> {}\n", g.layers,
          g.kv_heads, g.tokens, options.out.string());
  });

  auto* sel = kv->add_subcommand("select", "Score and select blocks; print retrieval metrics");
  auto so = std::make_shared<SelectOptions>();
  sel->add_option("--cache", so->cache, "KV cache folder")->required();
  sel->add_option(
         "--scorer", so->scorers,
         "Scorers: all, exact, mean_key, quest, rep_keys, faiss_ivfpq, signature[:PROJECTION], "
         "prism[:PROJECTION] (needs --accelerator)")
      ->delimiter(',')
      ->capture_default_str();
  sel->add_option("--k", so->ks, "Blocks selected per KV head and step")
      ->delimiter(',')
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  sel->add_option("--projection", so->projection, "pca, pca_qk, random, first, learned")
      ->capture_default_str();
  sel->add_option("--dim", so->dim, "Signature dimension d")->capture_default_str();
  sel->add_option("--reps", so->reps, "Representative keys per block")->capture_default_str();
  sel->add_option("--block", so->block, "Block size in tokens")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  sel->add_option("--sink", so->sink, "Sink tokens always resident")->capture_default_str();
  sel->add_option("--recent", so->recent, "Recent-window tokens always resident")
      ->capture_default_str();
  sel->add_option("--kv-bytes", so->kv_bytes, "Bytes per stored K/V element (traffic ledger)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  sel->add_option("--nlist", so->nlist, "faiss_ivfpq: inverted lists (0 = about 4 sqrt(T))")
      ->capture_default_str();
  sel->add_option("--pq-m", so->pq_m, "faiss_ivfpq: PQ sub-quantizers")->capture_default_str();
  sel->add_option("--pq-nbits", so->pq_nbits, "faiss_ivfpq: bits per PQ code")
      ->capture_default_str();
  sel->add_option("--nprobe", so->nprobe, "faiss_ivfpq: lists scanned per query")
      ->capture_default_str();
  sel->add_option("--retrieve", so->retrieve, "faiss_ivfpq: tokens retrieved per query head")
      ->capture_default_str();
  sel->add_option("--projection-file", so->projection_file,
                  "Learned projections .npy [layers, kv_heads, d, head_dim]");
  sel->add_option("--accelerator", so->accelerator,
                  "prism scorer: accelerator name (configs/accelerators/) or YAML file");
  sel->callback([so, &options] { run_select(*so, options); });

  auto* stats = kv->add_subcommand("stats", "Calibration report of a KV cache folder");
  auto stats_dir = std::make_shared<std::filesystem::path>();
  auto window = std::make_shared<std::size_t>(512);
  stats->add_option("DIR", *stats_dir, "KV cache folder")->required();
  stats->add_option("--recent", *window, "Recent window for the recent-mass figure")
      ->capture_default_str();
  stats->callback([stats_dir, window, &options] {
    options.require_all_used();
    const kv::KvCache cache = kv::read_kv_cache(*stats_dir);
    Context ctx(options.context_options(1, Time::si(5.0)));
    kv::StatsOptions stats_options;
    stats_options.recent_tokens = *window;
    const kv::StatsReport r = kv::calibration_report(cache, stats_options, ctx);
    if (options.json)
      std::cout << dump_json(kv::to_json(r));
    else
      std::cout << kv::to_text(r);
  });
}

}  // namespace lightsim::cli
