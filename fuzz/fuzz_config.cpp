// Fuzz target: any YAML document through the strict spec reader of the kind it declares
// (every kind registered by register_builtin, so kinds added later are covered too), with
// presets resolved from the shipped configs/. Seeds: configs/**.
#include "fuzz_support.h"
#include "lightsim/builtin/register.h"
#include "lightsim/core/config.h"
#include "lightsim/core/preset_cache.h"
#include "lightsim/core/registry.h"

namespace {

// The shipped configs/ as preset roots. LLVMFuzzerInitialize installs the preset cache: every
// shipped document parsed once, so an execution resolves its presets and references from
// memory instead of re-reading and re-parsing them (the results are the same; most of the
// CPU time of an execution was those reads, docs/hardening.md "Fuzzing").
lightsim::config::LoadOptions& load_options() {
  static lightsim::config::LoadOptions load{{LIGHTSIM_SOURCE_DIR "/configs"}, {}, {}, {}};
  return load;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  load_options().preset_cache =
      lightsim::config::PresetCache::from_roots(load_options().config_roots);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const lightsim::Registry registry = [] {
    lightsim::Registry r;
    lightsim::register_builtin(r);
    return r;
  }();
  const lightsim::config::LoadOptions& load = load_options();
  const auto path = lightsim::fuzz::scratch_dir() / "config.yaml";
  lightsim::fuzz::write_file(path, lightsim::fuzz::as_text(data, size));
  lightsim::fuzz::expect_input_error_only([&] { (void)registry.check_file(path, load); });
  return 0;
}
