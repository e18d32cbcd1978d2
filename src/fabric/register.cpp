// Spec kinds of the fabric module.
#include "lightsim/fabric/register.h"

#include "lightsim/fabric/design.h"
#include "lightsim/fabric/measured.h"
#include "lightsim/fabric/topology.h"

namespace lightsim::fabric {

void register_all(Registry& registry) {
  registry.add_spec<GpuSpec>();
  registry.add_spec<KernelTableSpec>();
  registry.add_spec<FabricSpec>();
  registry.add_spec<NcclTuningSpec>();
  registry.add_spec<FabricDesignSpec>();
  registry.add_spec<SeedPrefillReference>();
  registry.add_spec<CollectiveMeasurementReference>();
}

}  // namespace lightsim::fabric
