// Finding a config file by name: the CLI and the loaders accept either a file path or the
// name of a shipped config (e.g. "seed_8k" for configs/scenarios/seed_8k.yaml).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "lightsim/core/config_reader.h"

namespace lightsim::config {

// `name_or_file` when it has an extension; else <root>/<dir>/<name_or_file><ext> for the first
// of options.config_roots that has it. A file that does not exist is an InputError
// "no <what> '<name>' (give a file or a name from configs/<dir>/)".
std::filesystem::path find_named(const std::string& name_or_file, std::string_view dir,
                                 std::string_view ext, const LoadOptions& options,
                                 std::string_view what);

}  // namespace lightsim::config
