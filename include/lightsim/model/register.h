// Registers the model module's spec kinds (dtype_policy) with a Registry.
#pragma once

#include "lightsim/core/registry.h"

namespace lightsim::model {

void register_all(Registry& registry);

}  // namespace lightsim::model
