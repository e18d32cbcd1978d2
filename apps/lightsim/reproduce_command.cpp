// `lightsim reproduce [CONFIG]`: the main job behind `make demo`.
#include <array>
#include <chrono>
#include <iostream>
#include <optional>

#include "cli.h"
#include "lightsim/core/atomic_file.h"
#include "lightsim/core/config_shadow.h"
#include "lightsim/core/csv.h"
#include "lightsim/core/data_dir.h"
#include "lightsim/core/input_file.h"
#include "lightsim/core/json.h"
#include "lightsim/report/render.h"
#include "lightsim/studies/study.h"
#include "reproduce.h"

namespace lightsim::cli {
namespace {

// --resume: the result of study `name` kept in `out` when it is complete and this run's: it
// reads and validates (report::read_result), its seed, lightsim version and config (the
// study's document at this size, as run_study records it) are this run's, and each table's
// CSV file holds exactly the table. Empty when `out` has no <name>.json (the study runs).
// A result of another run, or a CSV that differs, is a DataFormatError naming the file: the
// finished results are never silently mixed with new ones (docs/cli.md, "reproduce").
std::optional<report::StudyResult> kept_result(const std::filesystem::path& out,
                                               const std::string& name,
                                               const std::string& config_yaml, std::uint64_t seed) {
  const std::filesystem::path file = out / (name + ".json");
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) return std::nullopt;
  const report::StudyResult r = report::read_result(file);
  const std::string rerun =
      "delete it to run the study again, or run without --resume to run every study";
  LIGHTSIM_CHECK_AS(DataFormatError, r.seed == seed,
                    "{}: seed: the kept result has seed {}, this run {} ({})", file.string(),
                    r.seed, seed, rerun);
  LIGHTSIM_CHECK_AS(DataFormatError, r.lightsim_version == LIGHTSIM_VERSION,
                    "{}: lightsim_version: the kept result is of lightsim {}, this is {} ({})",
                    file.string(), r.lightsim_version, LIGHTSIM_VERSION, rerun);
  LIGHTSIM_CHECK_AS(DataFormatError, r.config == config_yaml,
                    "{}: config: the kept result was computed from another config or size than "
                    "this run's ({})",
                    file.string(), rerun);
  for (const report::NamedTable& t : r.tables) {
    const std::filesystem::path csv = out / fmt::format("{}_{}.csv", name, t.name);
    std::string text;
    if (std::filesystem::exists(csv, ec))
      text = read_input_file(csv, "CSV file", kMaxJsonFileBytes);
    LIGHTSIM_CHECK_AS(DataFormatError, text == to_csv(t.table),
                      "{}: missing or not the table '{}' of {} ({})", csv.string(), t.name,
                      file.string(), rerun);
  }
  return r;
}

void run_reproduce(const std::filesystem::path& config_file, bool resume,
                   const GlobalOptions& options, const Registry& registry) {
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

  // --resume: every kept result is checked before anything is written.
  const studies::Size size = studies::parse_size(spec.size);
  std::vector<std::optional<report::StudyResult>> kept_results(studies.size());
  for (std::size_t i = 0; resume && i < studies.size(); ++i) {
    const studies::StudyInput in =
        studies::make_input(studies[i], studies::default_config(studies[i], load), load, size);
    kept_results[i] =
        kept_result(options.out, studies[i], config::to_yaml(in.document), ctx.seed());
  }

  Json manifest;
  manifest["kind"] = "reproduce";
  manifest["lightsim_version"] = LIGHTSIM_VERSION;
  manifest["seed"] = ctx.seed();
  manifest["size"] = spec.size;
  manifest["studies"] = studies;
  manifest["config"] = config::to_yaml(document);
  // Presets of --config-path read instead of shipped ones of the same name (config_shadow.h).
  manifest["shadowed_presets"] = Json::array();
  for (const config::ShadowedPreset& s : config::shadowed_presets(load))
    manifest["shadowed_presets"].push_back(
        {{"name", s.name}, {"used", s.used.string()}, {"shadowed", s.shadowed.string()}});
  write_json_file(options.out / "run.json", manifest);

  // Every study at the job's size, each written as soon as it finishes (a later failure or an
  // interrupt keeps the earlier results).
  ProgressTask progress = ctx.progress().start("reproduce", studies.size());
  std::vector<std::string> lines;
  std::array<std::size_t, 6> totals{};  // claims, then per report::Verdict
  for (std::size_t i = 0; i < studies.size(); ++i) {
    const std::string& name = studies[i];
    ctx.throw_if_cancelled(
        fmt::format("reproduce (before study '{}'; finished results are in "
                    "{}/)",
                    name, options.out.string()));
    const auto started = std::chrono::steady_clock::now();
    const std::filesystem::path study_config = studies::default_config(name, load);
    const std::optional<report::StudyResult>& kept = kept_results[i];
    if (kept)
      ctx.log().info("reproduce: study {} is complete in {}/, kept", name, options.out.string());
    else
      ctx.log().info("reproduce: study {} ...", name);
    const report::StudyResult r =
        kept ? *kept : studies::run_study(registry, name, study_config, load, size, ctx);
    if (!kept) report::write_result(options.out, r);
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
  auto resume = std::make_shared<bool>(false);
  cmd->add_flag("--resume", *resume,
                "Keep the studies whose results in --out are complete and of this run (same "
                "seed, config, size and version; checked), run the rest");
  cmd->callback([config_file, resume, &options, &registry] {
    run_reproduce(config_file->empty() ? data_configs_dir() / "reproduce.yaml" : *config_file,
                  *resume, options, registry);
  });
}

}  // namespace lightsim::cli
