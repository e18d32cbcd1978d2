#include "cli.h"

namespace lightsim::cli {

config::LoadOptions GlobalOptions::load_options() const {
  config::LoadOptions o;
  o.config_roots = config_path;
  o.config_roots.emplace_back(LIGHTSIM_SOURCE_DIR "/configs");
  o.assignments = assignments;
  return o;
}

}  // namespace lightsim::cli
