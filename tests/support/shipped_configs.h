// Test helper: load options that find presets in the repository's configs/ folder.
#pragma once

#include <filesystem>

#include "lightsim/core/config.h"

namespace lightsim::testing {

inline config::LoadOptions shipped_configs() {
  config::LoadOptions options;
  options.config_roots = {std::filesystem::path(LIGHTSIM_SOURCE_DIR) / "configs"};
  return options;
}

}  // namespace lightsim::testing
