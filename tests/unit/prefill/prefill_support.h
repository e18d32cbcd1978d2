// Test helpers for the prefill module: scenarios built in code on shipped models and fabrics.
#pragma once

#include <string>

#include "lightsim/fabric/topology.h"
#include "lightsim/prefill/evaluate.h"
#include "shipped_configs.h"

namespace lightsim::prefill::testing {

inline ScenarioSpec scenario(const std::string& model, std::int64_t tokens, std::int64_t requests,
                             const std::string& dtypes = "bf16") {
  ScenarioSpec s;
  s.name = "test";
  s.model = model;
  s.dtypes = config::load_spec<model::DTypePolicy>(std::filesystem::path(LIGHTSIM_SOURCE_DIR) /
                                                   "configs/dtypes" / (dtypes + ".yaml"));
  s.sequence_length = tokens;
  s.requests = requests;
  return s;
}

inline fabric::Topology topology(const std::string& name) {
  return fabric::build_topology(fabric::load_fabric(name, lightsim::testing::shipped_configs()));
}

inline model::Transformer model(const std::string& name) {
  return load_model(name, lightsim::testing::shipped_configs());
}

}  // namespace lightsim::prefill::testing
