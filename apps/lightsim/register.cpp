// The CLI's registry: the job kinds of the CLI itself plus everything the modules offer.
#include "cli.h"
#include "lightsim/builtin/register.h"
#include "reproduce.h"

namespace lightsim::cli {

void register_all(Registry& registry) {
  registry.add_spec<ReproduceSpec>();
  register_builtin(registry);
}

}  // namespace lightsim::cli
