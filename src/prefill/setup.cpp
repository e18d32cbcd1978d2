#include "lightsim/prefill/setup.h"

#include <algorithm>

#include "lightsim/prefill/search.h"

namespace lightsim::prefill {

PrefillSetup load_setup(const std::string& scenario, const config::LoadOptions& load,
                        const std::string& fabric) {
  PrefillSetup s;
  s.scenario = load_scenario(scenario, load);
  const config::LoadOptions roots = load.roots_only();
  s.model = load_model(s.scenario.model, roots);
  // --set addresses a fabric given by name as fabric.KEY, the scenario's fabrics as fabrics.KEY.
  // Either way a topology is named as the fabric was named (preset name or file), so results
  // say "fabric": "photonic_4x_1152" whichever way it was chosen.
  if (!fabric.empty()) {
    s.topologies.push_back(
        fabric::build_topology(fabric::load_fabric(fabric, load.scoped("fabric"))));
    s.topologies.back().name = fabric;
    return s;
  }
  for (const auto& f : s.scenario.fabrics) s.topologies.push_back(scenario_topology(f));
  return s;
}

fabric::Topology scenario_topology(const config::Ref<fabric::FabricSpec>& fabric) {
  fabric::Topology top = fabric::build_topology(*fabric);
  if (!fabric.name().empty()) top.name = fabric.name();
  return top;
}

std::int64_t partition_step(std::int64_t gpus) {
  return gpus % 16 == 0 ? gpus / 16 : 1;
}

}  // namespace lightsim::prefill
