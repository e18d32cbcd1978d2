// Finding a config file by name (include/lightsim/core/config_files.h).
#include "lightsim/core/config_files.h"

#include "lightsim/core/error.h"

namespace lightsim::config {

std::filesystem::path find_named(const std::string& name_or_file, std::string_view dir,
                                 std::string_view ext, const LoadOptions& options,
                                 std::string_view what) {
  std::filesystem::path file = name_or_file;
  if (!file.has_extension())
    for (const auto& root : options.config_roots)
      if (std::filesystem::exists(root / dir / (name_or_file + std::string(ext)))) {
        file = root / dir / (name_or_file + std::string(ext));
        break;
      }
  LIGHTSIM_CHECK_AS(InputError, std::filesystem::exists(file),
                    "no {} '{}' (give a file or a name from configs/{}/)", what, name_or_file, dir);
  return file;
}

}  // namespace lightsim::config
