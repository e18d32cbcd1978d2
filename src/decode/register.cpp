// Spec kinds of the decode module, registered explicitly.
#include "lightsim/decode/register.h"

#include "lightsim/decode/scenario.h"
#include "lightsim/decode/seed.h"

namespace lightsim::decode {

void register_all(Registry& registry) {
  registry.add_spec<DecodeScenario>();
  registry.add_spec<DecodeSeedReference>();
}

}  // namespace lightsim::decode
