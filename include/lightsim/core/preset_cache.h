// A process-wide, immutable cache of parsed config documents (presets and every other config
// found under the preset roots), for programs that read the same shipped configs over and over:
// the fuzz targets fuzz_config and fuzz_study, whose every execution resolves a whole shipped
// config's presets and references (docs/hardening.md, "Fuzzing"). Filled once; afterwards only
// read, so any number of threads may share it.
//
// Contract: loading through the cache gives exactly what loading from disk gives (the same
// Node, locations included, and the same errors), as long as the files under the roots do not
// change while it is installed and the working directory stays the same (a relative root is
// looked up as written). A file is cached under the path text find_named composes for it
// (<root>/<dir>/<name>.<ext>, config_files.h): any other spelling of it, and every file
// outside the roots, is read from disk as before. Files that do not load (not a regular file,
// beyond the size cap, malformed) are not cached, so their error comes from the disk read.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "lightsim/core/config_node.h"

namespace lightsim::config {

struct LoadOptions;

class PresetCache {
 public:
  // Parses every config file (kConfigExtensions: .yaml, .yml, .json) under each root,
  // recursively, with load_document. Roots that do not exist are skipped.
  static std::shared_ptr<const PresetCache> from_roots(
      const std::vector<std::filesystem::path>& roots);

  // The parsed document of `file` (matched by its exact path text), or nullptr.
  const Node* find(const std::filesystem::path& file) const;
  // Documents held.
  std::size_t size() const { return documents_.size(); }

 private:
  std::unordered_map<std::string, Node> documents_;
};

// load_document(file) (config_node.h), from options.preset_cache when it holds `file`.
Node load_document(const std::filesystem::path& file, const LoadOptions& options);

}  // namespace lightsim::config
