// Registration of the sweep module's spec kinds.
#pragma once

#include "lightsim/core/registry.h"

namespace lightsim::sweep {

// Adds the `sweep` spec kind (and its nested kinds).
void register_all(Registry& registry);

}  // namespace lightsim::sweep
