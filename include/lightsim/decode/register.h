// Registers the decode module's spec kinds (decode_scenario) with a Registry.
#pragma once

#include "lightsim/core/registry.h"

namespace lightsim::decode {

void register_all(Registry& registry);

}  // namespace lightsim::decode
