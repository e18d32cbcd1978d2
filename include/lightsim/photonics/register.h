// Registers the photonics spec kinds with the program's Registry.
#pragma once

#include "lightsim/core/registry.h"

namespace lightsim::photonics {

void register_all(Registry& registry);

}  // namespace lightsim::photonics
