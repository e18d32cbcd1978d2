// `lightsim kv generate|select`: KV workloads and block selection (kv stats and kv calibrate
// are operations, src/ops/kv_ops.cpp).
#include <algorithm>
#include <charconv>
#include <cmath>
#include <iostream>
#include <map>
#include <utility>

#include <fmt/ranges.h>

#include "cli.h"
#include "lightsim/core/atomic_file.h"
#include "lightsim/core/json.h"
#include "lightsim/kv/generator.h"
#include "lightsim/kv/io.h"
#include "lightsim/kv/metrics.h"
#include "lightsim/kv/scorer_setup.h"

namespace lightsim::cli {
namespace {

// The flag of a scorer option field: pq_nbits -> pq-nbits.
std::string flag_name(std::string field) {
  std::replace(field.begin(), field.end(), '_', '-');
  return field;
}

struct SelectOptions {
  std::filesystem::path cache;
  std::vector<std::string> scorers{"all"};
  std::vector<std::size_t> ks{8, 16, 32};
  std::size_t block = 128, sink = 4, recent = 512;
  double kv_bytes = 2;
  // Scorer option field -> its flag (--pq-m for pq_m) and value; only flags given are passed
  // on (the scorer specs hold the defaults).
  std::map<std::string, std::pair<CLI::Option*, std::string>> scorer_fields;
};

void run_select(const SelectOptions& so, const GlobalOptions& options, const Registry& registry) {
  std::vector<kv::ScorerOption> given;
  for (const auto& [field, flag] : so.scorer_fields)
    if (flag.first->count() > 0) given.push_back({field, flag.second, "--" + flag_name(field)});
  const std::vector<kv::ScorerSetup> setups =
      kv::resolve_scorers(so.scorers, given, kv::scorer_family(registry),
                          {&kv::projection_family(registry), options.load_options()});
  options.require_all_used();
  Context ctx(options.context_options(1, Time::si(5.0)));
  const kv::KvCache cache = kv::read_kv_cache(so.cache, ctx.memory_budget());
  kv::EvalOptions eo;
  eo.ks = so.ks;
  eo.blocks = {so.block, so.sink, so.recent};
  eo.kv_bytes = so.kv_bytes;
  const kv::EvalReport r = kv::evaluate(cache, setups, eo, ctx);
  if (options.json)
    std::cout << dump_json(kv::to_json(r));
  else
    std::cout << kv::to_text(r);
}

// One flag per field of the registered scorers' option specs (--nlist, --pq-m, ...); its help
// from the first spec that has it, naming every scorer that takes it.
void add_scorer_flags(CLI::App* sel, SelectOptions& so, const Registry& registry) {
  struct Flag {
    const config::FieldInfo* field;
    std::vector<std::string> scorers;
  };
  std::vector<Flag> flags;
  const kv::ScorerFamily& scorers = kv::scorer_family(registry);
  for (const Implementation& impl : scorers.implementations())
    for (const config::FieldInfo& f : scorers.get(impl.name).schema->fields) {
      auto it = std::find_if(flags.begin(), flags.end(),
                             [&](const Flag& g) { return g.field->name == f.name; });
      if (it == flags.end()) it = flags.insert(flags.end(), Flag{&f, {}});
      it->scorers.push_back(impl.name);
    }
  for (const Flag& f : flags) {
    auto& [option, value] = so.scorer_fields[f.field->name];
    option = sel->add_option("--" + flag_name(f.field->name), value,
                             fmt::format("{} ({}; default {}; `lightsim config explain "
                                         "scorer_NAME`)",
                                         f.field->help, fmt::join(f.scorers, ", "),
                                         f.field->required ? "none" : f.field->default_text));
  }
}

}  // namespace

void add_kv_commands(CLI::App& app, const GlobalOptions& options, const Registry& registry) {
  CLI::App* kv = app.add_subcommand("kv", "KV caches: generate, select blocks, calibrate");
  kv->require_subcommand(1);

  auto* gen = kv->add_subcommand(
      "generate", "Write a synthetic KV cache (kind kv_synthetic) to --out (docs/kv-data.md)");
  auto config_file = std::make_shared<std::filesystem::path>();
  gen->add_option("CONFIG", *config_file, "Generator config (kind kv_synthetic)")->required();
  gen->callback([config_file, &options] {
    const auto spec = config::load_spec<kv::KvGeneratorSpec>(*config_file, options.load_options());
    options.require_all_used();
    Context ctx(options.context_options(1, Time::si(5.0)));
    kv::require_generator_memory(spec, ctx.memory_budget());  // before --out is created
    prepare_output_dir(options.out);  // fail before generating when the folder is unusable
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
  sel->add_option("--scorer", so->scorers,
                  "Scorers: all, NAME, NAME:PROJECTION (signature, prism) or a scorer options "
                  "file (kind scorer_NAME); names: `lightsim list` (kv_scorer)")
      ->delimiter(',')
      ->capture_default_str();
  sel->add_option("--k", so->ks, "Blocks selected per KV head and step")
      ->delimiter(',')
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 24));
  sel->add_option("--block", so->block, "Block size in tokens")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  sel->add_option("--sink", so->sink, "Sink tokens always resident")->capture_default_str();
  sel->add_option("--recent", so->recent, "Recent-window tokens always resident")
      ->capture_default_str();
  sel->add_option("--kv-bytes", so->kv_bytes, "Bytes per stored K/V element (traffic ledger)")
      ->capture_default_str()
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            // CLI::PositiveNumber lets NaN through (NaN <= 0 is false).
            double v = 0;
            const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), v);
            if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(v) ||
                v <= 0)
              return fmt::format("expected a finite number > 0, got '{}'", text);
            return {};
          },
          "POSITIVE"));
  add_scorer_flags(sel, *so, registry);
  sel->callback([so, &options, &registry] { run_select(*so, options, registry); });
}

}  // namespace lightsim::cli
