// `lightsim reproduce [CONFIG]`: the main job behind `make demo`.
#include <iostream>

#include "cli.h"
#include "lightsim/core/atomic_file.h"
#include "lightsim/core/json.h"
#include "lightsim/report/render.h"
#include "reproduce.h"

namespace lightsim::cli {
namespace {

// Names of the registered studies (the "study" family), in registration order.
std::vector<std::string> registered_studies(const Registry& registry) {
  std::vector<std::string> names;
  for (const auto& family : registry.families())
    if (family.name == "study")
      for (const auto& impl : *family.implementations) names.push_back(impl.name);
  return names;
}

void run_reproduce(const std::filesystem::path& config_file, const GlobalOptions& options,
                   const Registry& registry) {
  const config::LoadOptions load = options.load_options();
  const config::Node document = config::load_document(config_file);
  const ReproduceSpec spec = config::read_spec<ReproduceSpec>(document, load);
  const std::vector<std::string> known = registered_studies(registry);
  for (std::size_t i = 0; i < spec.studies.size(); ++i) {
    if (std::find(known.begin(), known.end(), spec.studies[i]) == known.end()) {
      const config::Node* listed = document.find("studies");
      const std::string where = listed != nullptr && listed->is_sequence()
                                    ? listed->items()[i].location().str()
                                    : config_file.string();
      LIGHTSIM_THROW(ConfigError, "{}: studies[{}]: unknown study '{}'{}", where, i,
                     spec.studies[i],
                     known.empty() ? std::string(" (no study is registered in this build yet)")
                                   : config::suggest(spec.studies[i], known));
    }
  }
  prepare_output_dir(options.out);  // fail before any work when the folder is unusable

  Context ctx(options.context_options(spec.seed, spec.progress_interval));
  const std::vector<std::string> studies = spec.studies.empty() ? known : spec.studies;
  ctx.log().info("reproduce: seed {}, size {}, {} thread(s), {} stud{}", ctx.seed(), spec.size,
                 ctx.threads(), studies.size(), studies.size() == 1 ? "y" : "ies");

  Json manifest;
  manifest["kind"] = "reproduce";
  manifest["lightsim_version"] = LIGHTSIM_VERSION;
  manifest["seed"] = ctx.seed();
  manifest["size"] = spec.size;
  manifest["studies"] = studies;
  manifest["config"] = config::to_yaml(document);
  write_json_file(options.out / "run.json", manifest);
  const report::ReportSummary report =
      report::write_report(options.out, options.out / "report.html");

  if (options.json) {
    std::cout << dump_json(
        {{"out", options.out.string()}, {"studies", studies}, {"report", report.file.string()}});
    return;
  }
  if (studies.empty())
    std::cout << "lightsim reproduce: no study is registered in this build yet; the seed "
                 "studies arrive with the prism, prefill and studies modules.\n";
  std::cout << "lightsim reproduce: results in " << options.out.string() << "/ (run.json)\n";
  std::cout << "lightsim reproduce: report " << report.file.string() << "\n";
}

}  // namespace

void add_reproduce_command(CLI::App& app, const GlobalOptions& options, const Registry& registry) {
  CLI::App* cmd = app.add_subcommand(
      "reproduce", "Run every seed study and write results and the report to --out");
  auto config_file =
      std::make_shared<std::filesystem::path>(LIGHTSIM_SOURCE_DIR "/configs/reproduce.yaml");
  cmd->add_option("CONFIG", *config_file, "Job config (kind: reproduce)")->capture_default_str();
  cmd->callback(
      [config_file, &options, &registry] { run_reproduce(*config_file, options, registry); });
}

}  // namespace lightsim::cli
