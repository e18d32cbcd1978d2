// Spec kinds of the prefill module.
#include "lightsim/prefill/register.h"

#include "lightsim/prefill/scenario.h"

namespace lightsim::prefill {

void register_all(Registry& registry) {
  registry.add_spec<ScenarioSpec>();
  registry.add_spec<StudySeedReference>();
  registry.add_spec<MeasurementReference>();
}

}  // namespace lightsim::prefill
