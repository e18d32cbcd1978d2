// The drift run's trace and recalibration events as tables (thermal.h), shared by
// `lightsim prism thermal` (CSV files) and the `thermal` study (report tables).
#include "lightsim/prism/thermal.h"

namespace lightsim::prism {

namespace {
constexpr double kPm = 1e12;
}  // namespace

Table drift_trace_table(const DriftRun& run, std::size_t max_rows) {
  Table t({{"t", "s"},
           {"ambient", "C"},
           {"chip", "C"},
           {"sensor_mean", "C"},
           {"coarse_action", "K"},
           {"fine_action", "K"},
           {"tec_power", "W"},
           {"uncorrected_rms", "pm"},
           {"error_rms", "pm"},
           {"error_max", "pm"},
           {"weight_error_rms", ""},
           {"weight_error_max", ""},
           {"relocked_rows", ""},
           {"unlocked_rings", ""}});
  const std::size_t n = run.trace.size();
  const std::size_t every =
      max_rows == 0 ? 1 : std::max<std::size_t>(1, (n + max_rows - 1) / max_rows);
  std::int64_t relocked = 0;  // rows relocked since the last kept sample
  for (std::size_t i = 0; i < n; ++i) {
    const DriftSample& s = run.trace[i];
    relocked += s.relocked_rows;
    if ((i + 1) % every != 0 && i + 1 != n) continue;
    t.add_row({s.t, s.ambient, s.chip, s.sensor_mean, s.coarse_action, s.fine_action, s.tec_power,
               s.uncorrected_rms * kPm, s.error_rms * kPm, s.error_max * kPm, s.weight_error_rms,
               s.weight_error_max, relocked, std::int64_t{s.unlocked}});
    relocked = 0;
  }
  return t;
}

Table recalibration_table(const DriftRun& run) {
  Table t(
      {{"t", "s"}, {"trigger", ""}, {"rows", ""}, {"failed", ""}, {"time", "s"}, {"energy", "J"}});
  for (const auto& e : run.events)
    t.add_row({e.t, e.trigger, std::int64_t{e.rows}, std::int64_t{e.failed}, e.time, e.energy});
  return t;
}

}  // namespace lightsim::prism
