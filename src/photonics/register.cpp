// Spec kinds of the photonics module.
#include "lightsim/photonics/register.h"

#include "lightsim/photonics/device.h"
#include "lightsim/photonics/mvm.h"
#include "lightsim/photonics/ptc_path.h"

namespace lightsim::photonics {

void register_all(Registry& registry) {
  registry.add_spec<DeviceSpec>();
  registry.add_spec<RingSpec>();
  registry.add_spec<GridSpec>();
  registry.add_spec<TuningSpec>();
  registry.add_spec<BankSpec>();
  registry.add_spec<DacSpec>();
  registry.add_spec<LaserSpec>();
  registry.add_spec<ModulatorSpec>();
  registry.add_spec<PathSpec>();
  registry.add_spec<DetectorSpec>();
  registry.add_spec<TiaSpec>();
  registry.add_spec<AdcSpec>();
  registry.add_spec<NoiseSpec>();
  registry.add_spec<ImpairmentSpec>();
  registry.add_spec<RequirementsSpec>();
  registry.add_spec<PtcDeviceSpec>();
  registry.add_spec<PtcPathReference>();
}

}  // namespace lightsim::photonics
