// Fuzz target: a serving scenario (kind serve_scenario, configs/serve/) through serve::prepare,
// the path of `serve run`: the strict reader with its references (model, fabrics, cost model),
// the pools' step models and the generated requests, under a 4 MiB memory budget (a scenario
// asking for more requests than fit is the budget's InputError, as on the command line).
// Traces named by a relative path are looked up beside the scratch file and are missing (a
// ConfigError): fuzz_trace covers the trace reader. Seeds: configs/serve/.
#include "fuzz_support.h"
#include "lightsim/serve/run.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const lightsim::config::LoadOptions load{{LIGHTSIM_SOURCE_DIR "/configs"}, {}, {}, {}};
  const auto path = lightsim::fuzz::scratch_dir() / "scenario.yaml";
  lightsim::fuzz::write_file(path, lightsim::fuzz::as_text(data, size));
  lightsim::fuzz::expect_input_error_only(
      [&] { (void)lightsim::serve::prepare(path.string(), load, 1, std::uint64_t{4} << 20); });
  return 0;
}
