// `lightsim study list` and `lightsim study run NAME [--config FILE] [--quick|--full]`: one
// named study (include/lightsim/studies/study.h), written as <out>/<name>.json + CSVs, and its
// claims printed with the seed's figure, ours and the deviation.
#include <iostream>

#include "cli.h"
#include "lightsim/core/atomic_file.h"
#include "lightsim/core/json.h"
#include "lightsim/studies/study.h"

namespace lightsim::cli {
namespace {

struct StudyOptions {
  std::string name;
  std::filesystem::path config;  // empty = configs/studies/<name>.yaml
  bool quick = false, full = false;
};

std::string format_value(std::optional<double> v) {
  return v ? fmt::format("{:.4g}", *v) : std::string("-");
}

std::string format_seed(const report::SeedValue& s) {
  switch (s.kind) {
    case report::SeedValue::Kind::none:
      return "-";
    case report::SeedValue::Kind::point:
      return fmt::format("{:.4g}", s.lo);
    case report::SeedValue::Kind::range:
      return fmt::format("{:.4g}..{:.4g}", s.lo, s.hi);
  }
  return "-";
}

}  // namespace

void print_claims(const report::StudyResult& r) {
  fmt::print("{} ({})\n", r.title, r.study);
  fmt::print("  {:<28} {:>12} {:>12} {:>9}  {:<8} {}\n", "claim", "seed", "ours", "deviation",
             "unit", "verdict");
  for (const report::Claim& c : r.claims) {
    const auto dev = report::deviation(c.seed_value, c.ours);
    fmt::print("  {:<28} {:>12} {:>12} {:>9}  {:<8} {}\n", c.id, format_seed(c.seed_value),
               format_value(c.ours), dev ? fmt::format("{:+.0f}%", 100.0 * *dev) : "-", c.unit,
               report::to_string(c.verdict));
  }
}

void add_study_commands(CLI::App& app, const GlobalOptions& options, const Registry& registry) {
  CLI::App* study = app.add_subcommand("study", "Named studies: one per seed table or figure");
  study->require_subcommand(1);

  CLI::App* list = study->add_subcommand("list", "List the registered studies");
  list->callback([&options, &registry] {
    options.require_all_used();  // it reads no config: any --set is an error
    const auto names = studies::study_names(registry);
    if (options.json) {
      std::cout << dump_json(Json(names));
      return;
    }
    const auto* family = registry.find_family<studies::StudyFunction>(studies::kStudyFamily);
    if (family != nullptr)
      for (const auto& impl : family->implementations())
        fmt::print("{:<14} {}\n", impl.name, impl.help);
  });

  auto o = std::make_shared<StudyOptions>();
  CLI::App* run =
      study->add_subcommand("run", "Run one study; writes <out>/<name>.json and a CSV per table");
  run->add_option("NAME", o->name, "Study name (`lightsim study list`)")->required();
  run->add_option("--config", o->config, "Study config (default configs/studies/NAME.yaml)")
      ->type_name("FILE");
  auto* quick = run->add_flag("--quick", o->quick, "Smoke-test size (the config's sizes.quick)");
  run->add_flag("--full", o->full, "Publication size (the config's sizes.full)")->excludes(quick);
  run->callback([o, &options, &registry] {
    const config::LoadOptions load = options.load_options();
    const studies::Size size = o->full    ? studies::Size::full
                               : o->quick ? studies::Size::quick
                                          : studies::Size::standard;
    // Unknown names fail before the output folder is touched.
    (void)registry.find_family<studies::StudyFunction>(studies::kStudyFamily);
    const auto names = studies::study_names(registry);
    if (std::find(names.begin(), names.end(), o->name) == names.end())
      LIGHTSIM_THROW(UsageError, "unknown study '{}'{}", o->name, config::suggest(o->name, names));
    const std::filesystem::path file =
        o->config.empty() ? studies::default_config(o->name, load) : o->config;
    (void)registry.check_file(file, load);  // the study's config at every size, --set applied
    options.require_all_used();
    prepare_output_dir(options.out);
    Context ctx(options.context_options(1, Time::si(5.0)));
    const report::StudyResult r = studies::run_study(registry, o->name, file, load, size, ctx);
    const std::filesystem::path written = report::write_result(options.out, r);
    if (options.json) {
      std::cout << dump_json(report::to_json(r, written.string()));
      return;
    }
    print_claims(r);
    fmt::print("lightsim study: results in {}\n", written.string());
  });
}

}  // namespace lightsim::cli
