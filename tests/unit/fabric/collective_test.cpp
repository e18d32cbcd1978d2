// Collective cost models: closed forms, nccl-tests conventions, tier bounds.
#include <gtest/gtest.h>

#include "lightsim/fabric/collective.h"
#include "shipped_configs.h"

namespace lightsim::fabric {
namespace {

Topology shipped(const char* name) {
  return build_topology(load_fabric(name, testing::shipped_configs()));
}

// One tier of n GPUs, B bytes/s per direction, alpha per step, no protocol loss.
Topology flat(std::int64_t n, double bandwidth, double alpha) {
  Topology t;
  t.name = "flat";
  Tier tier;
  tier.name = "t0";
  tier.domain_size = n;
  tier.bandwidth = tier.line_bandwidth = bandwidth;
  tier.alpha = alpha;
  t.tiers.push_back(tier);
  return t;
}

TEST(Collective, FlatRingReducesToClosedForms) {
  const double B = 100e9, a = 2e-6, S = 1 << 28;
  const Topology t = flat(8, B, a);
  const auto ar = collective(t, CollectiveOp::all_reduce, 8, S, Algorithm::ring);
  ASSERT_TRUE(ar.feasible) << ar.reason;
  EXPECT_DOUBLE_EQ(ar.time, 2.0 * 7 * (a + S / 8 / B));
  const auto rs = collective(t, CollectiveOp::reduce_scatter, 8, S, Algorithm::ring);
  EXPECT_DOUBLE_EQ(rs.time, 7 * (a + S / 8 / B));
  const auto ag = collective(t, CollectiveOp::all_gather, 8, S, Algorithm::ring);
  EXPECT_DOUBLE_EQ(ag.time, rs.time);
  // Without latency the ring all-reduce busbw is exactly the link bandwidth.
  const auto ideal = collective(flat(8, B, 0.0), CollectiveOp::all_reduce, 8, S, Algorithm::ring);
  EXPECT_DOUBLE_EQ(ideal.busbw, B);
}

TEST(Collective, BusBandwidthFollowsNcclTests) {
  EXPECT_DOUBLE_EQ(bus_factor(CollectiveOp::all_reduce, 8), 2.0 * 7 / 8);
  EXPECT_DOUBLE_EQ(bus_factor(CollectiveOp::all_gather, 8), 7.0 / 8);
  EXPECT_DOUBLE_EQ(bus_factor(CollectiveOp::reduce_scatter, 8), 7.0 / 8);
  EXPECT_DOUBLE_EQ(bus_factor(CollectiveOp::all_to_all, 8), 7.0 / 8);
  EXPECT_DOUBLE_EQ(bus_factor(CollectiveOp::send_recv, 2), 1.0);
  const auto r = collective(flat(8, 1e11, 1e-6), CollectiveOp::all_gather, 8, 1e9);
  EXPECT_DOUBLE_EQ(r.algbw, 1e9 / r.time);
  EXPECT_DOUBLE_EQ(r.busbw, r.algbw * 7 / 8);
}

TEST(Collective, AllToAllAcrossRacksIsBoundByScaleOutButNotInsideAPhotonicPod) {
  const Topology copper = shipped("seed_copper_1152");
  const Topology photonic = shipped("photonic_4x_1152");
  const auto c = collective(copper, CollectiveOp::all_to_all, 144, 256.0 * (1 << 20));
  const auto p = collective(photonic, CollectiveOp::all_to_all, 144, 256.0 * (1 << 20));
  ASSERT_TRUE(c.feasible && p.feasible);
  EXPECT_EQ(copper.tiers[static_cast<std::size_t>(c.bounding_tier)].name, "scale_out");
  EXPECT_EQ(photonic.tiers[static_cast<std::size_t>(p.bounding_tier)].name, "photonic");
  EXPECT_EQ(p.outer_tier, 0);
  // Copper: half of each GPU's data leaves the rack through its NIC.
  const Tier& nic = copper.tiers[1];
  EXPECT_NEAR(c.time,
              copper.tiers[1].alpha + 0.5 * 256.0 * (1 << 20) / (nic.bandwidth * nic.efficiency),
              1e-12);
  EXPECT_GT(c.time / p.time, 10.0);
  // Inside one copper rack the scale-up tier bounds it.
  const auto rack = collective(copper, CollectiveOp::all_to_all, 72, 256.0 * (1 << 20));
  EXPECT_EQ(rack.bounding_tier, 0);
}

TEST(Collective, GroupLargerThanTheMachineIsInfeasibleWithReason) {
  const auto r = collective(shipped("seed_copper_1152"), CollectiveOp::all_reduce, 1153, 1e6);
  EXPECT_FALSE(r.feasible);
  EXPECT_NE(r.reason.find("holds at most 1152 GPUs; a group of 1153 does not fit"),
            std::string::npos)
      << r.reason;
}

TEST(Collective, AlgorithmAvailability) {
  const Topology nvl = shipped("gb200_nvl72");
  const auto forced = collective(nvl, CollectiveOp::all_reduce, 72, 1e9, Algorithm::in_switch);
  EXPECT_FALSE(forced.feasible);
  EXPECT_NE(forced.reason.find("in-switch"), std::string::npos);
  EXPECT_FALSE(collective(nvl, CollectiveOp::all_reduce, 72, 1e9, Algorithm::tree).feasible);
  EXPECT_FALSE(
      collective(nvl, CollectiveOp::all_reduce, 72, 1e9, Algorithm::hierarchical).feasible);
  EXPECT_FALSE(collective(nvl, CollectiveOp::all_to_all, 72, 1e9, Algorithm::ring).feasible);
  // Across two racks a hierarchical all-reduce beats a flat ring bounded by the NIC.
  const auto ring = collective(nvl, CollectiveOp::all_reduce, 144, 1e9, Algorithm::ring);
  const auto hier = collective(nvl, CollectiveOp::all_reduce, 144, 1e9, Algorithm::hierarchical);
  ASSERT_TRUE(ring.feasible && hier.feasible);
  EXPECT_LT(hier.time, ring.time);
  EXPECT_EQ(ring.bounding_tier, 1);
  // Small messages across racks: the tree's log2(n) latency wins.
  const auto small = collective(nvl, CollectiveOp::all_reduce, 144, 1024);
  EXPECT_EQ(small.algorithm, Algorithm::tree);
}

TEST(Collective, InSwitchBeatsTheRingBoundForAllReduce) {
  const double B = 100e9, S = 1e9;
  Topology t = flat(8, B, 0.0);
  t.tiers[0].in_switch = true;
  const auto r = collective(t, CollectiveOp::all_reduce, 8, S);
  EXPECT_EQ(r.algorithm, Algorithm::in_switch);
  EXPECT_DOUBLE_EQ(r.time, S / B);
  EXPECT_DOUBLE_EQ(r.busbw, 2.0 * 7 / 8 * B);  // above the ring bound B
}

TEST(Collective, SendRecvUsesTheTierJoiningThePair) {
  const Topology t = shipped("gb200_nvl72");
  const auto in_rack = collective(t, CollectiveOp::send_recv, 2, 1e8);
  const auto cross = collective(t, CollectiveOp::send_recv, 73, 1e8);
  EXPECT_EQ(in_rack.bounding_tier, 0);
  EXPECT_EQ(cross.bounding_tier, 1);
  EXPECT_DOUBLE_EQ(in_rack.busbw, in_rack.algbw);
}

TEST(Collective, ParsesNames) {
  EXPECT_EQ(parse_op("all-to-all"), CollectiveOp::all_to_all);
  EXPECT_EQ(parse_op("reduce_scatter"), CollectiveOp::reduce_scatter);
  EXPECT_EQ(parse_algorithm("nvls"), Algorithm::in_switch);
  EXPECT_THROW((void)parse_op("allreduce2"), UsageError);
  EXPECT_THROW((void)parse_algorithm("bruck"), UsageError);
}

}  // namespace
}  // namespace lightsim::fabric

namespace lightsim::fabric {
namespace {

TEST(Collective, FabricConfigCanForceAnAlgorithm) {
  const config::LoadOptions o = testing::shipped_configs();
  const std::string yaml = R"(schema_version: 1
kind: fabric
name: forced
gpu: {preset: h100}
tiers:
  - {name: nvlink, domain_size: 8, bandwidth: 450 GB/s, in_switch_reduction: true}
collective_algorithms: {all_reduce: ring}
)";
  const Topology t =
      build_topology(config::read_spec<FabricSpec>(config::parse_document(yaml, "f.yaml"), o));
  EXPECT_EQ(collective(t, CollectiveOp::all_reduce, 8, 1e9).algorithm, Algorithm::ring);
  EXPECT_EQ(collective(t, CollectiveOp::all_reduce, 8, 1e9, Algorithm::in_switch).algorithm,
            Algorithm::in_switch);
  std::string bad = yaml;
  bad.replace(bad.find("ring}"), 4, "bruck");
  EXPECT_THROW((void)config::read_spec<FabricSpec>(config::parse_document(bad, "f.yaml"), o),
               ConfigError);
}

}  // namespace
}  // namespace lightsim::fabric
