// Fuzz target: a study config with its `sizes: {quick, full}` overlays (studies::make_input,
// for each size), then the merged document through the strict reader of the kind it declares
// (every registered study kind). Seeds: configs/studies/ and configs/.
#include "fuzz_support.h"
#include "lightsim/builtin/register.h"
#include "lightsim/core/config_node.h"
#include "lightsim/core/preset_cache.h"
#include "lightsim/core/registry.h"
#include "lightsim/studies/study.h"

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
  const auto path = lightsim::fuzz::scratch_dir() / "study.yaml";
  lightsim::fuzz::write_file(path, lightsim::fuzz::as_text(data, size));
  const auto merged = lightsim::fuzz::scratch_dir() / "merged.yaml";
  using lightsim::studies::Size;
  for (Size s : {Size::quick, Size::standard, Size::full}) {
    lightsim::fuzz::expect_input_error_only([&] {
      const auto input = lightsim::studies::make_input("fuzz", path, load, s);
      if (input.document.is_map() && input.document.find("kind") != nullptr) {
        lightsim::fuzz::write_file(merged, lightsim::config::to_yaml(input.document));
        (void)registry.check_file(merged, load);
      }
    });
  }
  return 0;
}
