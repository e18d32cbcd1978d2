// `lightsim reproduce [CONFIG]`: the main job behind `make demo`.
#include <array>
#include <chrono>
#include <cmath>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>

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
// finished results are never silently mixed with new ones (docs/cli.md, "reproduce"). A result
// whose shadowed_presets (the --config-path presets it read instead of shipped ones) differ
// from this run's is not complete: empty, so the study runs again (said on the log).
std::optional<report::StudyResult> kept_result(const std::filesystem::path& out,
                                               const std::string& name,
                                               const std::string& config_yaml, std::uint64_t seed,
                                               const std::vector<report::ShadowedPreset>& shadows,
                                               Context& ctx) {
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
  if (r.shadowed_presets != shadows) {
    ctx.log().info(
        "reproduce: {} was computed with {} shadowed preset(s), this run has {} (--config-path): "
        "not complete, study {} runs again",
        file.string(), r.shadowed_presets.size(), shadows.size(), name);
    return std::nullopt;
  }
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

// <out>/study_times.csv: the wall time of each study a run measured, "study,size,wall_s" per
// line (docs/results.md). The one file of a run that differs from run to run, so it is kept out
// of run.json and of the results: the next run in the same folder weights its ETA by it.
constexpr const char* kStudyTimesFile = "study_times.csv";

struct StudyTime {
  std::string size;
  double seconds = 0;
};

// The times a previous run in `out` measured, by study; empty when there is none. A line that
// does not read is skipped: the ETA is an estimate, never a reason to stop.
std::map<std::string, StudyTime> previous_times(const std::filesystem::path& out) {
  std::map<std::string, StudyTime> times;
  const std::filesystem::path file = out / kStudyTimesFile;
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) return times;
  std::string text;
  try {
    text = read_input_file(file, "study times", kMaxJsonFileBytes);
  } catch (const Error&) {
    return times;
  }
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    const std::size_t a = line.find(','), b = line.rfind(',');
    if (a == std::string::npos || a == b) continue;
    char* end = nullptr;
    const std::string number = line.substr(b + 1);
    const double seconds = std::strtod(number.c_str(), &end);
    if (end == number.c_str() || !(seconds > 0) || !std::isfinite(seconds)) continue;
    times[line.substr(0, a)] = {line.substr(a + 1, b - a - 1), seconds};
  }
  return times;
}

void write_times(const std::filesystem::path& out, const std::map<std::string, StudyTime>& times) {
  std::string text = "study,size,wall_s\n";
  for (const auto& [name, t] : times)
    text += fmt::format("{},{},{:.3f}\n", name, t.size, t.seconds);
  write_file_atomic(out / kStudyTimesFile, text);
}

// The weight of each study in the ETA, in estimated seconds (docs/studies.md, "Cost"): 0 for
// a kept result; else the time a previous run in --out measured at this size; else the time the
// study's config declares for this size (`cost:`, docs/studies.md "Cost"); else the median of the
// others (1 s when none is known). Rounded up to whole seconds, at least 1, for the progress.
struct StudyWeights {
  std::vector<std::uint64_t> seconds;
  std::vector<std::string> sources;  // "kept", "measured", "declared", "median"
};

StudyWeights study_weights(const std::vector<std::string>& studies,
                           const std::vector<std::optional<double>>& declared,
                           const std::map<std::string, double>& measured,
                           const std::vector<bool>& kept) {
  std::vector<std::optional<double>> known(studies.size());
  StudyWeights w;
  w.sources.resize(studies.size());
  std::vector<double> values;
  for (std::size_t i = 0; i < studies.size(); ++i) {
    if (const auto m = measured.find(studies[i]); m != measured.end()) {
      known[i] = m->second;
      w.sources[i] = "measured";
    } else if (declared[i]) {
      known[i] = declared[i];
      w.sources[i] = "declared";
    }
    if (known[i]) values.push_back(*known[i]);
  }
  double median = 1.0;
  if (!values.empty()) {
    std::sort(values.begin(), values.end());
    median = values[values.size() / 2];
  }
  for (std::size_t i = 0; i < studies.size(); ++i) {
    if (kept[i]) {
      w.seconds.push_back(0);
      w.sources[i] = "kept";
      continue;
    }
    if (!known[i]) w.sources[i] = "median";
    w.seconds.push_back(std::max<std::uint64_t>(
        1, static_cast<std::uint64_t>(std::ceil(known[i].value_or(median)))));
  }
  return w;
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
  // Every study's memory estimate against the budget before any work: a study too large fails
  // here, not after the studies before it ran (studies::check_study_memory).
  Context ctx(options.context_options(spec.seed, spec.progress_interval));
  const studies::Size size = studies::parse_size(spec.size);
  for (const std::string& name : studies)
    studies::check_study_memory(registry, name, studies::default_config(name, load), load, size,
                                ctx.memory_budget(), ctx.threads());
  prepare_output_dir(options.out);  // fail before any work when the folder is unusable

  ctx.log().info("reproduce: seed {}, size {}, {} thread(s), {} stud{}", ctx.seed(), spec.size,
                 ctx.threads(), studies.size(), studies.size() == 1 ? "y" : "ies");

  // --resume: every kept result is checked before anything is written.
  std::vector<std::optional<report::StudyResult>> kept_results(studies.size());
  const std::vector<report::ShadowedPreset> shadows = studies::recorded_shadows(load);
  for (std::size_t i = 0; resume && i < studies.size(); ++i) {
    const studies::StudyInput in =
        studies::make_input(studies[i], studies::default_config(studies[i], load), load, size);
    kept_results[i] = kept_result(options.out, studies[i], config::to_yaml(in.document), ctx.seed(),
                                  shadows, ctx);
  }

  // The ETA's weights, read before run.json is rewritten.
  std::vector<std::optional<double>> declared(studies.size());
  std::vector<bool> is_kept(studies.size());
  for (std::size_t i = 0; i < studies.size(); ++i) {
    declared[i] = studies::declared_cost_s(
        config::load_document(studies::default_config(studies[i], load)), size);
    is_kept[i] = kept_results[i].has_value();
  }
  std::map<std::string, StudyTime> times = previous_times(options.out);
  std::map<std::string, double> measured;
  for (const auto& [name, t] : times)
    if (t.size == spec.size) measured[name] = t.seconds;
  const StudyWeights weights = study_weights(studies, declared, measured, is_kept);
  std::uint64_t total_weight = 0;
  for (std::uint64_t w : weights.seconds) total_weight += w;

  Json manifest;
  manifest["kind"] = "reproduce";
  manifest["lightsim_version"] = LIGHTSIM_VERSION;
  manifest["seed"] = ctx.seed();
  manifest["size"] = spec.size;
  manifest["studies"] = studies;
  manifest["config"] = config::to_yaml(document);
  // Presets of --config-path read instead of shipped ones of the same name (config_shadow.h).
  manifest["shadowed_presets"] = Json::array();
  for (const report::ShadowedPreset& s : shadows)
    manifest["shadowed_presets"].push_back(
        {{"name", s.name}, {"kind", s.kind}, {"used", s.used}, {"shadowed", s.shadowed}});
  write_json_file(options.out / "run.json", manifest);

  // Every study at the job's size, each written as soon as it finishes (a later failure or an
  // interrupt keeps the earlier results).
  // Weighted by each study's estimated seconds, so the ETA is the estimated time left at the
  // speed measured so far, not the study count left at the mean study's time.
  ProgressTask progress = ctx.progress().start("reproduce (est. s)", total_weight);
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
      ctx.log().info("reproduce: study {} ({}/{}, ETA weight {} s {}) ...", name, i + 1,
                     studies.size(), weights.seconds[i], weights.sources[i]);
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
    if (!kept) {  // a kept study keeps the time of the run that computed it
      times[name] = {spec.size, std::max(seconds, 1e-3)};
      write_times(options.out, times);
    }
    progress.advance(weights.seconds[i]);
  }
  progress.finish();
  const report::ReportSummary report =
      report::write_report(options.out, options.out / "report.html", report::default_library_dir(),
                           options.cancel, ctx.memory_budget());

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
