// `lightsim report RESULTS_DIR [-o FILE]`: renders report.html from a folder of study results
// (docs/results.md).
#include <iostream>

#include "cli.h"
#include "lightsim/core/atomic_file.h"
#include "lightsim/core/json.h"
#include "lightsim/report/render.h"

namespace lightsim::cli {
namespace {

struct ReportOptions {
  std::filesystem::path results_dir;
  std::filesystem::path output;  // empty = RESULTS_DIR/report.html
};

void run_report(const ReportOptions& opts, const GlobalOptions& options) {
  const std::filesystem::path file =
      opts.output.empty() ? opts.results_dir / "report.html" : opts.output;
  // An explicit -o may name a new folder; the default lives in RESULTS_DIR, which must exist.
  if (!opts.output.empty() && file.has_parent_path()) prepare_output_dir(file.parent_path());
  const report::ReportSummary summary =
      report::write_report(opts.results_dir, file, report::default_library_dir(), options.cancel,
                           options.memory_budget);  // 0 (no --memory-budget): the default
  if (options.json) {
    std::cout << dump_json({{"report", summary.file.string()},
                            {"studies", summary.studies},
                            {"claims", summary.claims},
                            {"charts", summary.charts}});
    return;
  }
  std::cout << fmt::format("lightsim report: {} stud{}, {} claim(s), {} chart(s) -> {}\n",
                           summary.studies, summary.studies == 1 ? "y" : "ies", summary.claims,
                           summary.charts, summary.file.string());
}

}  // namespace

void add_report_commands(CLI::App& app, const GlobalOptions& options, const Registry&) {
  auto opts = std::make_shared<ReportOptions>();
  CLI::App* cmd = app.add_subcommand(
      "report", "Render one self-contained report.html from a folder of study results");
  cmd->add_option("RESULTS_DIR", opts->results_dir,
                  "Folder of <study>.json results (and run.json), e.g. out/")
      ->required();
  cmd->add_option("-o,--output", opts->output, "Report file (default RESULTS_DIR/report.html)")
      ->type_name("FILE");
  cmd->callback([opts, &options] {
    options.require_all_used();  // it reads no config: any --set is an error
    run_report(*opts, options);
  });
}

}  // namespace lightsim::cli
