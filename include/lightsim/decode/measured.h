// Public measured decode throughputs (configs/references/decode_measured.yaml) and the
// validation of the decode-at-scale model against them (docs/decode.md, "Validation"). A row
// names the scenario that restates its deployment; nothing is fitted to these figures.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lightsim/core/config.h"
#include "lightsim/core/json_fwd.h"

namespace lightsim::decode {

struct DecodeMeasurement {
  static constexpr std::string_view kind = "decode_measurement";
  std::string id;                   // unique row name
  std::string scenario;             // configs/decode_scale/ name restating the deployment
  double tokens_per_s_per_gpu = 0;  // measured output tokens/s per GPU
  std::string source;               // where the figure is published
  std::string text;                 // how the figure and configuration are read
  bool fitted = false;              // used to fit a parameter: excluded from the error
  static void describe(config::Schema<DecodeMeasurement>& s);
};

struct DecodeMeasurements {
  static constexpr std::string_view kind = "decode_measurements";
  std::vector<DecodeMeasurement> measurements;
  static void describe(config::Schema<DecodeMeasurements>& s);
};

// configs/references/decode_measured.yaml under the preset roots.
DecodeMeasurements load_decode_measurements(const config::LoadOptions& options);

struct ValidationRow {
  std::string id, scenario, plan, source;
  bool fitted = false, feasible = false;
  std::string reason;
  double measured = 0, ours = 0;
  double error = 0;  // ours / measured - 1
  double tpot = 0;   // s, ours
};

struct ValidationReport {
  std::vector<ValidationRow> rows;
  double median_abs_error = 0;  // over the feasible non-fitted rows
  double worst_error = 0;       // the largest |error| among them, signed
};

// Each row's scenario at its plan, batch and context.
ValidationReport validate(const DecodeMeasurements& m, const config::LoadOptions& options);
Json to_json(const ValidationReport& v);

}  // namespace lightsim::decode
