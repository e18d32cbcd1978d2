// `lightsim prism`: the command group of the Prism accelerator. Its `cost` and `timeline`
// subcommands are operations (src/ops/prism_ops.cpp); `thermal` and `calibrate` are added by
// prism_thermal_commands.cpp.
#include "cli.h"

namespace lightsim::cli {

void add_prism_commands(CLI::App& app, const GlobalOptions& options, const Registry& registry) {
  CLI::App* prism = app.add_subcommand("prism", "The Prism photonic KV-block selector");
  prism->require_subcommand(1);
  add_prism_thermal_commands(*prism, options, registry);  // thermal, calibrate
}

}  // namespace lightsim::cli
