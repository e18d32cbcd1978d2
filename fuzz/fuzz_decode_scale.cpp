// Fuzz target: a decode-scale scenario (kind decode_scale_scenario, configs/decode_scale/)
// through decode::load_scale_scenario and decode::prepare, the reading half of `decode plan`
// and `decode step`: the strict reader with its fabric reference, the model's config.json and
// the compiled topology. Seeds: configs/decode_scale/.
#include "fuzz_support.h"
#include "lightsim/decode/scale.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace decode = lightsim::decode;
  static const lightsim::config::LoadOptions load{{LIGHTSIM_SOURCE_DIR "/configs"}, {}, {}, {}};
  const auto path = lightsim::fuzz::scratch_dir() / "scale.yaml";
  lightsim::fuzz::write_file(path, lightsim::fuzz::as_text(data, size));
  lightsim::fuzz::expect_input_error_only(
      [&] { (void)decode::prepare(decode::load_scale_scenario(path.string(), load), load); });
  return 0;
}
