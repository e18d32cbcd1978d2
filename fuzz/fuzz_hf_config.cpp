// Fuzz target: a Hugging Face config.json through the model reader, then the parameter count
// (which must not overflow for any accepted config). Seeds: configs/models/ and the real
// configs of tests/data/hf_configs/.
#include "fuzz_support.h"
#include "lightsim/core/config_node.h"
#include "lightsim/model/params.h"
#include "lightsim/model/transformer.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  lightsim::fuzz::expect_input_error_only([&] {
    const auto document =
        lightsim::config::parse_document(lightsim::fuzz::as_text(data, size), "config.json");
    const lightsim::model::Transformer model = lightsim::model::read_hf_config(document, "fuzz");
    (void)lightsim::model::count_parameters(model);
  });
  return 0;
}
