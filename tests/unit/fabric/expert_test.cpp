// DeepEP dispatch/combine model (expert.h) and the measured-collectives reference
// (measured.h).
#include <gtest/gtest.h>

#include <cmath>

#include "lightsim/fabric/expert.h"
#include "lightsim/fabric/measured.h"
#include "shipped_configs.h"

namespace lightsim::fabric {
namespace {

Topology h800() {
  return build_topology(load_fabric("hgx_h800", testing::shipped_configs()));
}

ExpertExchange exchange(ExpertMode mode, std::int64_t ep, double tokens) {
  ExpertExchange x;
  x.mode = mode;
  x.ranks = ep;
  x.tokens = tokens;
  x.experts_per_token = 8;
  x.token_bytes = 7168;
  return x;
}

TEST(Expert, NormalModeCountsOneCopyPerDistinctRank) {
  const Topology t = h800();
  const auto r = expert_exchange(t, exchange(ExpertMode::normal, 8, 4096));
  ASSERT_TRUE(r.feasible) << r.reason;
  // 8 experts over 8 ranks hit 8 (1 - (7/8)^8) = 5.25 distinct ranks, 7/8 of them others.
  const double ranks = 8 * (1 - std::pow(7.0 / 8, 8));
  EXPECT_NEAR(r.scale_up_bytes, 4096 * ranks * 7 / 8 * 7168, 1e-6 * r.scale_up_bytes);
  EXPECT_EQ(r.scale_out_bytes, 0.0);
  EXPECT_EQ(r.bounding_tier, 0);
}

TEST(Expert, NodeLimitedRoutingCapsTheRemoteNodes) {
  const Topology t = h800();
  ExpertExchange x = exchange(ExpertMode::normal, 128, 4096);
  const auto free = expert_exchange(t, x);
  x.max_nodes = 4;
  const auto limited = expert_exchange(t, x);
  ASSERT_TRUE(free.feasible && limited.feasible);
  // 16 nodes: unlimited, 8 experts reach 16 (1 - (15/16)^8) = 6.0 nodes; limited, 4 (1 -
  // (3/4)^8) = 3.6; 15/16 of them remote.
  EXPECT_NEAR(limited.scale_out_bytes, 4096 * 4 * (1 - std::pow(0.75, 8)) * 15 / 16 * 7168,
              1e-6 * limited.scale_out_bytes);
  EXPECT_LT(limited.time, free.time);
}

TEST(Expert, LowLatencyTimeGrowsWithEpSize) {
  const Topology t = h800();
  double previous = 0;
  for (std::int64_t ep : {8, 16, 32, 64, 128, 256}) {
    const auto r = expert_exchange(t, exchange(ExpertMode::low_latency, ep, 128));
    ASSERT_TRUE(r.feasible) << r.reason;
    EXPECT_GT(r.time, previous) << ep;
    EXPECT_GT(r.time, t.expert_low_latency_overhead);
    previous = r.time;
  }
  // Past one node the remote share (ep - 8) / ep goes over RDMA.
  const auto r = expert_exchange(t, exchange(ExpertMode::low_latency, 32, 128));
  EXPECT_NEAR(r.scale_out_bytes, 128 * 8 * 7168 * 24.0 / 32, 1e-6 * r.scale_out_bytes);
}

TEST(Expert, BadInputIsInfeasibleWithReason) {
  const Topology t = h800();
  EXPECT_FALSE(expert_exchange(t, exchange(ExpertMode::normal, 1, 10)).feasible);
  const auto big = expert_exchange(t, exchange(ExpertMode::normal, 4096, 10));
  EXPECT_FALSE(big.feasible);
  EXPECT_NE(big.reason.find("holds at most 2048"), std::string::npos) << big.reason;
}

TEST(Measured, ShippedFileLoadsAndEveryRowIsModelled) {
  const auto o = testing::shipped_configs();
  const auto ref = config::load_spec<CollectiveMeasurementReference>(
      config::find_named("collectives_measured", "references", o, "reference"), o);
  EXPECT_GE(ref.measurements.size(), 10u);
  for (const auto& m : ref.measurements) {
    const auto r = model_measurement(build_topology(load_fabric(m.fabric, o)), m);
    EXPECT_TRUE(r.feasible) << m.id << ": " << r.reason;
    EXPECT_GT(r.value, 0) << m.id;
  }
}

TEST(Measured, BadRowsAreConfigErrorsNamingTheKey) {
  const auto o = testing::shipped_configs();
  const auto load = [&](const std::string& row) {
    const std::string yaml =
        "schema_version: 1\nkind: collective_measurements\n"
        "measurements:\n  - " +
        row + "\n";
    return config::read_spec<CollectiveMeasurementReference>(
        config::parse_document(yaml, "bad.yaml"), o);
  };
  const std::string base =
      "{id: a, fabric: dgx_h100, op: all_reduce, gpus: 8, source: s, fitted: false, ";
  EXPECT_NO_THROW((void)load(base + "bytes: 1 GiB, busbw: 400 GB/s}"));
  // A bandwidth without its unit, a negative one, two figures, no size, a bad op.
  for (const char* bad : {"bytes: 1 GiB, busbw: 400}", "bytes: 1 GiB, busbw: -4 GB/s}",
                          "bytes: 1 GiB, busbw: 4 GB/s, latency: 3 us}", "busbw: 4 GB/s}"}) {
    try {
      (void)load(base + bad);
      ADD_FAILURE() << bad;
    } catch (const InputError& e) {  // ConfigError or UnitError
      EXPECT_NE(std::string(e.what()).find("bad.yaml"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW((void)load("{id: b, fabric: x, op: allreduce2, gpus: 8, source: s, "
                          "fitted: false, bytes: 1 GiB, busbw: 4 GB/s}"),
               ConfigError);
}

}  // namespace
}  // namespace lightsim::fabric
