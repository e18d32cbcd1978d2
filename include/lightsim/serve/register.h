// Registers the serve module's spec kinds (serve_scenario) with a Registry.
#pragma once

#include "lightsim/core/registry.h"

namespace lightsim::serve {

void register_all(Registry& registry);

}  // namespace lightsim::serve
