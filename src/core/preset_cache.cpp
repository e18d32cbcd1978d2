// The preset cache (include/lightsim/core/preset_cache.h).
#include "lightsim/core/preset_cache.h"

#include <algorithm>

#include "core/config_extensions.h"
#include "lightsim/core/config_reader.h"
#include "lightsim/core/error.h"

namespace lightsim::config {

std::shared_ptr<const PresetCache> PresetCache::from_roots(
    const std::vector<std::filesystem::path>& roots) {
  auto cache = std::make_shared<PresetCache>();
  for (const auto& root : roots) {
    std::error_code ec;
    if (!std::filesystem::is_directory(root, ec)) continue;
    for (auto it = std::filesystem::recursive_directory_iterator(root, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
      const std::filesystem::path& file = it->path();
      const std::string ext = file.extension().string();
      if (std::find(kConfigExtensions.begin(), kConfigExtensions.end(), ext) ==
          kConfigExtensions.end())
        continue;
      std::error_code type_ec;
      if (!it->is_regular_file(type_ec)) continue;  // the disk read says what it is
      try {
        cache->documents_.emplace(file.string(), load_document(file));
      } catch (const InputError&) {
        // Not cached: loading it reads the disk and reports the same error as without a cache.
      }
    }
  }
  return cache;
}

const Node* PresetCache::find(const std::filesystem::path& file) const {
  const auto it = documents_.find(file.string());
  return it == documents_.end() ? nullptr : &it->second;
}

Node load_document(const std::filesystem::path& file, const LoadOptions& options) {
  if (options.preset_cache != nullptr)
    if (const Node* cached = options.preset_cache->find(file); cached != nullptr) return *cached;
  return load_document(file);
}

}  // namespace lightsim::config
