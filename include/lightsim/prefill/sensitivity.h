// The assumptions the prefill study's fabric verdicts rest on, each with one changed value
// (issue 18 part 10; docs/prefill.md, "Sensitivity of the verdicts"). The study reruns every
// scenario under each and reports how the speedups and the verdicts move, so a reader sees
// which conclusions hold whatever the assumption and which follow from it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "lightsim/fabric/topology.h"
#include "lightsim/prefill/scenario.h"

namespace lightsim::prefill {

struct Assumption {
  std::string name;  // key of the study's `sensitivity` list and of its output rows
  std::string what;  // the changed value, as the output states it
};

// Every assumption, `as_modelled` (nothing changed) first.
const std::vector<Assumption>& sensitivity_assumptions();

// The scenario and its fabrics' topologies with assumption `name` applied; a name not in
// sensitivity_assumptions() is a ConfigError naming the known ones.
void apply_assumption(std::string_view name, ScenarioSpec& scenario,
                      std::vector<fabric::Topology>& topologies);

}  // namespace lightsim::prefill
