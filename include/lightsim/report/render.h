// The HTML report: one self-contained file rendered from a folder of study results.
//
// report.html opens offline from disk (no server, no network): the chart libraries (Vega,
// Vega-Lite, vega-embed from third_party/vega/) and every chart's data are inlined. It holds
// a summary table of every claim across studies (seed figure, ours, deviation, verdict, link
// to the study's section), then per study its charts with their tables under them, its claims
// in full, and the config, seed and version that produced it. All text is HTML-escaped; the
// output bytes depend only on the inputs (no timestamps).
//
// For the browser test the page records script errors and chart failures: element
// #report-status gets data-expected (charts), data-rendered (charts drawn) and data-done="1"
// when every chart settled; #report-errors lists each error as an <li>.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lightsim/core/json.h"
#include "lightsim/report/result.h"

namespace lightsim::report {

// The stop flag of a long report (main's SIGINT/SIGTERM flag; nullptr: never stopped). Set,
// reading and rendering end with Interrupted ("report: interrupted", exit 130) at the next
// result file, study section or block of 4096 table rows, and no report is written.
using StopFlag = const std::atomic<bool>*;

// Everything a report is rendered from.
struct ResultSet {
  std::filesystem::path dir;         // where the results were read (shown in the report)
  std::vector<StudyResult> studies;  // in run.json's order, then by file name
  std::optional<Json> run;           // run.json of `lightsim reproduce`, when present
};

// Reads every `*.json` in `dir`: `run.json` as the reproduce manifest (kind "reproduce"),
// every other file as a study result (read_result). A missing folder is an InputError; a bad
// file a DataFormatError naming it and the key.
ResultSet load_results(const std::filesystem::path& dir, StopFlag stop = nullptr);

// The minified chart libraries, inlined into the page.
struct ChartLibraries {
  std::string vega;
  std::string vega_lite;
  std::string vega_embed;
};

// third_party/vega/ of the data folder (lightsim/core/data_dir.h).
std::filesystem::path default_library_dir();

// Reads vega.min.js, vega-lite.min.js and vega-embed.min.js from `dir`. A missing or
// unreadable file is an IoError naming it (the source tree's third_party/vega/ is required).
ChartLibraries load_chart_libraries(const std::filesystem::path& dir);

// The whole report page.
std::string render_html(const ResultSet& results, const ChartLibraries& libraries,
                        StopFlag stop = nullptr);

// Text escaped for HTML element content and attribute values (& < > " ').
std::string html_escape(std::string_view text);

// Compact JSON (no indentation) made safe inside a <script> element: '<', '>' and '&' (which JSON
// can only hold inside strings) become \u003c, \u003e and \u0026.
std::string script_json(const Json& value);

// What write_report did, for the CLI's summary line.
struct ReportSummary {
  std::filesystem::path file;
  std::size_t studies = 0;
  std::size_t claims = 0;
  std::size_t charts = 0;
};

// Peak memory (RSS) of a report per byte of result JSON it reads: nlohmann::json's tree of
// every parsed result (a 16-byte value per number and string, strings, arrays and map nodes on
// the heap), the StudyResults built from it and the page rendered beside them, whose charted
// tables are inlined as JSON again. Measured with /usr/bin/time -v (4 Dec 2026, GCC 12
// Release at 29b11ed, load ~1.6 from other builds): one 58.8 MB result whose
// 2.0M-row table is charted peaked at 1.08 GB, 18.4 bytes per JSON byte; four such files
// (235 MB) 4.14 GB, 17.6; the same file uncharted (its table left to the CSV) 0.79 GB, 13.5.
// The estimate takes 19, above every measurement (docs/hardening.md, "Limits").
inline constexpr std::uint64_t kReportBytesPerJsonByte = 19;
// What a report needs whatever its results: the program, the chart libraries (0.85 MB, read
// into the page) and the page's fixed parts. Measured 20 MB peak RSS for the three small
// fixtures of tests/data/report; 32 MiB is taken.
inline constexpr std::uint64_t kReportBaseBytes = std::uint64_t{32} << 20;

// The estimated peak memory of reporting `dir`: kReportBaseBytes + kReportBytesPerJsonByte x
// the bytes of its `*.json` files (the files load_results reads), from their sizes alone,
// before any is read. InputError (exit 2) when it exceeds `budget_bytes`: "report of 'DIR'
// (4 result files of 224 MiB, the largest 'DIR/x.json' of 56.1 MiB) needs ~4.17 GiB, more
// than the memory budget of 1 GiB (--memory-budget, ...)". A missing folder is left to
// load_results.
void require_report_memory(const std::filesystem::path& dir, std::uint64_t budget_bytes);

// require_report_memory(results_dir, memory_budget) (0: default_memory_budget(), 80% of RAM),
// then load_results(results_dir), render_html with the libraries from `library_dir`, written
// atomically to `file` (nothing when stopped or refused).
ReportSummary write_report(const std::filesystem::path& results_dir,
                           const std::filesystem::path& file,
                           const std::filesystem::path& library_dir = default_library_dir(),
                           StopFlag stop = nullptr, std::uint64_t memory_budget = 0);

// Interrupted ("report: interrupted") when `stop` is set.
void throw_if_stopped(StopFlag stop);

}  // namespace lightsim::report
