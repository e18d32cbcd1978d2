// Registers the prism spec kinds and families with the program's Registry.
#pragma once

#include "lightsim/core/registry.h"

namespace lightsim::prism {

void register_all(Registry& registry);

}  // namespace lightsim::prism
