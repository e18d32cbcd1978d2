// Device physics of a micro-ring weight bank (docs/photonics.md): photonics_ring,
// photonics_crosstalk, photonics_link_budget and photonics_feasibility, each on one device
// config (a file, or a preset name of configs/devices/).
#include <fmt/format.h>

#include <cmath>
#include <ostream>

#include "lightsim/core/config_files.h"
#include "lightsim/ops/operation.h"
#include "lightsim/ops/register.h"
#include "lightsim/photonics/device.h"
#include "lightsim/photonics/feasibility.h"
#include "lightsim/photonics/link_budget.h"

namespace lightsim::ops {

// The request of every photonics operation: one device.
struct DeviceRequest {
  static constexpr std::string_view kind = "photonics_request";
  std::string config;
  static void describe(config::Schema<DeviceRequest>& s) {
    s.help(
        "Request of the photonics operations (photonics ring|crosstalk|link-budget|"
        "feasibility): one device.");
    s.field("config", &DeviceRequest::config,
            "device config file, or a preset name from configs/devices/ (e.g. tfln)")
        .required();
  }
};

namespace {

using photonics::DeviceSpec;

constexpr double kNm = 1e9, kPm = 1e12;

double db(double ratio) {
  return 10.0 * std::log10(ratio);
}

Json ring_json(const DeviceSpec& dev) {
  const photonics::Ring r = photonics::ring_of(dev);
  const auto& t = dev.tuning;
  Json j = {
      {"resonance_nm", r.wavelength() * kNm},
      {"radius_um", dev.ring.radius.si() * 1e6},
      {"circumference_um", r.circumference() * 1e6},
      {"n_eff", r.n_eff()},
      {"n_g", r.n_g()},
      {"mode_order", r.mode_order()},
      {"r1", r.r1()},
      {"r2", r.r2()},
      {"a", r.a()},
      {"coupling_in", 1.0 - r.r1() * r.r1()},
      {"coupling_drop", 1.0 - r.r2() * r.r2()},
      {"round_trip_loss_db", -db(r.a() * r.a())},
      {"fsr_nm", r.fsr() * kNm},
      {"fsr_ghz", r.fsr_frequency() * 1e-9},
      {"fwhm_pm", r.fwhm() * kPm},
      {"fwhm_closed_form_pm", r.fwhm_closed_form() * kPm},
      {"finesse", r.finesse()},
      {"q_loaded", r.q_loaded()},
      {"q_intrinsic", std::isfinite(r.q_intrinsic()) ? Json(r.q_intrinsic()) : Json()},
      {"drop_peak", r.drop_peak()},
      {"through_min", r.through_min()},
      {"through_max", r.through_max()},
      {"extinction_ratio_db", r.extinction_ratio_db()},
      {"weight_min", r.weight_min()},
      {"weight_max", r.weight_max()},
      {"max_weight_slope_per_pm", r.max_weight_slope() / kPm},
      {"max_weight_slope_detuning_pm", r.max_weight_slope_detuning() * kPm},
      {"tuning_mechanism", photonics::to_string(t.mechanism)},
      {"tuning_span_pm", photonics::tuning_span(t) * kPm},
      {"thermal_shift_pm_per_k", t.thermal_shift.si() * kPm},
  };
  if (t.mechanism == photonics::TuningMechanism::pockels)
    j["tuning_pm_per_v"] = photonics::tuning_slope(t) * kPm;
  else
    j["tuning_pm_per_mw"] = photonics::tuning_slope(t) * kPm * 1e-3;
  return j;
}

void print_ring(const Json& j, std::ostream& out) {
  auto row = [&out](const char* name, const std::string& value) {
    out << fmt::format("  {:<28}{}\n", name, value);
  };
  auto num = [](const Json& v, const char* spec) {
    return v.is_null() ? std::string("inf") : fmt::format(fmt::runtime(spec), v.get<double>());
  };
  out << "Add-drop ring (exact response over all FSR orders)\n";
  row("resonance", num(j["resonance_nm"], "{:.3f} nm"));
  row("radius / circumference", fmt::format("{:.4g} um / {:.4g} um", j["radius_um"].get<double>(),
                                            j["circumference_um"].get<double>()));
  row("n_eff / n_g / mode order", fmt::format("{:.4g} / {:.4g} / {}", j["n_eff"].get<double>(),
                                              j["n_g"].get<double>(), j["mode_order"].get<long>()));
  row("r1 / r2 / a", fmt::format("{:.6f} / {:.6f} / {:.6f}", j["r1"].get<double>(),
                                 j["r2"].get<double>(), j["a"].get<double>()));
  row("FSR",
      fmt::format("{:.4f} nm ({:.1f} GHz)", j["fsr_nm"].get<double>(), j["fsr_ghz"].get<double>()));
  row("FWHM", fmt::format("{:.2f} pm (closed form {:.2f} pm)", j["fwhm_pm"].get<double>(),
                          j["fwhm_closed_form_pm"].get<double>()));
  row("finesse", num(j["finesse"], "{:.2f}"));
  row("Q loaded / intrinsic",
      num(j["q_loaded"], "{:.4g}") + " / " + num(j["q_intrinsic"], "{:.4g}"));
  row("drop peak D0", num(j["drop_peak"], "{:.4f}"));
  row("through min / max",
      num(j["through_min"], "{:.3e}") + " / " + num(j["through_max"], "{:.4f}"));
  row("extinction ratio", num(j["extinction_ratio_db"], "{:.2f} dB"));
  row("balanced weight range", fmt::format("[{:.4f}, {:.4f}]", j["weight_min"].get<double>(),
                                           j["weight_max"].get<double>()));
  row("max |dw/d detuning|",
      fmt::format("{:.4g} per pm at {:.2f} pm", j["max_weight_slope_per_pm"].get<double>(),
                  j["max_weight_slope_detuning_pm"].get<double>()));
  if (j.contains("tuning_pm_per_v"))
    row("tuning (Pockels)",
        fmt::format("{:.3g} pm/V, span {:.4g} pm", j["tuning_pm_per_v"].get<double>(),
                    j["tuning_span_pm"].get<double>()));
  else
    row("tuning (heater)",
        fmt::format("{:.3g} pm/mW, span {:.4g} pm", j["tuning_pm_per_mw"].get<double>(),
                    j["tuning_span_pm"].get<double>()));
  row("temperature", num(j["thermal_shift_pm_per_k"], "{:.3g} pm/K"));
}

Json crosstalk_json(const DeviceSpec& dev) {
  const photonics::Ring r = photonics::ring_of(dev);
  const auto lambdas = photonics::channel_wavelengths(dev.grid);
  const auto m = photonics::crosstalk_matrix(r, lambdas);
  const auto s = photonics::summarize(m);
  const int d = m.channels;
  Json channels = Json::array(), leak = Json::array(), leak_db = Json::array();
  for (int i = 0; i < d; ++i) {
    Json row = Json::array(), row_db = Json::array();
    for (int j = 0; j < d; ++j) {
      row.push_back(m.at(i, j));
      row_db.push_back(m.at(i, j) > 0 ? Json(db(m.at(i, j) / m.drop_peak)) : Json());
    }
    leak.push_back(row);
    leak_db.push_back(row_db);
  }
  for (int j = 0; j < d; ++j) {
    double others = 0.0, strongest = 0.0;
    int from = -1;
    for (int i = 0; i < d; ++i)
      if (i != j) {
        others += m.at(i, j);
        if (m.at(i, j) > strongest) strongest = m.at(i, j), from = i;
      }
    channels.push_back({{"channel", j},
                        {"wavelength_nm", lambdas[j] * kNm},
                        {"strongest_leak_db", d > 1 ? Json(db(strongest / m.drop_peak)) : Json()},
                        {"strongest_leak_ring", from},
                        {"aggregate_leak_db", d > 1 ? Json(db(others / m.drop_peak)) : Json()},
                        {"bus_loss_db", -db(m.at(j, j) / m.drop_peak)},
                        {"through_db", db(m.through[j])}});
  }
  auto finite = [](double v) { return std::isfinite(v) && std::abs(v) < 1e299 ? Json(v) : Json(); };
  return {{"fsr_nm", r.fsr() * kNm},
          {"fwhm_pm", r.fwhm() * kPm},
          {"drop_peak", m.drop_peak},
          {"worst_db", finite(s.worst_db)},
          {"worst_ring", s.worst_ring},
          {"worst_channel", s.worst_channel},
          {"worst_aggregate_db", finite(s.worst_aggregate_db)},
          {"worst_aggregate_channel", s.worst_aggregate_channel},
          {"worst_bus_loss_db", s.worst_bus_loss_db},
          {"crosstalk_target_db", dev.requirements.crosstalk_target.si()},
          {"channels", channels},
          {"leak", leak},
          {"leak_db", leak_db}};
}

void print_crosstalk(const Json& j, std::ostream& out) {
  auto str = [](const Json& v, const char* spec) {
    return v.is_null() ? std::string("-") : fmt::format(fmt::runtime(spec), v.get<double>());
  };
  out << fmt::format(
      "WDM crosstalk, all rings at rest on their channels (bus order; exact response over all "
      "FSR orders)\nFSR {:.4f} nm, FWHM {:.2f} pm, D0 {:.4f}; dB relative to D0\n",
      j["fsr_nm"].get<double>(), j["fwhm_pm"].get<double>(), j["drop_peak"].get<double>());
  out << fmt::format(
      "worst ring-to-channel leak {} (ring {} on channel {}), target {:.1f} "
      "dB; worst aggregate {} (channel {}); worst bus loss {:.3f} dB\n\n",
      str(j["worst_db"], "{:.2f} dB"), j["worst_ring"].get<int>(), j["worst_channel"].get<int>(),
      j["crosstalk_target_db"].get<double>(), str(j["worst_aggregate_db"], "{:.2f} dB"),
      j["worst_aggregate_channel"].get<int>(), j["worst_bus_loss_db"].get<double>());
  out << fmt::format("{:>7} {:>13} {:>14} {:>6} {:>15} {:>13} {:>12}\n", "channel", "lambda [nm]",
                     "strongest [dB]", "ring", "aggregate [dB]", "bus loss [dB]", "through [dB]");
  for (const auto& c : j["channels"])
    out << fmt::format("{:>7} {:>13.3f} {:>14} {:>6} {:>15} {:>13.3f} {:>12.2f}\n",
                       c["channel"].get<int>(), c["wavelength_nm"].get<double>(),
                       str(c["strongest_leak_db"], "{:.2f}"), c["strongest_leak_ring"].get<int>(),
                       str(c["aggregate_leak_db"], "{:.2f}"), c["bus_loss_db"].get<double>(),
                       c["through_db"].get<double>());
}

void print_link_budget(const Json& j, std::ostream& out) {
  auto num = [](const Json& v, const char* spec) {
    return v.is_null() ? std::string("unreachable")
                       : fmt::format(fmt::runtime(spec), v.get<double>());
  };
  out << "Link budget of one ring row (all lines on, weights at +w)\n";
  out << fmt::format("  {:<34}{}\n", "laser per line", num(j["line_power_dbm"], "{:.2f} dBm"));
  for (const char* k :
       {"coupling_loss_db", "modulator_loss_db", "splitter_loss_db", "waveguide_loss_db",
        "rings_loss_db", "detector_coupling_loss_db", "total_loss_db"})
    if (j.contains(k)) out << fmt::format("  {:<34}{:.2f} dB\n", k, j[k].get<double>());
  for (const char* k : {"channel_power_at_row_uw", "row_power_uw", "pd_power_thru_uw",
                        "pd_power_drop_uw", "signal_current_ua", "adc_utilization"})
    out << fmt::format("  {:<34}{:.4g}\n", k, j[k].get<double>());
  out << "  noise (rms, nA):\n";
  for (const auto& [name, v] : j["noise_rms_na"].items())
    out << fmt::format("    {:<32}{:.4g}\n", name, v.get<double>());
  out << fmt::format("  {:<34}{:.2f} dB\n", "SNR", j["snr_db"].get<double>());
  out << fmt::format("  {:<34}{:.2f} bits (target {:.3g})\n", "ENOB", j["enob"].get<double>(),
                     j["target_enob"].get<double>());
  out << fmt::format("  {:<34}{}\n", "laser per line for the target",
                     num(j["required_line_power_dbm"], "{:.2f} dBm"));
  out << fmt::format("  {:<34}{}\n", "laser wall power for the target",
                     num(j["required_wall_power_w"], "{:.4g} W"));
}

void print_feasibility(const photonics::FeasibilityReport& r, std::ostream& out) {
  out << (r.feasible ? "feasible\n" : "NOT feasible\n");
  for (const auto& c : r.checks)
    out << fmt::format("  [{}] {}: {}\n", c.passed ? " ok " : "FAIL", c.name, c.message);
}

DeviceSpec load_device(const DeviceRequest& r, const Env& env) {
  DeviceSpec device = config::load_spec<DeviceSpec>(
      config::find_named(r.config, "devices", env.load, "device"), env.load);
  env.inputs_read();
  return device;
}

Json identity(const Json& j) {
  return j;
}

Info device_info(std::string name, std::string verb, std::string help) {
  return {.name = std::move(name),
          .command = {"photonics", std::move(verb)},
          .help = std::move(help),
          .positional = {"config"}};
}

}  // namespace

void register_photonics_ops(Registry& registry) {
  add<DeviceRequest, Json>(
      registry,
      {.info = device_info(
           "photonics_ring", "ring",
           "Derived figures of the ring: FSR, FWHM, finesse, Q, extinction, weight slope"),
       .evaluate = [](const DeviceRequest& r, Env& env) { return ring_json(load_device(r, env)); },
       .to_json = identity,
       .print = print_ring});
  add<DeviceRequest, Json>(
      registry,
      {.info = device_info("photonics_crosstalk", "crosstalk",
                           "WDM crosstalk matrix of one bank row (all FSR orders, bus order)"),
       .evaluate = [](const DeviceRequest& r,
                      Env& env) { return crosstalk_json(load_device(r, env)); },
       .to_json = identity,
       .print = print_crosstalk});
  add<DeviceRequest, Json>(
      registry, {.info = device_info(
                     "photonics_link_budget", "link-budget",
                     "Losses, received power, each noise term, SNR, ENOB, required laser power"),
                 .evaluate =
                     [](const DeviceRequest& r, Env& env) {
                       return photonics::to_json(photonics::link_budget(load_device(r, env)));
                     },
                 .to_json = identity,
                 .print = print_link_budget});
  add<DeviceRequest, photonics::FeasibilityReport>(
      registry,
      {.info = device_info(
           "photonics_feasibility", "feasibility",
           "Check aliasing, crosstalk, weight range, tuning range, thermal budget, link budget"),
       .evaluate = [](const DeviceRequest& r,
                      Env& env) { return photonics::check_feasibility(load_device(r, env)); },
       .to_json = [](const photonics::FeasibilityReport& f) { return photonics::to_json(f); },
       .print = print_feasibility});
}

}  // namespace lightsim::ops
