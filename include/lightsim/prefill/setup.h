// The prefill chain of one scenario, assembled in one place: the scenario (the document that
// --set addresses), its model and the topologies of its fabrics; and the rankings that the
// prefill operations report (top plans, the mixed-workload partition step).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lightsim/core/config.h"
#include "lightsim/fabric/topology.h"
#include "lightsim/model/transformer.h"
#include "lightsim/prefill/evaluate.h"
#include "lightsim/prefill/scenario.h"

namespace lightsim::prefill {

struct PrefillSetup {
  ScenarioSpec scenario;
  model::Transformer model;
  std::vector<fabric::Topology>
      topologies;  // one per fabric, named as the caller or the scenario names it
};

// Loads `scenario` (a name of configs/scenarios/ or a file) with `load`'s assignments, its
// model (a config.json: no assignments), and its fabrics, which --set addresses as
// `fabrics.KEY` (or `fabric.KEY` for the one fabric named by `fabric`). `fabric` non-empty:
// that one fabric (named `fabric`) instead of the scenario's list.
PrefillSetup load_setup(const std::string& scenario, const config::LoadOptions& load,
                        const std::string& fabric = "");

// The topology of one of a scenario's fabrics, named as the scenario names it (an inline
// fabric keeps its own name).
fabric::Topology scenario_topology(const config::Ref<fabric::FabricSpec>& fabric);

// The partition granularity of static_vs_dynamic on `gpus` GPUs: sixteenths of the machine
// (72 GPUs = one copper rack at 1152) when they divide it, else single GPUs.
std::int64_t partition_step(std::int64_t gpus);

}  // namespace lightsim::prefill
