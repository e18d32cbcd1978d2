// The spec of a serving pod's power and cost model (kind "cost_model", presets in
// configs/cost_models/; the computation is cost.h; docs/serving.md "Power and cost"). Every
// key is required and each preset gives its source or says it is an assumption.
#pragma once

#include <string>
#include <string_view>

#include "lightsim/core/config.h"
#include "lightsim/core/config_ref.h"
#include "lightsim/core/units.h"
#include "lightsim/fabric/design.h"

namespace lightsim::serve {

struct CostModelSpec {
  static constexpr std::string_view kind = "cost_model";
  static constexpr std::string_view preset_dir = "cost_models";
  std::string name{};
  std::string description{};
  // Energy per bit of the scale-up links and switches (configs/fabric_designs/).
  config::Ref<fabric::FabricDesignSpec> fabric_design = "copper_nvl72";
  // Share of (tdp - idle) a GPU draws while it runs steps (the GPU's tdp and idle_power come
  // from the pool fabric's GPU spec).
  double gpu_busy_power_share = 1.0;
  // Share of the fabric's full-load power drawn while idle (1: links always on).
  double fabric_idle_power_share = 1.0;
  Power host_power_per_gpu = Power::si(0);  // CPU, NICs, fans, power conversion per GPU
  double gpu_capex_usd = 0;                 // per GPU: its share of server, rack, cooling
  double fabric_capex_per_gpu_usd = 0;      // scale-up fabric per GPU beyond gpu_capex_usd
  double amortization_years = 0;            // straight-line life of the capital
  double power_price_usd_per_kwh = 0;       // facility electricity price
  double pue = 0;                           // facility power / IT power
  static void describe(config::Schema<CostModelSpec>& s);
};

}  // namespace lightsim::serve
