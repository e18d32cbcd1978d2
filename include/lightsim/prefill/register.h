// Registers the prefill module's spec kinds (prefill_scenario, prefill_study_seed) with a
// Registry.
#pragma once

#include "lightsim/core/registry.h"

namespace lightsim::prefill {

void register_all(Registry& registry);

}  // namespace lightsim::prefill
