// Finding a config file by name: the CLI, the loaders and Ref<S> fields accept either a file
// path or the name of a shipped config (e.g. "seed_8k" for configs/scenarios/seed_8k.yaml).
// Every lookup of a named config goes through find_named, and every miss is one error kind,
// ConfigNotFound, naming the folders searched and the closest names there.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "lightsim/core/config_reader.h"

namespace lightsim::config {

// Whether `name_or_file` is a path (contains '/' or ends in .yaml, .yml or .json), not a name.
bool looks_like_path(std::string_view name_or_file);

// The file a config name or path stands for.
//  - a path: as given when absolute; else from `relative_to` (the folder of the file that
//    names it) when given, else from the working directory; then from each config root;
//  - a name: <root>/<dir>/<name>.yaml, .yml or .json for the first of options.config_roots
//    that has it.
// Nothing found: ConfigNotFound "no <what> '<name>' (looked in <folders>; did you mean 'x'?)"
// (or the names available when none is close).
std::filesystem::path find_named(const std::string& name_or_file, std::string_view dir,
                                 const LoadOptions& options, std::string_view what,
                                 const std::filesystem::path& relative_to = {});
// The same, for callers that name the extension (every config extension is searched).
inline std::filesystem::path find_named(const std::string& name_or_file, std::string_view dir,
                                        std::string_view /*ext*/, const LoadOptions& options,
                                        std::string_view what) {
  return find_named(name_or_file, dir, options, what);
}

// The config names in <root>/<dir>/ over options.config_roots (stems, sorted, unique).
std::vector<std::string> named_configs(std::string_view dir, const LoadOptions& options);

}  // namespace lightsim::config
