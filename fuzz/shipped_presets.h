// The shipped configs/ as preset roots, for the fuzz targets that resolve presets and references
// (fuzz_config, fuzz_study). install_shipped_preset_cache(), called from LLVMFuzzerInitialize,
// parses every shipped document once (config::PresetCache), so an execution resolves its presets
// from memory instead of re-reading and re-parsing them: the results are the same, and most of
// an execution's CPU time was those reads (docs/hardening.md "Fuzzing").
#pragma once

#include "lightsim/core/config_reader.h"
#include "lightsim/core/preset_cache.h"

namespace lightsim::fuzz {

inline config::LoadOptions& shipped_load_options() {
  static config::LoadOptions load{{LIGHTSIM_SOURCE_DIR "/configs"}, {}, {}, {}};
  return load;
}

inline void install_shipped_preset_cache() {
  shipped_load_options().preset_cache =
      config::PresetCache::from_roots(shipped_load_options().config_roots);
}

}  // namespace lightsim::fuzz
