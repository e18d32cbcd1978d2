// The sweep module's spec kinds, registered explicitly.
#include "lightsim/sweep/register.h"

#include "lightsim/sweep/spec.h"

namespace lightsim::sweep {

void register_all(Registry& registry) {
  registry.add_spec<SweepSpec>();
}

}  // namespace lightsim::sweep
