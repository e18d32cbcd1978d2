// Where lightsim's shipped data lives: the presets (configs/) and the report's chart libraries
// (third_party/vega/). data_dir() is the one lookup: the CLI's and the Python module's preset
// root and the report's default chart libraries all come from it (docs/install.md).
#pragma once

#include <filesystem>
#include <vector>

namespace lightsim {

// The environment variable that names the data folder explicitly.
inline constexpr const char* kDataEnvironmentVariable = "LIGHTSIM_DATA";

// The folders data_dir() tries after $LIGHTSIM_DATA, in order, for the binary file that holds
// this code (the lightsim executable, the Python extension module or a program linking the
// lightsim libraries), `binary` an absolute path:
//   <binary's folder>/../share/lightsim   an install prefix (bin/lightsim), and the build tree
//                                         (build/bin/lightsim; build/share/lightsim links the
//                                         source tree's folders)
//   <binary's folder>/data                the Python package (lightsim/_core*.so)
std::vector<std::filesystem::path> data_dir_candidates(const std::filesystem::path& binary);

// The data folder: $LIGHTSIM_DATA when set and not empty, else the first of
// data_dir_candidates(<this binary>) that holds a configs/ folder; symbolic links resolved (so
// the build tree's data folder is the source tree itself). Throws InputError naming
// LIGHTSIM_DATA when $LIGHTSIM_DATA does not hold configs/ or no candidate does (the message
// lists the folders tried). Reads the environment on every call (nothing is cached).
std::filesystem::path data_dir();

// The preset root: data_dir() / "configs".
std::filesystem::path data_configs_dir();

}  // namespace lightsim
