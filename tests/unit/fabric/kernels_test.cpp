// Kernel efficiency tables: log-space interpolation, held ends, the roofline fallback, and
// the shipped H800 table against the DeepGEMM / FlashAttention-3 figures it cites.
#include <gtest/gtest.h>

#include <cmath>

#include "lightsim/fabric/kernels.h"
#include "lightsim/fabric/topology.h"
#include "shipped_configs.h"

namespace lightsim::fabric {
namespace {

GpuSpec gpu_with(const std::string& table_yaml) {
  const std::string doc = "schema_version: 1\nkind: gpu\nname: test\nkernels:\n" + table_yaml;
  return config::read_spec<GpuSpec>(config::parse_document(doc, "gpu.yaml"),
                                    testing::shipped_configs());
}

const std::string kTable =
    "  gemm:\n"
    "    - {format: fp8, k: 1000, sizes: [100, 10000], efficiency: [0.2, 0.6], source: t}\n"
    "    - {format: fp8, k: 100000, sizes: [100, 10000], efficiency: [0.4, 0.8], source: t}\n"
    "  attention:\n"
    "    - {format: bf16, causal: true, sizes: [1000, 4000], efficiency: [0.3, 0.5], source: t}\n"
    "    - {format: bf16, causal: false, sizes: [1000], efficiency: [0.7], source: t}\n"
    "  memory_efficiency_max: 0.9\n";

TEST(Kernels, InterpolatesInLogSizeAndLogKAndHoldsTheEnds) {
  const KernelEfficiency e(gpu_with(kTable));
  const std::size_t fp8 = format_index("fp8"), bf16 = format_index("bf16");
  const auto gemm = [&](double m, double k) {
    return e.compute(KernelClass::gemm, fp8, m, k, true, 1e12);
  };
  EXPECT_DOUBLE_EQ(gemm(100, 1000), 0.2);
  EXPECT_DOUBLE_EQ(gemm(10000, 1000), 0.6);
  EXPECT_NEAR(gemm(1000, 1000), 0.4, 1e-12);   // the geometric midpoint of M
  EXPECT_NEAR(gemm(1000, 10000), 0.5, 1e-12);  // and of K: halfway between the curves
  EXPECT_DOUBLE_EQ(gemm(1e6, 1000), 0.6);      // held above the last M
  EXPECT_DOUBLE_EQ(gemm(10, 10), 0.2);         // below the first M and K
  EXPECT_DOUBLE_EQ(gemm(10000, 1e7), 0.8);     // above the last K
  EXPECT_NEAR(e.compute(KernelClass::attention, bf16, 2000, 0, true, 1), 0.4, 1e-12);
  EXPECT_DOUBLE_EQ(e.compute(KernelClass::attention, bf16, 2000, 0, false, 1), 0.7);
  EXPECT_TRUE(e.tabled(KernelClass::gemm, fp8));
  EXPECT_FALSE(e.tabled(KernelClass::gemm, bf16));
  EXPECT_NEAR(e.memory(4e6), 0.45, 1e-12);  // 0.9 at half_bytes 4 MB (the default)
  EXPECT_NE(e.describe().find("kernel table"), std::string::npos) << e.describe();
}

TEST(Kernels, AClassOrGpuWithoutATableUsesTheRooflineCeilingAndSaysSo) {
  const GpuSpec g = gpu_with(kTable);
  const KernelEfficiency e(g);
  const double flops = 3e9;
  const double ceiling = g.gemm_efficiency_max * flops / (flops + g.gemm_half_work.si());
  EXPECT_DOUBLE_EQ(e.compute(KernelClass::gemm, format_index("bf16"), 4096, 7168, true, flops),
                   ceiling);
  EXPECT_DOUBLE_EQ(
      e.compute(KernelClass::grouped_gemm, format_index("fp8"), 4096, 7168, true, flops), ceiling);
  GpuSpec plain = g;
  plain.kernels.reset();
  const KernelEfficiency none(plain);
  EXPECT_DOUBLE_EQ(none.compute(KernelClass::gemm, format_index("fp8"), 4096, 7168, true, flops),
                   ceiling);
  EXPECT_NE(none.describe().find("no kernel table: roofline ceiling"), std::string::npos)
      << none.describe();
}

TEST(Kernels, ShippedH800TableReproducesItsSources) {
  const GpuSpec g = load_fabric("hgx_h800", testing::shipped_configs()).gpu;
  const KernelEfficiency e(g);
  const std::size_t fp8 = format_index("fp8");
  const double peak = g.peak_fp8.si();
  // DeepGEMM: M=4096, N=7168, K=16384 at 1358 TFLOPS; grouped 4 x 8192 tokens, K=7168: 1297.
  EXPECT_NEAR(e.compute(KernelClass::gemm, fp8, 4096, 16384, true, 1) * peak, 1358e12, 2e12);
  EXPECT_NEAR(e.compute(KernelClass::grouped_gemm, fp8, 8192, 7168, true, 1) * peak, 1297e12, 2e12);
  // FlashAttention-3, causal, head dim 128, 4K tokens: 579 TFLOPS of 989.
  EXPECT_NEAR(
      e.compute(KernelClass::attention, format_index("bf16"), 4096, 0, true, 1) * g.peak_bf16.si(),
      579e12, 1e12);
}

}  // namespace
}  // namespace lightsim::fabric
