// Reading a results folder and the chart libraries; writing the report file.
#include <algorithm>
#include <fstream>
#include <iterator>

#include "lightsim/core/atomic_file.h"
#include "lightsim/core/data_dir.h"
#include "lightsim/core/error.h"
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
      set.studies.push_back(read_result(file));
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

ReportSummary write_report(const std::filesystem::path& results_dir,
                           const std::filesystem::path& file,
                           const std::filesystem::path& library_dir, StopFlag stop) {
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
