// Fabric specs, the CPO derivation, GPU presets and the published calibration points.
#include <gtest/gtest.h>

#include "lightsim/fabric/collective.h"
#include "shipped_configs.h"

namespace lightsim::fabric {
namespace {

Topology topology_shipped(const char* name) {
  return build_topology(load_fabric(name, testing::shipped_configs()));
}

FabricSpec parse_fabric(const std::string& yaml) {
  return config::read_spec<FabricSpec>(config::parse_document(yaml, "f.yaml"),
                                       testing::shipped_configs());
}

TEST(Topology, CpoBandwidthIsDerivedFromTheOpticalParameters) {
  CpoSpec c;  // 56 GBd PAM4, 100/112 coding, 16 wavelengths, 64 fibers, 2 tiles
  const CpoLink l = derive(c);
  EXPECT_DOUBLE_EQ(l.lane_payload * 8, 100e9);
  EXPECT_NEAR(l.per_fiber * 8, 1.6e12, 1e3);
  EXPECT_NEAR(l.per_tile * 8, 102.4e12, 1e5);
  EXPECT_NEAR(l.per_gpu_per_direction, 12.8e12, 1e4);
  c.modulation = "nrz";
  EXPECT_DOUBLE_EQ(derive(c).per_fiber * 2, l.per_fiber);
}

TEST(Topology, PhotonicPodRatioToCopperIsAnOutput) {
  const Topology four = topology_shipped("photonic_4x_1152");
  EXPECT_NEAR(four.tiers[0].line_bandwidth / four.gpu.scale_up_bandwidth.si(), 4.0, 1e-9);
  EXPECT_EQ(four.tiers[0].domain_size, 1152);
  EXPECT_EQ(four.tiers[0].switch_levels, 2);
  const Topology full = topology_shipped("photonic_cpo_1152");
  EXPECT_NEAR(full.tiers[0].line_bandwidth / full.gpu.scale_up_bandwidth.si(), 14.22, 0.01);
}

TEST(Topology, OversubscriptionDividesTheTierBandwidth) {
  const FabricSpec f = parse_fabric(R"(schema_version: 1
kind: fabric
gpu: {preset: h100}
tiers:
  - {name: nvlink, domain_size: 8, bandwidth: 450 GB/s}
  - {name: scale_out, domain_size: 64, bandwidth: 400 Gb/s, oversubscription: 2}
)");
  const Topology t = build_topology(f);
  EXPECT_DOUBLE_EQ(t.tiers[1].bandwidth, 25e9);
  EXPECT_EQ(t.gpu.name, "H100 SXM");
}

TEST(Topology, BadFabricsNameTheProblem) {
  auto error = [](const std::string& yaml) -> std::string {
    try {
      (void)build_topology(parse_fabric(yaml));
    } catch (const InputError& e) {
      return e.what();
    }
    return "no error";
  };
  const std::string head = "schema_version: 1\nkind: fabric\ntiers:\n";
  EXPECT_NE(error(head + "  - {name: a, domain_size: 8, bandwidth: 1 GB/s}\n"
                         "  - {name: b, domain_size: 12, bandwidth: 1 GB/s}\n")
                .find("must be a larger multiple"),
            std::string::npos);
  EXPECT_NE(error(head + "  - {name: a, domain_size: 8}\n").find("exactly one of 'bandwidth'"),
            std::string::npos);
  EXPECT_NE(error(head + "  - {name: a, domain_size: 8, bandwidth: 5 m}\n").find("bandwidth"),
            std::string::npos);
  EXPECT_NE(error(head + "  - {name: a, domain_size: 100000, bandwidth: 1 GB/s, switch_radix: 8}\n")
                .find("cannot join 100000 GPUs with radix-8 switches"),
            std::string::npos);
}

TEST(Gpu, RooflineWithAchievableEfficiency) {
  const GpuSpec g = load_fabric("dgx_h100", testing::shipped_configs()).gpu;
  EXPECT_THROW((void)g.peak("fp4"), ConfigError);
  const double big = 1e15;
  EXPECT_NEAR(g.kernel_time(big, 0, "bf16").si(),
              big / (989e12 * g.gemm_efficiency_max * big / (big + 1e9)), 1e-12);
  // A memory-bound kernel: time set by bytes.
  EXPECT_NEAR(g.kernel_time(1e6, 1e10, "fp8").si(), 1e10 / (3.35e12 * g.memory_efficiency(1e10)),
              1e-12);
}

// The public calibration points of prefill.md (table in docs/fabric.md).
TEST(Calibration, CopperPresetsLandNearPublishedPoints) {
  const double GiB = 1 << 30;
  const Topology h100 = topology_shipped("dgx_h100");
  EXPECT_NEAR(collective(h100, CollectiveOp::all_reduce, 8, 8 * GiB).busbw / 480e9, 1.0, 0.05);
  EXPECT_NEAR(collective(h100, CollectiveOp::all_reduce, 8, 8 * GiB, Algorithm::ring).busbw / 370e9,
              1.0, 0.05);
  const Topology nvl = topology_shipped("gb200_nvl72");
  EXPECT_NEAR(collective(nvl, CollectiveOp::all_reduce, 72, 0.5 * GiB).busbw / 581e9, 1.0, 0.05);
  EXPECT_NEAR(collective(nvl, CollectiveOp::all_reduce, 72, 4 * GiB).busbw / 835e9, 1.0, 0.05);
  EXPECT_NEAR(collective(nvl, CollectiveOp::all_reduce, 72, 8 * GiB).busbw / 847e9, 1.0, 0.05);
  // DeepEP: 4096 tokens x 7168 hidden x top-8 in FP8 per GPU.
  const double dispatch = 4096.0 * 7168 * 8;
  const Topology h800 = topology_shipped("hgx_h800");
  EXPECT_NEAR(collective(h800, CollectiveOp::all_to_all, 8, dispatch).busbw / 155e9, 1.0, 0.05);
  for (std::int64_t n : {16, 32, 64}) {
    const auto r = collective(h800, CollectiveOp::all_to_all, n, dispatch);
    const double rdma = dispatch * static_cast<double>(n - 8) / static_cast<double>(n) / r.time;
    EXPECT_GT(rdma, 43e9);
    EXPECT_LT(rdma, 58e9);
  }
}

}  // namespace
}  // namespace lightsim::fabric
