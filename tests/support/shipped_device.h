// Test helper: a device preset from the repository's configs/devices/ folder.
#pragma once

#include <filesystem>
#include <string>

#include "lightsim/photonics/device.h"
#include "shipped_configs.h"

namespace lightsim::testing {

inline photonics::DeviceSpec shipped_device(const std::string& name) {
  return config::load_spec<photonics::DeviceSpec>(
      std::filesystem::path(LIGHTSIM_SOURCE_DIR) / "configs/devices" / (name + ".yaml"),
      shipped_configs());
}

}  // namespace lightsim::testing
