// Reading a results folder and the chart libraries; writing the report file.
#include <algorithm>
#include <fstream>
#include <iterator>

#include "lightsim/core/atomic_file.h"
#include "lightsim/core/data_dir.h"
#include "lightsim/core/error.h"
#include "lightsim/core/input_file.h"
#include "lightsim/core/memory_budget.h"
#include "lightsim/report/render.h"

namespace lightsim::report {
namespace {

Json read_run_manifest(const std::filesystem::path& file) {
  Json run = read_json_file(file);
  if (!run.is_object() || !run.contains("kind") || run["kind"] != "reproduce")
    LIGHTSIM_THROW(DataFormatError,
                   "{}: kind: expected 'reproduce' (the manifest written by "
                   "`lightsim reproduce`)",
                   file.string());
  if (run.contains("studies") && !run["studies"].is_array())
    LIGHTSIM_THROW(DataFormatError, "{}: studies: expected an array of study names", file.string());
  return run;
}

std::string read_library(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in)
    LIGHTSIM_THROW(IoError,
                   "chart library '{}' is missing or unreadable (it ships in "
                   "third_party/vega/ of lightsim's data folder, docs/install.md)",
                   file.string());
  std::string text(std::istreambuf_iterator<char>(in), {});
  if (in.bad() || text.empty())
    LIGHTSIM_THROW(IoError, "chart library '{}' could not be read or is empty", file.string());
  std::string lower = text;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) {
    return static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
  });
  if (lower.find("</script") != std::string::npos || lower.find("<!--") != std::string::npos)
    LIGHTSIM_THROW(IoError,
                   "chart library '{}' contains '</script' or '<!--' and cannot be "
                   "inlined into a <script> element",
                   file.string());
  return text;
}

}  // namespace

void throw_if_stopped(StopFlag stop) {
  if (stop != nullptr && stop->load(std::memory_order_relaxed)) [[unlikely]]
    LIGHTSIM_THROW(Interrupted, "report: interrupted");
}

ResultSet load_results(const std::filesystem::path& dir, StopFlag stop) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    LIGHTSIM_THROW(InputError, "results folder '{}' does not exist or is not a folder",
                   dir.string());
  ResultSet set;
  set.dir = dir;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.is_regular_file() && entry.path().extension() == ".json")
      files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const auto& file : files) {
    throw_if_stopped(stop);
    if (file.filename() == "run.json") {
      set.run = read_run_manifest(file);
    } else {
      set.studies.push_back(read_result(file, stop));  // polls `stop` inside the parse
    }
  }
  // run.json's order first (the order the studies ran), then the rest by file name.
  if (set.run && set.run->contains("studies")) {
    const Json& order = (*set.run)["studies"];
    auto rank = [&](const StudyResult& r) {
      for (std::size_t i = 0; i < order.size(); ++i)
        if (order[i].is_string() && order[i].get<std::string>() == r.study) return i;
      return order.size();
    };
    std::stable_sort(set.studies.begin(), set.studies.end(),
                     [&](const StudyResult& a, const StudyResult& b) { return rank(a) < rank(b); });
  }
  return set;
}

std::filesystem::path default_library_dir() {
  return data_dir() / "third_party" / "vega";
}

ChartLibraries load_chart_libraries(const std::filesystem::path& dir) {
  return {read_library(dir / "vega.min.js"), read_library(dir / "vega-lite.min.js"),
          read_library(dir / "vega-embed.min.js")};
}

void require_report_memory(const std::filesystem::path& dir, std::uint64_t budget_bytes) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return;  // load_results names it
  std::size_t files = 0;
  std::uint64_t total = 0;
  std::uint64_t largest = 0;
  std::filesystem::path largest_file;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (!entry.is_regular_file(ec) || entry.path().extension() != ".json") continue;
    const std::uint64_t size = entry.file_size(ec);
    if (ec) continue;  // vanished or unreadable: load_results reports it
    ++files;
    total = add_bytes(total, size);
    if (size > largest) {
      largest = size;
      largest_file = entry.path();
    }
  }
  const std::uint64_t needed =
      add_bytes(kReportBaseBytes, bytes_of(total, kReportBytesPerJsonByte));
  const std::string what =
      files == 0 ? fmt::format("report of '{}' (no result files)", dir.string())
                 : fmt::format("report of '{}' ({} result file{} of {}, the largest '{}' of {})",
                               dir.string(), files, files == 1 ? "" : "s", format_bytes(total),
                               largest_file.string(), format_bytes(largest));
  require_memory(needed, budget_bytes, what);
}

ReportSummary write_report(const std::filesystem::path& results_dir,
                           const std::filesystem::path& file,
                           const std::filesystem::path& library_dir, StopFlag stop,
                           std::uint64_t memory_budget) {
  // Before anything is read: the results' sizes bound the parse and the page.
  require_report_memory(results_dir, memory_budget != 0 ? memory_budget : default_memory_budget());
  const ResultSet results = load_results(results_dir, stop);
  const ChartLibraries libraries = load_chart_libraries(library_dir);
  const std::string html = render_html(results, libraries, stop);
  throw_if_stopped(stop);
  write_file_atomic(file, html);
  ReportSummary summary{file, results.studies.size(), 0, 0};
  for (const StudyResult& r : results.studies) {
    summary.claims += r.claims.size();
    summary.charts += r.charts.size();
  }
  return summary;
}

}  // namespace lightsim::report
