// Fuzz target: a .npy file (magic, version, header dict, payload) through read_npy. A shape
// larger than the payload must be rejected before anything is allocated. Seeds: fuzz/seeds/npy.
#include "fuzz_support.h"
#include "lightsim/core/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = lightsim::fuzz::scratch_dir() / "input.npy";
  lightsim::fuzz::write_file(path, lightsim::fuzz::as_text(data, size));
  lightsim::fuzz::expect_input_error_only([&] {
    lightsim::NpyReadOptions options;
    options.u2_is_bfloat16 = size > 0 && (data[size - 1] & 1) != 0;
    (void)lightsim::read_npy(path, options);
  });
  return 0;
}
