// Presets that shadow others: a file <root>/<dir>/<name>.yaml|.yml|.json of an earlier preset
// root (--config-path) is what `preset: name` reads, so a file of the same <dir>/<name> in a
// later root (the shipped configs/) is never read. A run reports each such pair (on stderr and
// in the reproduce manifest), so a result computed with a user's copy of a shipped preset says
// so (docs/hardening.md, "Presets").
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "lightsim/core/config_reader.h"

namespace lightsim::config {

struct ShadowedPreset {
  std::string name;                // "<dir>/<name>", e.g. "devices/tfln_q1e4"
  std::filesystem::path used;      // the file presets of that name resolve to
  std::filesystem::path shadowed;  // a later root's file of the same name, never read
};

// Every shadowed preset over options.config_roots, by name, then root order. Folders that
// cannot be listed are skipped (the lookup itself reports them). Never throws.
std::vector<ShadowedPreset> shadowed_presets(const LoadOptions& options);

}  // namespace lightsim::config
