// The file extensions of a config file found by name, in lookup order: a preset NAME is
// <root>/<kind folder>/NAME.yaml, then .yml, then .json (config_files.cpp find_named). The
// shadowed-preset report (config_shadow.cpp) ranks files by the same order.
#pragma once

#include <array>
#include <string_view>

namespace lightsim::config {

inline constexpr std::array<std::string_view, 3> kConfigExtensions{".yaml", ".yml", ".json"};

}  // namespace lightsim::config
