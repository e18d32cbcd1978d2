// The cost model (cost.h).
#include "lightsim/prism/cost.h"

#include <cmath>
#include <optional>

#include "lightsim/core/json.h"
#include "lightsim/photonics/link_budget.h"
#include "lightsim/photonics/weights.h"
#include "lightsim/prism/programming.h"

namespace lightsim::prism {

void PrismSeedReference::describe(config::Schema<PrismSeedReference>& s) {
  s.help("The seed's Prism figures, printed beside computed values; never model inputs.");
  s.field("source", &PrismSeedReference::source, "where the figures come from");
  s.field("dynamic_energy", &PrismSeedReference::dynamic_energy, "dynamic energy per query")
      .positive();
  s.field("energy_with_tec", &PrismSeedReference::energy_with_tec, "energy per query with TEC")
      .positive();
  s.field("latency", &PrismSeedReference::latency, "end-to-end latency per query").positive();
  s.field("multiplexed_latency", &PrismSeedReference::multiplexed_latency,
          "latency with time multiplexing")
      .positive();
  s.field("multiplexed_passes", &PrismSeedReference::multiplexed_passes, "passes of that figure")
      .range(1, 1 << 20);
  s.field("optical_mvm_energy", &PrismSeedReference::optical_mvm_energy,
          "dynamic optical MVM energy per query")
      .positive();
  s.field("switch_energy", &PrismSeedReference::switch_energy, "energy per weight switch")
      .positive();
  s.field("tec_power", &PrismSeedReference::tec_power, "TEC power").positive();
  s.field("soi_power_ratio", &PrismSeedReference::soi_power_ratio,
          "total system power of the SOI design over the TFLN design's")
      .required()
      .positive();
}

namespace {

// The report with the TEC's electrical power `tec` (W), or without any TEC item when nullopt
// (cost.h: an infeasible TEC is left out, never a number).
CostReport build(const AcceleratorSpec& a, std::optional<double> tec) {
  const auto& dev = a.device;
  const auto& el = a.electronics;
  CostReport r;
  r.timeline = timeline(a);
  r.feasibility = photonics::check_feasibility(dev, a.calibration.heater_bias);
  const Timeline& t = r.timeline;
  const double d = dev.grid.channels;
  const double rows_pass = static_cast<double>(physical_rows(a)) * a.interposer.chips;
  const double rows_scored = rows_pass * t.passes;
  const double conversions = rows_scored * t.rails;  // detector windows and ADC conversions
  r.banks = banks_needed(a);
  r.system_qps = r.banks * t.qps;
  r.tec_included = tec.has_value();
  r.tec_power = tec.value_or(0.0);
  r.tec_over_latency = r.tec_power * t.latency;

  const photonics::LinkBudget lb = photonics::link_budget(dev);
  r.laser_wall_power = lb.wall_power * std::pow(10.0, t.fanout_loss_db / 10.0);
  const double light_on = t.duration_of(State::optical_prop) + t.duration_of(State::integrate);
  const double window = dev.tia.integration_window.si();
  const double resp = dev.detector.responsivity.si();
  const double pd_current =
      resp * (lb.pd_power_thru + lb.pd_power_drop) + 2.0 * dev.detector.dark_current.si();
  const double adc_conv = el.adc_step.si() * std::ldexp(1.0, dev.adc.bits);
  const double comparisons = t.pass_tree.comparisons * t.passes * a.interposer.chips +
                             t.merge_of_lists.comparisons + t.rerank_tree.comparisons;
  const ProgrammingCost prog = programming_cost(a);
  const double rings_per_bank = rows_pass * d;
  r.tuner = operating_point(dev, a.calibration);
  const double holding = r.tuner.power;

  auto e = [&](std::string name, double v, std::string prov) {
    r.energy.push_back({std::move(name), v, std::move(prov)});
  };
  if (el.laser_gated)
    e("laser", r.laser_wall_power * light_on,
      "device.laser (d x power_per_line / wall_plug_efficiency) x 10^(fan-out loss/10) x "
      "passes x (OPTICAL_PROP + INTEGRATE)");
  e("modulators", d * t.rails * el.modulator_energy.si(),
    t.rails > 1 ? "d x 2 rails x electronics.modulator_energy (balanced encoding)"
                : "d x electronics.modulator_energy");
  e("query_dacs", d * el.query_dac_step.si() * std::ldexp(1.0, el.query_bits),
    "d x electronics.query_dac_step x 2^query_bits");
  const std::string rows_label = t.rails > 1 ? "rows scored x 2 rails" : "rows scored";
  e("detectors", conversions * el.pd_bias.si() * pd_current * window,
    rows_label + " x pd_bias x (R (P_thru + P_drop) + 2 I_dark) x tia.integration_window");
  e("tia_adc", conversions * (el.tia_power.si() * window + adc_conv),
    rows_label + " x (electronics.tia_power x integration_window + adc_step x 2^adc.bits)");
  e("topk", comparisons * a.selection.comparator_energy.si(),
    "compare-and-swaps of the bitonic merge trees x selection.comparator_energy");
  if (a.selection.rerank_k > 0)
    e("rerank",
      a.selection.rerank_k * d *
          (a.selection.mac_energy.si() +
           a.selection.signature_bytes * a.selection.sram_energy.si()),
      "rerank_k x d x (mac_energy + signature_bytes x sram_energy)");
  e("programming", prog.energy_per_query(),
    "ring switches per query (block completion, bank reloads) x (weight_dac_step 2^dac.bits + "
    "2/3 C V_max^2)");
  double dynamic = 0;
  for (const CostItem& c : r.energy) dynamic += c.value;
  r.dynamic_energy = dynamic;

  auto p = [&](std::string name, double v, std::string prov) {
    r.static_power.push_back({std::move(name), v, std::move(prov)});
  };
  p("static_tuning", r.banks * rings_per_bank * holding,
    dev.tuning.mechanism == photonics::TuningMechanism::pockels
        ? "banks x rings x device.tuning.static_power"
        : "banks x rings x mean heater power at the operating point (operating_point.h, "
          "photonics/holding.h: K^-1 (delta(calibration.heater_bias x w) - rest) / (R_th d "
          "lambda/dT), thermal sharing solved exactly)");
  if (tec)
    p("tec", *tec,
      "two-stage TEC electrical power at the steady state for the on-chip dissipation "
      "(thermal.h steady_state: Ioffe COP, package_resistance)");
  if (!el.laser_gated)
    p("laser", r.banks * r.laser_wall_power, "banks x laser wall power (not gated)");
  for (const CostItem& c : r.static_power) {
    r.static_power_total += c.value;
    e(c.name == "laser" ? "laser" : c.name, c.value / r.system_qps,
      c.provenance + " / system queries per second");
  }
  for (const CostItem& c : r.energy) r.total_energy += c.value;

  auto ar = [&](std::string name, double v, std::string prov) {
    r.area.push_back({std::move(name), v, std::move(prov)});
  };
  const double rings = r.banks * rings_per_bank;
  const double pitch = a.area.ring_pitch.si();
  ar("rings", rings * pitch * pitch, "rings x ring_pitch^2");
  ar("weight_dacs", rings * a.area.dac_area.si(), "rings x area.dac_area");
  const double row_units = r.banks * rows_pass;
  ar("tias", row_units * a.area.tia_area.si(), "rows x area.tia_area");
  ar("adcs", std::ceil(row_units / el.rows_per_adc) * a.area.adc_area.si(),
     "rows / rows_per_adc x area.adc_area");
  ar("modulators", r.banks * d * a.area.modulator_area.si(), "banks x d x area.modulator_area");
  const double levels = std::ceil(std::log2(std::max(2.0, static_cast<double>(physical_rows(a)))));
  ar("waveguides",
     r.banks * a.interposer.chips * levels * dev.path.waveguide_length.si() *
         a.area.waveguide_pitch.si(),
     "banks x chips x splitter levels x path.waveguide_length x waveguide_pitch");
  for (const CostItem& c : r.area) r.area_total += c.value;
  return r;
}

}  // namespace

CostReport cost(const AcceleratorSpec& a, double tec_power) {
  return build(a, tec_power);
}

double static_tuning_power(const CostReport& r) {
  double w = 0;
  for (const CostItem& c : r.static_power)
    if (c.name == "static_tuning") w += c.value;
  return w;
}

CostReport cost(const AcceleratorSpec& a) {
  CostReport cold = build(a, std::nullopt);
  double on_chip = static_tuning_power(cold);
  for (const CostItem& c : cold.energy)
    if (c.name != "laser" && c.name != "static_tuning") on_chip += c.value * cold.system_qps;
  const ThermalOperatingPoint op = steady_state(a.thermal, Power::si(on_chip));
  CostReport r = op.feasible ? build(a, op.tec_power) : std::move(cold);
  r.dissipated_power = on_chip;
  r.thermal = op;
  return r;
}

Json to_json(const CostReport& r) {
  auto items = [](const std::vector<CostItem>& v, const char* unit) {
    Json out = Json::array();
    for (const CostItem& c : v)
      out.push_back({{"name", c.name}, {unit, c.value}, {"provenance", c.provenance}});
    return out;
  };
  return {{"energy_per_query", items(r.energy, "joules")},
          {"dynamic_energy_j", r.dynamic_energy},
          {"total_energy_j", r.total_energy},
          {"static_power", items(r.static_power, "watts")},
          {"static_power_w", r.static_power_total},
          {"tec_included", r.tec_included},
          {"tec_power_w", r.tec_included ? Json(r.tec_power) : Json(nullptr)},
          {"tec_over_latency_j", r.tec_included ? Json(r.tec_over_latency) : Json(nullptr)},
          {"tec_reason", r.tec_included ? std::string() : r.thermal.reason},
          {"banks", r.banks},
          {"system_queries_per_second", r.system_qps},
          {"laser_wall_power_w", r.laser_wall_power},
          {"area", items(r.area, "m2")},
          {"area_m2", r.area_total},
          {"latency_s", r.timeline.latency},
          {"interval_s", r.timeline.interval},
          {"timeline", to_json(r.timeline)},
          {"feasibility", photonics::to_json(r.feasibility)},
          {"tuner_operating_point",
           {{"heater", r.tuner.heater},
            {"bias_weight", r.tuner.bias_weight},
            {"control", r.tuner.control},
            {"power_per_ring_w", r.tuner.power},
            {"margin_m", r.tuner.margin},
            {"lock_range_m", {r.tuner.lock.lo, r.tuner.lock.hi}},
            {"covers", r.tuner.covers},
            {"covering_heater_bias",
             r.tuner.covering_bias >= 0.0 ? Json(r.tuner.covering_bias) : Json(nullptr)},
            {"correction_reach_m", r.tuner.correction_reach},
            {"rest_shortfall_m", r.tuner.rest_shortfall},
            {"reason", r.tuner.reason}}},
          {"thermal",
           {{"dissipated_power_w", r.dissipated_power},
            {"chip_temperature_c", r.thermal.chip},
            {"tec_power_w", r.thermal.feasible ? Json(r.thermal.tec_power) : Json(nullptr)},
            {"stability_k", r.thermal.feasible ? Json(r.thermal.stability) : Json(nullptr)},
            {"feasible", r.thermal.feasible},
            {"reason", r.thermal.reason}}}};
}

}  // namespace lightsim::prism
