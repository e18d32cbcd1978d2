// The CLI's registry: the job kinds of the CLI itself plus everything the modules offer.
#include "lightsim/builtin/register.h"
#include "cli.h"
#include "reproduce.h"

namespace lightsim::cli {

void register_all(Registry& registry) {
  registry.add_spec<ReproduceSpec>();
  register_builtin(registry);
}

}  // namespace lightsim::cli
