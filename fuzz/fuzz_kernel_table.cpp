// Fuzz target: a kernel table (kind kernel_table, configs/kernels/) through its strict reader,
// then compiled into a GPU's KernelEfficiency and looked up across classes, formats, sizes and
// reduction dimensions. Beyond the reader's contract (success or InputError), every lookup of
// an accepted table must be a fraction of peak in (0, 1]: the curves' efficiencies are in
// (0, 1], lookups interpolate between them and hold the end values, and the roofline fallback
// is below its maximum (kernels.h). Seeds: configs/kernels/.
#include <cmath>

#include "fuzz_support.h"
#include "lightsim/core/config.h"
#include "lightsim/fabric/gpu.h"
#include "lightsim/fabric/kernels.h"

namespace {

void require_fraction(double e, const char* what, double size, double k) {
  if (e > 0 && e <= 1) return;
  std::fprintf(stderr, "fuzz: %s efficiency %g at size %g, K %g is not in (0, 1]\n", what, e, size,
               k);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace fabric = lightsim::fabric;
  static const lightsim::config::LoadOptions load{{LIGHTSIM_SOURCE_DIR "/configs"}, {}, {}, {}};
  const auto path = lightsim::fuzz::scratch_dir() / "kernels.yaml";
  lightsim::fuzz::write_file(path, lightsim::fuzz::as_text(data, size));
  lightsim::fuzz::expect_input_error_only([&] {
    fabric::GpuSpec gpu;
    gpu.name = "fuzz";
    gpu.kernels.emplace();
    gpu.kernels->bind("fuzz", path,
                      lightsim::config::load_spec<fabric::KernelTableSpec>(path, load));
    const fabric::KernelEfficiency eff(gpu);
    for (const auto c : {fabric::KernelClass::gemm, fabric::KernelClass::grouped_gemm,
                         fabric::KernelClass::attention})
      for (std::size_t format = 0; format < fabric::kFormats; ++format)
        for (const double x : {1.0, 37.0, 4096.0, 1e6, 1e12})
          for (const double k : {1.0, 512.0, 7168.0, 1e6})
            for (const bool causal : {true, false})
              require_fraction(eff.compute(c, format, x, k, causal, 2 * x * k * 4096), "compute", x,
                               k);
    for (const double bytes : {1.0, 4096.0, 1e9, 1e15})
      require_fraction(eff.memory(bytes), "memory", bytes, 0);
  });
  return 0;
}
