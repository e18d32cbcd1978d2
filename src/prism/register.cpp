// The prism module's spec kinds, registered explicitly (docs/architecture.md).
#include "lightsim/prism/register.h"

#include "lightsim/prism/calibration.h"
#include "lightsim/prism/thermal.h"

namespace lightsim::prism {

void register_all(Registry& registry) {
  registry.add_spec<ThermalSpec>();
  registry.add_spec<CalibrationSpec>();
}

}  // namespace lightsim::prism
