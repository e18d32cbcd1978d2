// Registers the fabric module's spec kinds (gpu, fabric, tier, cpo_link,
// prefill_seed_reference) with a Registry.
#pragma once

#include "lightsim/core/registry.h"

namespace lightsim::fabric {

void register_all(Registry& registry);

}  // namespace lightsim::fabric
