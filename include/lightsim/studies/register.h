// Registration of the studies module's spec kinds and studies.
#pragma once

#include "lightsim/core/registry.h"

namespace lightsim::studies {

// Adds every study spec kind and registers every study of this module in the "study" family.
void register_all(Registry& registry);

}  // namespace lightsim::studies
