// Power and cost of a serving run (cost.h; docs/serving.md "Power and cost").
#include "lightsim/serve/cost.h"

#include "lightsim/core/json.h"

namespace lightsim::serve {

void CostModelSpec::describe(config::Schema<CostModelSpec>& s) {
  s.help(
      "Power and cost of a serving pod: GPU utilisation power model, scale-up fabric power from "
      "a fabric design's energy per bit, host power, PUE, capex amortised over stated years and "
      "the electricity price (docs/serving.md \"Power and cost\"). Every figure is required and "
      "its preset states its source.");
  s.field("name", &CostModelSpec::name, "display name").required();
  s.field("description", &CostModelSpec::description, "what pod it prices");
  s.field("fabric_design", &CostModelSpec::fabric_design,
          "configs/fabric_designs/ name or file: energy per bit of the scale-up links and "
          "switches")
      .required();
  s.field("gpu_busy_power_share", &CostModelSpec::gpu_busy_power_share,
          "share of (tdp - idle_power) a GPU draws while it runs steps")
      .range(0.0, 1.0)
      .required();
  s.field("fabric_idle_power_share", &CostModelSpec::fabric_idle_power_share,
          "share of the fabric's full-load power drawn while idle (1: links always on)")
      .range(0.0, 1.0)
      .required();
  s.field("host_power_per_gpu", &CostModelSpec::host_power_per_gpu,
          "CPU, NICs, fans and power conversion per GPU (W)")
      .range("0 W", "100 kW")
      .required();
  s.field("gpu_capex_usd", &CostModelSpec::gpu_capex_usd,
          "capital cost per GPU with its share of server, rack and cooling (USD)")
      .range(0.0, 1e9)
      .required();
  s.field("fabric_capex_per_gpu_usd", &CostModelSpec::fabric_capex_per_gpu_usd,
          "capital cost of the scale-up fabric per GPU not in gpu_capex_usd (USD)")
      .range(0.0, 1e9)
      .required();
  s.field("amortization_years", &CostModelSpec::amortization_years,
          "straight-line life of the capital (years)")
      .range(0.1, 50.0)
      .required();
  s.field("power_price_usd_per_kwh", &CostModelSpec::power_price_usd_per_kwh,
          "electricity price at the facility meter (USD per kWh)")
      .range(0.0, 100.0)
      .required();
  s.field("pue", &CostModelSpec::pue, "power usage effectiveness: facility power / IT power")
      .range(1.0, 10.0)
      .required();
}

PowerCost power_and_cost(const CostModelSpec& model, const std::vector<PoolLoad>& pools,
                         const SimResult& sim) {
  PowerCost p;
  const fabric::FabricDesign design = fabric::derive_design(model.fabric_design.get());
  p.fabric_design = model.fabric_design.get().name;
  std::int64_t gpus = 0;
  for (const PoolLoad& pool : pools) {
    const double n = static_cast<double>(pool.gpus);
    gpus += pool.gpus;
    p.gpu_power += n * pool.gpu->board_power(model.gpu_busy_power_share * pool.utilization);
    const double activity =
        model.fabric_idle_power_share + (1 - model.fabric_idle_power_share) * pool.utilization;
    p.fabric_power += n * fabric::link_power(design, pool.fabric_bandwidth) * activity;
    p.host_power += n * model.host_power_per_gpu.si();
  }
  p.it_power = p.gpu_power + p.fabric_power + p.host_power;
  p.facility_power = p.it_power * model.pue;
  p.energy = p.facility_power * sim.makespan;
  const double tokens = sim.output_tokens_per_s * sim.makespan;
  constexpr double kHoursPerYear = 365.25 * 24;
  const double capex =
      static_cast<double>(gpus) * (model.gpu_capex_usd + model.fabric_capex_per_gpu_usd);
  p.capex_per_hour = capex / (model.amortization_years * kHoursPerYear);
  p.energy_cost_per_hour = p.facility_power / 1e3 * model.power_price_usd_per_kwh;
  p.cost_per_hour = p.capex_per_hour + p.energy_cost_per_hour;
  const double kw = p.facility_power / 1e3;
  if (tokens > 0) {
    p.energy_per_token = p.energy / tokens;
    p.cost_per_million_tokens = p.cost_per_hour * (sim.makespan / 3600) / tokens * 1e6;
  }
  if (kw > 0) {
    p.output_tokens_per_s_per_kw = sim.output_tokens_per_s / kw;
    p.goodput_per_s_per_kw = sim.goodput / kw;
  }
  if (gpus > 0) p.goodput_per_s_per_gpu = sim.goodput / static_cast<double>(gpus);
  if (p.cost_per_hour > 0) p.goodput_per_usd = sim.goodput * 3600 / p.cost_per_hour;
  return p;
}

Json to_json(const PowerCost& p) {
  return {{"fabric_design", p.fabric_design},
          {"gpu_power_w", p.gpu_power},
          {"fabric_power_w", p.fabric_power},
          {"host_power_w", p.host_power},
          {"it_power_w", p.it_power},
          {"facility_power_w", p.facility_power},
          {"energy_j", p.energy},
          {"energy_per_token_j", p.energy_per_token},
          {"output_tokens_per_s_per_kw", p.output_tokens_per_s_per_kw},
          {"goodput_per_s_per_kw", p.goodput_per_s_per_kw},
          {"goodput_per_s_per_gpu", p.goodput_per_s_per_gpu},
          {"capex_usd_per_hour", p.capex_per_hour},
          {"energy_cost_usd_per_hour", p.energy_cost_per_hour},
          {"cost_usd_per_hour", p.cost_per_hour},
          {"cost_usd_per_million_tokens", p.cost_per_million_tokens},
          {"goodput_per_usd", p.goodput_per_usd}};
}

}  // namespace lightsim::serve
