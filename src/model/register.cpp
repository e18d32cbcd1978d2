// Spec kinds of the model module.
#include "lightsim/model/register.h"

#include "lightsim/model/transformer.h"

namespace lightsim::model {

void register_all(Registry& registry) {
  registry.add_spec<DTypePolicy>();
}

}  // namespace lightsim::model
