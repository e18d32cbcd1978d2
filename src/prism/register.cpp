// The prism module's spec kinds, registered explicitly (docs/architecture.md).
#include "lightsim/prism/register.h"

namespace lightsim::prism {

void register_all(Registry& registry) {
  (void)registry;  // the accelerator, thermal and calibration specs are added here
}

}  // namespace lightsim::prism
