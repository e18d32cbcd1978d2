// Serving validation against public measurements (measured.h).
#include "lightsim/serve/measured.h"

#include <map>
#include <set>

#include "lightsim/core/config_files.h"
#include "lightsim/core/error_summary.h"
#include "lightsim/core/json.h"
#include "lightsim/serve/run.h"

namespace lightsim::serve {

std::string_view to_string(ServeMetric m) {
  switch (m) {
    case ServeMetric::output_tokens_per_s_per_gpu:
      return "output_tokens_per_s_per_gpu";
    case ServeMetric::tpot_p50_s:
      return "tpot_p50_s";
    case ServeMetric::tpot_mean_s:
      return "tpot_mean_s";
    case ServeMetric::ttft_p50_s:
      return "ttft_p50_s";
  }
  return "?";
}

void ServeMeasurement::describe(config::Schema<ServeMeasurement>& s) {
  s.help(
      "A published measured serving figure (throughput or latency under stated traffic), "
      "restated by a serving scenario, or the reason it cannot be.");
  s.field("id", &ServeMeasurement::id, "unique row name").required();
  s.field("scenario", &ServeMeasurement::scenario,
          "serving scenario restating the benchmark (a configs/serve/ name or a path from a "
          "config root, e.g. serve/validation/NAME.yaml); \"\" when not expressed");
  s.enumeration("metric", &ServeMeasurement::metric,
                {{"output_tokens_per_s_per_gpu", ServeMetric::output_tokens_per_s_per_gpu},
                 {"tpot_p50_s", ServeMetric::tpot_p50_s},
                 {"tpot_mean_s", ServeMetric::tpot_mean_s},
                 {"ttft_p50_s", ServeMetric::ttft_p50_s}},
                "the figure compared, as serve run --json reports it (unit in the name)");
  s.field("value", &ServeMeasurement::value, "measured, in the metric's unit")
      .positive()
      .required();
  s.field("source", &ServeMeasurement::source, "publication, table or figure").required();
  s.field("text", &ServeMeasurement::text, "how the figure and its configuration are read");
  s.field("not_expressed", &ServeMeasurement::not_expressed,
          "why no scenario restates the figure (required when scenario is empty)");
  s.field("fitted", &ServeMeasurement::fitted,
          "true when used to fit a parameter (excluded from the validation error)");
  s.rule([](const ServeMeasurement& m) -> std::optional<std::string> {
    if (m.scenario.empty() && m.not_expressed.empty())
      return "a row without 'scenario' must say why in 'not_expressed'";
    if (!m.scenario.empty() && !m.not_expressed.empty())
      return "give either 'scenario' or 'not_expressed', not both";
    return std::nullopt;
  });
}

void ServeMeasurements::describe(config::Schema<ServeMeasurements>& s) {
  s.help("Public measured serving figures (configs/references/serve_measured.yaml).");
  s.field("measurements", &ServeMeasurements::measurements, "the rows").min_items(1);
  s.rule([](const ServeMeasurements& m) -> std::optional<std::string> {
    std::set<std::string> seen;
    for (const ServeMeasurement& r : m.measurements)
      if (!seen.insert(r.id).second) return "measurements: id '" + r.id + "' appears twice";
    return std::nullopt;
  });
}

ServeMeasurements load_serve_measurements(const config::LoadOptions& options,
                                          const std::string& file) {
  return config::load_spec<ServeMeasurements>(
      config::find_named(file.empty() ? "serve_measured" : file, "references", options,
                         "serve measurements"),
      options);
}

namespace {

double metric_value(const SimResult& s, ServeMetric m) {
  switch (m) {
    case ServeMetric::output_tokens_per_s_per_gpu:
      return s.gpus > 0 ? s.output_tokens_per_s / static_cast<double>(s.gpus) : 0.0;
    case ServeMetric::tpot_p50_s:
      return s.tpot.p50;
    case ServeMetric::tpot_mean_s:
      return s.tpot.mean;
    case ServeMetric::ttft_p50_s:
      return s.ttft.p50;
  }
  return 0.0;
}

}  // namespace

ServeValidationReport validate(const ServeMeasurements& m, const config::LoadOptions& options,
                               std::uint64_t seed) {
  ServeValidationReport v;
  std::map<std::string, SimResult> runs;  // scenario -> its simulation (rows share it)
  std::vector<double> errors;
  for (const ServeMeasurement& row : m.measurements) {
    ServeValidationRow r;
    r.id = row.id;
    r.scenario = row.scenario;
    r.metric = std::string(to_string(row.metric));
    r.source = row.source;
    r.not_expressed = row.not_expressed;
    r.fitted = row.fitted;
    r.measured = row.value;
    if (!row.scenario.empty()) {
      auto it = runs.find(row.scenario);
      if (it == runs.end()) {
        ServeSetup setup;
        try {
          setup = prepare(row.scenario, options, seed);
        } catch (const InputError& e) {
          LIGHTSIM_THROW(ConfigError, "serve measurement '{}': scenario '{}': {}", row.id,
                         row.scenario, e.what());
        }
        it = runs.emplace(row.scenario, run(setup).sim).first;
      }
      r.expressed = true;
      r.ours = metric_value(it->second, row.metric);
      r.error = r.ours / r.measured - 1.0;
      if (!r.fitted) errors.push_back(r.error);
    }
    v.rows.push_back(std::move(r));
  }
  v.compared = static_cast<std::int64_t>(errors.size());
  const core::ErrorSummary summary = core::summarize_errors(errors);
  v.median_abs_error = summary.median_abs_error;
  v.worst_error = summary.worst_error;
  return v;
}

Json to_json(const ServeValidationReport& v) {
  Json rows = Json::array();
  for (const ServeValidationRow& r : v.rows)
    rows.push_back({{"id", r.id},
                    {"scenario", r.scenario},
                    {"metric", r.metric},
                    {"source", r.source},
                    {"fitted", r.fitted},
                    {"expressed", r.expressed},
                    {"not_expressed", r.not_expressed},
                    {"measured", r.measured},
                    {"ours", r.ours},
                    {"error", r.error}});
  return {{"rows", rows},
          {"compared", v.compared},
          {"median_abs_error", v.median_abs_error},
          {"worst_error", v.worst_error}};
}

}  // namespace lightsim::serve
