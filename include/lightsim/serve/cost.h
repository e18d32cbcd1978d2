// Power and cost of a serving run (kind "cost_model", presets in configs/cost_models/;
// docs/serving.md "Power and cost"): GPU board power from the pools' utilisation, the scale-up
// fabric's power from a fabric design's energy per bit at the serving fabric's bandwidth, the
// rest of the server per GPU, the facility overhead (PUE), capital cost amortised over stated
// years and energy at a stated price. Every figure is a key of the cost model with its source
// in the preset; nothing is fitted.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lightsim/core/json_fwd.h"
#include "lightsim/fabric/gpu.h"
#include "lightsim/serve/cost_model.h"
#include "lightsim/serve/simulate.h"

namespace lightsim::serve {

// One pool's hardware and load, as the power model sees it.
struct PoolLoad {
  const fabric::GpuSpec* gpu = nullptr;
  std::int64_t gpus = 0;
  double utilization = 0;       // busy / (instances x makespan), simulate.h
  double fabric_bandwidth = 0;  // B/s per GPU per direction of the scale-up tier (line rate)
};

// Mean powers over the run (W), energies (J), money (USD).
struct PowerCost {
  std::string fabric_design{};
  double gpu_power = 0, fabric_power = 0, host_power = 0;
  double it_power = 0;                    // GPU + fabric + host
  double facility_power = 0;              // IT x PUE
  double energy = 0;                      // J: facility power x makespan
  double energy_per_token = 0;            // J per output token (0 without tokens)
  double output_tokens_per_s_per_kw = 0;  // per kW of facility power
  double goodput_per_s_per_kw = 0;
  double goodput_per_s_per_gpu = 0;
  double capex_per_hour = 0, energy_cost_per_hour = 0, cost_per_hour = 0;  // USD per hour
  double cost_per_million_tokens = 0;  // USD per 10^6 output tokens (0 without tokens)
  double goodput_per_usd = 0;          // SLO-meeting requests per USD
};

// The model over `pools` for a run of `sim`'s makespan, output tokens and goodput.
// ConfigError when a pool's GPU has no tdp or idle_power.
PowerCost power_and_cost(const CostModelSpec& model, const std::vector<PoolLoad>& pools,
                         const SimResult& sim);

// Units in the keys (docs/serving.md "Power and cost").
Json to_json(const PowerCost& p);

}  // namespace lightsim::serve
