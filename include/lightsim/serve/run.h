// A serving scenario end to end: read it and everything it names, build the pools' step models
// (cached, step_model.h), generate or read its requests, simulate (simulate.h).
//
//   ServeSetup setup = prepare("chat_nvl72", load, seed);   // reads; InputError on bad input
//   ServeReport report = run(setup);                        // computes
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lightsim/core/config.h"
#include "lightsim/core/json_fwd.h"
#include "lightsim/serve/cost.h"
#include "lightsim/serve/scenario.h"
#include "lightsim/serve/simulate.h"
#include "lightsim/serve/workload.h"

namespace lightsim::serve {

struct ServeSetup {
  LoadedScenario scenario;
  std::uint64_t seed = 1;
  std::vector<Request> requests;
  SimConfig config;
  std::string kv_tier;  // disaggregated: name of the tier the KV moves over
};

// `memory_budget` > 0: an InputError (exit 2) before requests are generated, or once a trace is
// read, when the simulation's estimate (kSimulationBytesPerRequest each) exceeds it.
ServeSetup prepare(const std::string& scenario, const config::LoadOptions& load, std::uint64_t seed,
                   std::uint64_t memory_budget = 0);
// The same from a scenario already read (tests build one in code).
ServeSetup prepare(LoadedScenario scenario, const config::LoadOptions& load, std::uint64_t seed,
                   std::uint64_t memory_budget = 0);

struct ServeReport {
  std::string scenario, description, model;
  std::string mode;        // colocated | disaggregated
  std::string arrivals;    // poisson | gamma | trace
  std::string step_model;  // roofline | fixed
  std::uint64_t seed = 1;
  double slo_ttft = 0, slo_tpot = 0;        // s
  double kv_bandwidth = 0, kv_latency = 0;  // B/s, s (disaggregated)
  std::string kv_tier;
  std::vector<std::string> pool_fabrics;  // colocated: one; disaggregated: prefill, decode
  std::int64_t step_model_calls = 0;      // inner step-model evaluations behind the cache
  SimResult sim;
  std::optional<PowerCost> power;  // with the scenario's cost_model
  std::optional<HostSpec> host;    // the scenario's host model (reported when set)
};

ServeReport run(const ServeSetup& setup);

// Every figure, units in the key names (docs/serving.md, "Outputs").
Json to_json(const ServeReport& r);

}  // namespace lightsim::serve
