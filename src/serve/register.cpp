// Spec kinds of the serve module, registered explicitly.
#include "lightsim/serve/register.h"

#include "lightsim/serve/measured.h"
#include "lightsim/serve/scenario.h"

namespace lightsim::serve {

void register_all(Registry& registry) {
  registry.add_spec<ScenarioSpec>();
  registry.add_spec<ServeMeasurements>();
  registry.add_spec<CostModelSpec>();
  registry.add_spec<HostSpec>();
}

}  // namespace lightsim::serve
