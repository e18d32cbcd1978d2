// Finding a config file by name (include/lightsim/core/config_files.h).
#include "lightsim/core/config_files.h"

#include <algorithm>
#include <array>

#include <fmt/ranges.h>

#include "core/config_extensions.h"
#include "lightsim/core/config_roots.h"
#include "lightsim/core/error.h"

namespace lightsim::config {

bool looks_like_path(std::string_view name) {
  if (name.find('/') != std::string_view::npos) return true;
  return std::any_of(kConfigExtensions.begin(), kConfigExtensions.end(),
                     [&](std::string_view ext) { return name.ends_with(ext); });
}

std::filesystem::path require_config_root(const std::filesystem::path& folder,
                                          std::string_view option) {
  std::error_code ec;
  const auto status = std::filesystem::status(folder, ec);
  LIGHTSIM_CHECK_AS(UsageError, std::filesystem::exists(status),
                    "{} '{}': no such folder (expected a folder of presets: devices/, models/, "
                    "...)",
                    option, folder.string());
  LIGHTSIM_CHECK_AS(UsageError, std::filesystem::is_directory(status),
                    "{} '{}': not a folder (expected a folder of presets: devices/, models/, ...)",
                    option, folder.string());
  return folder;
}

std::vector<std::string> named_configs(std::string_view dir, const LoadOptions& options) {
  std::vector<std::string> names;
  for (const auto& root : options.config_roots) {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(root / dir, ec)) {
      const std::string ext = entry.path().extension().string();
      if (std::find(kConfigExtensions.begin(), kConfigExtensions.end(), ext) !=
          kConfigExtensions.end())
        names.push_back(entry.path().stem().string());
    }
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

std::filesystem::path find_named(const std::string& name_or_file, std::string_view dir,
                                 const LoadOptions& options, std::string_view what,
                                 const std::filesystem::path& relative_to) {
  LIGHTSIM_CHECK_AS(ConfigNotFound, !name_or_file.empty(), "no {} named (an empty name)", what);
  std::vector<std::filesystem::path> candidates;
  std::vector<std::string> searched;
  const bool is_path = looks_like_path(name_or_file);
  const std::filesystem::path given = name_or_file;
  if (is_path) {
    if (given.is_absolute()) {
      candidates.push_back(given);
    } else {
      candidates.push_back(relative_to.empty() ? given : relative_to / given);
      for (const auto& root : options.config_roots) candidates.push_back(root / given);
    }
    for (const auto& c : candidates) searched.push_back(c.string());
  } else {
    for (const auto& root : options.config_roots) {
      for (std::string_view ext : kConfigExtensions)
        candidates.push_back(root / dir / (name_or_file + std::string(ext)));
      searched.push_back((root / dir).string() + "/");
    }
  }
  for (const auto& c : candidates) {
    std::error_code ec;
    // A path or preset file that exists but is not a regular file (a folder, a link to
    // /dev/zero, a FIFO) is returned, so its reader says what it is instead of "not found".
    if (std::filesystem::exists(c, ec)) return c;
  }
  const std::string where = searched.empty() ? std::string("no config folder")
                                             : fmt::format("{}", fmt::join(searched, ", "));
  const std::string hint =
      is_path ? std::string() : suggest(name_or_file, named_configs(dir, options), "available");
  LIGHTSIM_THROW(ConfigNotFound, "no {} '{}'{} (looked in {})", what, name_or_file, hint, where);
}

}  // namespace lightsim::config
