// Fuzz target: a KV cache folder's manifest.json (docs/kv-data.md) beside small valid arrays of
// shape [1, 1, 4, 2] (keys, values) and [1, 1, 1, 2] (queries), through read_kv_cache.
// Seeds: fuzz/seeds/kv_manifest.
#include <vector>

#include "fuzz_support.h"
#include "lightsim/core/npy.h"
#include "lightsim/kv/io.h"

namespace {

const std::filesystem::path& cache_dir() {
  static const std::filesystem::path dir = [] {
    const auto d = lightsim::fuzz::scratch_dir() / "cache";
    std::filesystem::create_directories(d);
    const std::vector<float> kv(8, 0.5f), q(2, 0.25f);
    const std::vector<std::size_t> kv_shape{1, 1, 4, 2}, q_shape{1, 1, 1, 2};
    const auto f32 = lightsim::NpyDtype::kFloat32;
    lightsim::write_npy(d / "keys.npy", kv, kv_shape, f32);
    lightsim::write_npy(d / "values.npy", kv, kv_shape, f32);
    lightsim::write_npy(d / "queries.npy", q, q_shape, f32);
    return d;
  }();
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto& dir = cache_dir();
  lightsim::fuzz::write_file(dir / "manifest.json", lightsim::fuzz::as_text(data, size));
  lightsim::fuzz::expect_input_error_only([&] { (void)lightsim::kv::read_kv_cache(dir); });
  return 0;
}
