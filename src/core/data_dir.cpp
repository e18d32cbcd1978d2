// The data folder lookup (include/lightsim/core/data_dir.h).
#include "lightsim/core/data_dir.h"

#include <dlfcn.h>
#include <link.h>

#include <cstdlib>
#include <string>
#include <system_error>

#include <fmt/ranges.h>

#include "lightsim/core/error.h"

namespace lightsim {
namespace {

bool holds_configs(const std::filesystem::path& dir) {
  std::error_code ec;
  return std::filesystem::is_directory(dir / "configs", ec);
}

// The absolute path of the executable or shared object that holds this function: the loader's
// name for a shared object (the Python module), /proc/self/exe for the main program (whose
// loader name is empty). Empty when neither is known.
std::filesystem::path this_binary() {
  Dl_info info{};
  link_map* map = nullptr;
  std::error_code ec;
  if (dladdr1(reinterpret_cast<void*>(&this_binary), &info, reinterpret_cast<void**>(&map),
              RTLD_DL_LINKMAP) != 0 &&
      map != nullptr && map->l_name != nullptr && map->l_name[0] != '\0') {
    const std::filesystem::path object = std::filesystem::weakly_canonical(map->l_name, ec);
    if (!ec) return object;
  }
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path() : exe;
}

}  // namespace

std::vector<std::filesystem::path> data_dir_candidates(const std::filesystem::path& binary) {
  const std::filesystem::path folder = binary.parent_path();
  return {(folder.parent_path() / "share" / "lightsim").lexically_normal(), folder / "data"};
}

std::filesystem::path data_dir() {
  const char* given = std::getenv(kDataEnvironmentVariable);
  if (given != nullptr && given[0] != '\0') {
    const std::filesystem::path dir = given;
    LIGHTSIM_CHECK_AS(InputError, holds_configs(dir),
                      "{}={}: expected lightsim's data folder, holding configs/ and "
                      "third_party/vega/ (an install's <prefix>/share/lightsim, or the source "
                      "tree), but {} is not a folder",
                      kDataEnvironmentVariable, dir.string(), (dir / "configs").string());
    return std::filesystem::weakly_canonical(dir);
  }
  const std::filesystem::path binary = this_binary();
  std::vector<std::string> tried;
  if (!binary.empty()) {
    for (const std::filesystem::path& dir : data_dir_candidates(binary)) {
      if (holds_configs(dir)) return std::filesystem::weakly_canonical(dir);
      tried.push_back(dir.string());
    }
  }
  LIGHTSIM_THROW(InputError,
                 "lightsim's data folder (configs/ and third_party/vega/) was not found{}; set "
                 "{} to it (an install's <prefix>/share/lightsim, or the source tree)",
                 tried.empty() ? std::string(" (the program's own path is unknown)")
                               : fmt::format(" beside {} (looked in {})", binary.string(),
                                             fmt::join(tried, ", ")),
                 kDataEnvironmentVariable);
}

std::filesystem::path data_configs_dir() {
  return data_dir() / "configs";
}

}  // namespace lightsim
