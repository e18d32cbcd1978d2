// Presets that shadow others (include/lightsim/core/config_shadow.h).
#include "lightsim/core/config_shadow.h"

#include <algorithm>
#include <array>
#include <map>
#include <string_view>
#include <system_error>

#include "core/config_extensions.h"

namespace lightsim::config {

std::vector<ShadowedPreset> shadowed_presets(const LoadOptions& options) {
  // The lookup's order (config_files.cpp, find_named): roots in order, then kConfigExtensions.
  // "<dir>/<name>" -> the files of that name, in lookup order.
  std::map<std::string, std::vector<std::filesystem::path>> files;
  for (const auto& root : options.config_roots) {
    std::error_code ec;
    std::vector<std::filesystem::path> dirs;
    for (const auto& entry : std::filesystem::directory_iterator(root, ec))
      if (entry.is_directory(ec)) dirs.push_back(entry.path());
    for (const auto& dir : dirs) {
      std::map<std::string, std::filesystem::path> in_dir;  // name -> first extension's file
      for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
        const std::filesystem::path& p = entry.path();
        const auto ext =
            std::find(kConfigExtensions.begin(), kConfigExtensions.end(), p.extension().string());
        if (ext == kConfigExtensions.end()) continue;
        const std::string name = dir.filename().string() + "/" + p.stem().string();
        auto [at, inserted] = in_dir.emplace(name, p);
        if (!inserted) {
          const auto held = std::find(kConfigExtensions.begin(), kConfigExtensions.end(),
                                      at->second.extension().string());
          if (ext < held) at->second = p;
        }
      }
      for (auto& [name, p] : in_dir) files[name].push_back(std::move(p));
    }
  }
  std::vector<ShadowedPreset> out;
  for (const auto& [name, found] : files)
    for (std::size_t i = 1; i < found.size(); ++i) out.push_back({name, found.front(), found[i]});
  return out;
}

}  // namespace lightsim::config
