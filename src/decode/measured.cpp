// Decode validation against public measurements (measured.h).
#include "lightsim/decode/measured.h"

#include "lightsim/core/config_files.h"
#include "lightsim/core/error_summary.h"
#include "lightsim/core/json.h"
#include "lightsim/decode/scale.h"

namespace lightsim::decode {

void DecodeMeasurement::describe(config::Schema<DecodeMeasurement>& s) {
  s.help("A published measured decode throughput of a deployed system, restated by a scenario.");
  s.field("id", &DecodeMeasurement::id, "unique row name").required();
  s.field("scenario", &DecodeMeasurement::scenario,
          "configs/decode_scale/ scenario restating the deployment (plan, batch, context)")
      .required();
  s.field("tokens_per_s_per_gpu", &DecodeMeasurement::tokens_per_s_per_gpu,
          "measured output tokens/s per GPU")
      .positive()
      .required();
  s.field("source", &DecodeMeasurement::source, "publication, table or figure").required();
  s.field("text", &DecodeMeasurement::text, "how the figure and its configuration are read");
  s.field("fitted", &DecodeMeasurement::fitted,
          "true when used to fit a parameter (excluded from the validation error)");
}

void DecodeMeasurements::describe(config::Schema<DecodeMeasurements>& s) {
  s.help("Public measured decode throughputs (configs/references/decode_measured.yaml).");
  s.field("measurements", &DecodeMeasurements::measurements, "the rows").min_items(1);
}

DecodeMeasurements load_decode_measurements(const config::LoadOptions& options) {
  return config::load_spec<DecodeMeasurements>(
      config::find_named("decode_measured", "references", options, "decode measurements"), options);
}

ValidationReport validate(const DecodeMeasurements& m, const config::LoadOptions& options) {
  ValidationReport v;
  std::vector<double> errors;
  for (const DecodeMeasurement& row : m.measurements) {
    const ScaleSetup s = prepare(load_scale_scenario(row.scenario, options), options);
    LIGHTSIM_CHECK_AS(ConfigError, !s.scenario.plan.empty() && s.scenario.batch > 0,
                      "decode measurement '{}': scenario '{}' must set plan and batch", row.id,
                      row.scenario);
    const StepEvaluator ev(s);
    const StepBreakdown b =
        ev.step_time(parse_plan(s.scenario.plan, 0), s.scenario.batch, s.scenario.context);
    ValidationRow r;
    r.id = row.id;
    r.scenario = row.scenario;
    r.plan = format_plan(b.plan);
    r.source = row.source;
    r.fitted = row.fitted;
    r.feasible = b.feasible;
    r.reason = b.reason;
    r.measured = row.tokens_per_s_per_gpu;
    if (b.feasible) {
      r.ours = b.tokens_per_s_per_gpu;
      r.tpot = b.tpot;
      r.error = r.ours / r.measured - 1.0;
      if (!r.fitted) errors.push_back(r.error);
    }
    v.rows.push_back(std::move(r));
  }
  const core::ErrorSummary summary = core::summarize_errors(errors);
  v.median_abs_error = summary.median_abs_error;
  v.worst_error = summary.worst_error;
  return v;
}

Json to_json(const ValidationReport& v) {
  Json rows = Json::array();
  for (const ValidationRow& r : v.rows)
    rows.push_back({{"id", r.id},
                    {"scenario", r.scenario},
                    {"plan", r.plan},
                    {"source", r.source},
                    {"fitted", r.fitted},
                    {"feasible", r.feasible},
                    {"reason", r.reason},
                    {"measured_tokens_per_s_per_gpu", r.measured},
                    {"tokens_per_s_per_gpu", r.ours},
                    {"tpot_s", r.tpot},
                    {"error", r.error}});
  return {{"rows", rows}, {"median_abs_error", v.median_abs_error}, {"worst_error", v.worst_error}};
}

}  // namespace lightsim::decode
