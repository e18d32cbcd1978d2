// Public measured serving figures (configs/references/serve_measured.yaml) and the validation of
// the serving simulator against them (docs/serving.md, "Validation"). A row names the serving
// scenario that restates its benchmark (model, GPU, lengths, concurrency, scheduler) and the
// figure it is compared on; a row that lightsim cannot restate says why instead. Nothing is
// fitted to these figures.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lightsim/core/config.h"
#include "lightsim/core/json_fwd.h"

namespace lightsim::serve {

// The figure a row is compared on, each as `serve run --json` reports it.
enum class ServeMetric {
  output_tokens_per_s_per_gpu,  // 1/s: output tokens over the makespan, per GPU of all pools
  tpot_p50_s,                   // s
  tpot_mean_s,                  // s
  ttft_p50_s,                   // s
};
std::string_view to_string(ServeMetric m);

struct ServeMeasurement {
  static constexpr std::string_view kind = "serve_measurement";
  std::string id;        // unique row name
  std::string scenario;  // configs/serve/ scenario restating the benchmark ("" = not expressed)
  ServeMetric metric = ServeMetric::output_tokens_per_s_per_gpu;
  double value = 0;           // measured, in the metric's unit
  std::string source;         // where the figure is published
  std::string text;           // how the figure and its configuration are read
  std::string not_expressed;  // why no scenario restates it (required when scenario is "")
  bool fitted = false;        // used to fit a parameter: excluded from the error
  static void describe(config::Schema<ServeMeasurement>& s);
};

struct ServeMeasurements {
  static constexpr std::string_view kind = "serve_measurements";
  std::vector<ServeMeasurement> measurements;
  static void describe(config::Schema<ServeMeasurements>& s);
};

// configs/references/serve_measured.yaml under the preset roots, or `file` when given.
ServeMeasurements load_serve_measurements(const config::LoadOptions& options,
                                          const std::string& file = "");

struct ServeValidationRow {
  std::string id, scenario, metric, source, not_expressed;
  bool fitted = false, expressed = false;
  double measured = 0, ours = 0;  // in the metric's unit
  double error = 0;               // ours / measured - 1 (expressed rows)
};

struct ServeValidationReport {
  std::vector<ServeValidationRow> rows;
  std::int64_t compared = 0;    // expressed, not fitted
  double median_abs_error = 0;  // over the compared rows
  double worst_error = 0;       // the largest |error| among them, signed
};

// Runs each expressed row's scenario once (serve::prepare + serve::run at `seed`; rows naming
// the same scenario share the run) and compares the metric. A row naming a scenario that cannot
// be read is the scenario's InputError, prefixed with the row's id.
ServeValidationReport validate(const ServeMeasurements& m, const config::LoadOptions& options,
                               std::uint64_t seed);
Json to_json(const ServeValidationReport& v);

}  // namespace lightsim::serve
