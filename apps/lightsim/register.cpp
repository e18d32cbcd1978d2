// Everything this build of lightsim offers, registered explicitly in one place.
#include "cli.h"
#include "reproduce.h"

namespace lightsim::cli {

void register_all(Registry& registry) {
  registry.add_spec<ReproduceSpec>();
  // Modules add themselves here as they land, e.g. photonics::register_all(registry).
}

}  // namespace lightsim::cli
