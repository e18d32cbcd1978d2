// Preset roots given by the user: the CLI's --config-path and Python's config_path.
#pragma once

#include <filesystem>
#include <string_view>

namespace lightsim::config {

// `folder` as a preset root given by the user (`option` names where: "--config-path",
// Python's "config_path"): a UsageError naming the option and the path unless it is an
// existing folder (a missing one was ignored, so every preset silently came from the data
// folder instead).
std::filesystem::path require_config_root(const std::filesystem::path& folder,
                                          std::string_view option);

}  // namespace lightsim::config
