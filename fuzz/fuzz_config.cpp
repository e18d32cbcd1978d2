// Fuzz target: any YAML document through the strict spec reader of the kind it declares
// (every kind registered by register_builtin, so kinds added later are covered too), with
// presets resolved from the shipped configs/. Seeds: configs/**.
#include "fuzz_support.h"
#include "lightsim/builtin/register.h"
#include "lightsim/core/config.h"
#include "lightsim/core/registry.h"
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
  const auto path = lightsim::fuzz::scratch_dir() / "config.yaml";
  lightsim::fuzz::write_file(path, lightsim::fuzz::as_text(data, size));
  lightsim::fuzz::expect_input_error_only([&] { (void)registry.check_file(path, load); });
  return 0;
}
