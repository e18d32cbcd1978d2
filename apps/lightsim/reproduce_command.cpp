// `lightsim reproduce [CONFIG]`: the main job behind `make demo`.
#include <array>
#include <chrono>
#include <iostream>

#include "cli.h"
#include "lightsim/core/atomic_file.h"
#include "lightsim/core/data_dir.h"
#include "lightsim/core/json.h"
#include "lightsim/report/render.h"
#include "lightsim/studies/study.h"
#include "reproduce.h"

namespace lightsim::cli {
namespace {

void run_reproduce(const std::filesystem::path& config_file, const GlobalOptions& options,
                   const Registry& registry) {
  const config::LoadOptions load = options.load_options();
  const config::Node document = config::load_document(config_file);
  const ReproduceSpec spec = config::read_spec<ReproduceSpec>(document, load);
  const std::vector<std::string> known = studies::study_names(registry);
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
  const std::vector<std::string> studies = spec.studies.empty() ? known : spec.studies;
  // --set addresses the job file or the studies' configs (each that has the key).
  for (const std::string& name : studies)
    (void)registry.check_file(studies::default_config(name, load), load);
  options.require_all_used();
  prepare_output_dir(options.out);  // fail before any work when the folder is unusable

  Context ctx(options.context_options(spec.seed, spec.progress_interval));
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

  // Every study at the job's size, each written as soon as it finishes (a later failure or an
  // interrupt keeps the earlier results).
  const studies::Size size = studies::parse_size(spec.size);
  ProgressTask progress = ctx.progress().start("reproduce", studies.size());
  std::vector<std::string> lines;
  std::array<std::size_t, 6> totals{};  // claims, then per report::Verdict
  for (const std::string& name : studies) {
    ctx.throw_if_cancelled(
        fmt::format("reproduce (before study '{}'; finished results are in "
                    "{}/)",
                    name, options.out.string()));
    const auto started = std::chrono::steady_clock::now();
    ctx.log().info("reproduce: study {} ...", name);
    const report::StudyResult r =
        studies::run_study(registry, name, studies::default_config(name, load), load, size, ctx);
    report::write_result(options.out, r);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::array<int, 5> counts{};  // per report::Verdict, in its order
    for (const report::Claim& c : r.claims) ++counts[static_cast<std::size_t>(c.verdict)];
    totals[0] += r.claims.size();
    for (std::size_t v = 0; v < counts.size(); ++v) totals[v + 1] += counts[v];
    lines.push_back(fmt::format("  {:<14} {:>7.1f} s {:>7} {:>6} {:>11} {:>9} {:>11} {:>9}", name,
                                seconds, r.claims.size(), counts[0], counts[1], counts[2],
                                counts[3], counts[4]));
    ctx.log().info("reproduce: study {} done in {:.1f} s ({} claims)", name, seconds,
                   r.claims.size());
    progress.advance();
  }
  progress.finish();
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
  if (!lines.empty()) {
    // Two header rows, one column per report::Verdict.
    std::cout << fmt::format("  {:<14} {:>9} {:>7} {:>6} {:>11} {:>9} {:>11} {:>9}\n", "", "", "",
                             "", "holds under", "does not", "not", "depends on");
    std::cout << fmt::format("  {:<14} {:>9} {:>7} {:>6} {:>11} {:>9} {:>11} {:>9}\n", "study",
                             "time", "claims", "holds", "conditions", "hold", "comparable",
                             "workload");
  }
  for (const std::string& line : lines) std::cout << line << "\n";
  if (!lines.empty())
    std::cout << fmt::format("  {:<14} {:>9} {:>7} {:>6} {:>11} {:>9} {:>11} {:>9}\n", "all", "",
                             totals[0], totals[1], totals[2], totals[3], totals[4], totals[5]);
  std::cout << "lightsim reproduce: results in " << options.out.string() << "/ (run.json)\n";
  std::cout << "lightsim reproduce: report " << report.file.string() << "\n";
}

}  // namespace

void add_reproduce_command(CLI::App& app, const GlobalOptions& options, const Registry& registry) {
  CLI::App* cmd = app.add_subcommand(
      "reproduce", "Run every seed study and write results and the report to --out");
  // Empty: the data folder's configs/reproduce.yaml, looked up when the command runs (so a
  // missing data folder fails this command only).
  auto config_file = std::make_shared<std::filesystem::path>();
  cmd->add_option("CONFIG", *config_file,
                  "Job config (kind: reproduce); default: configs/reproduce.yaml of the data "
                  "folder (docs/install.md)");
  cmd->callback([config_file, &options, &registry] {
    run_reproduce(config_file->empty() ? data_configs_dir() / "reproduce.yaml" : *config_file,
                  options, registry);
  });
}

}  // namespace lightsim::cli
