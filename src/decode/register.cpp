// Spec kinds of the decode module, registered explicitly.
#include "lightsim/decode/register.h"

#include "lightsim/decode/gpu_selectors.h"
#include "lightsim/decode/measured.h"
#include "lightsim/decode/scale.h"
#include "lightsim/decode/scenario.h"
#include "lightsim/decode/seed.h"

namespace lightsim::decode {

void register_all(Registry& registry) {
  registry.add_spec<DecodeScenario>();
  registry.add_spec<DecodeSeedReference>();
  registry.add_spec<ScaleScenario>();
  registry.add_spec<DecodeMeasurement>();
  registry.add_spec<DecodeMeasurements>();
  registry.add_spec<DsaIndexerSpec>();
}

}  // namespace lightsim::decode
