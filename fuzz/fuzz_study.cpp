// Fuzz target: a study config with its `sizes: {quick, full}` overlays (studies::make_input,
// for each size), then the merged document through the strict reader of the kind it declares
// (every registered study kind). Seeds: configs/studies/ and configs/.
#include "fuzz_support.h"
#include "lightsim/builtin/register.h"
#include "lightsim/core/config_node.h"
#include "lightsim/core/registry.h"
#include "lightsim/studies/study.h"
#include "shipped_presets.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  lightsim::fuzz::install_shipped_preset_cache();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const lightsim::Registry registry = [] {
    lightsim::Registry r;
    lightsim::register_builtin(r);
    return r;
  }();
  const lightsim::config::LoadOptions& load = lightsim::fuzz::shipped_load_options();
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
