// Everything a lightsim build offers, registered in one place: every module's spec kinds and
// implementation families (scorers, projections, studies, ...). Used by the CLI and the
// Python bindings, so both see the same registry.
#pragma once

#include "lightsim/core/registry.h"

namespace lightsim {

// Calls each module's register_all, lowest layer first.
void register_builtin(Registry& registry);

}  // namespace lightsim
