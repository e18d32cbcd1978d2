// Collective cost models: closed forms, nccl-tests conventions, tier bounds.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

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
  // Across two racks the ring crosses racks on 2 of its 144 hops, once per channel: NCCL's
  // search finds 16 channels (nccl.h), so 16 of a rack's 72 NICs carry them and the scale-out
  // tier bounds it at 16 x 46 GB/s (below NVLink's 885), not one NIC's 46.
  const auto ring = collective(nvl, CollectiveOp::all_reduce, 144, 1e9, Algorithm::ring);
  const auto hier = collective(nvl, CollectiveOp::all_reduce, 144, 1e9, Algorithm::hierarchical);
  ASSERT_TRUE(ring.feasible && hier.feasible);
  EXPECT_EQ(ring.bounding_tier, 1);
  EXPECT_GT(ring.busbw, 46e9);
  // Small messages across racks: the tree's log2(n) latency wins; hierarchical is not one of
  // NCCL's algorithms and runs only when forced.
  const auto small = collective(nvl, CollectiveOp::all_reduce, 144, 1024);
  EXPECT_EQ(small.algorithm, Algorithm::tree);
  for (double S : {1e3, 1e6, 1e9, 1e11})
    EXPECT_NE(collective(nvl, CollectiveOp::all_reduce, 144, S).algorithm, Algorithm::hierarchical);
  EXPECT_FALSE(
      collective(nvl, CollectiveOp::all_reduce, 144, 1e9, Algorithm::in_switch_tree).feasible);
}

// Two tiers: nodes of `g` GPUs at B0, scale-out at B1 per GPU; alphas a0, a1.
Topology two_tier(std::int64_t g, std::int64_t n, double b0, double b1, double a0, double a1) {
  Topology t = flat(g, b0, a0);
  Tier out;
  out.name = "t1";
  out.domain_size = n;
  out.bandwidth = out.line_bandwidth = b1;
  out.alpha = a1;
  t.tiers.push_back(out);
  return t;
}

TEST(Collective, RingAcrossNodesSpreadsOverEveryNic) {
  // 4 nodes of 8: 28 hops on NVLink, 4 across nodes; each GPU carries 4/32 of the inter-node
  // hops on its own NIC, so busbw = 8 x the NIC (NCCL's rail-optimized rings), not 1 x.
  const double b0 = 400e9, b1 = 25e9, S = 1e12;
  const Topology t = two_tier(8, 64, b0, b1, 0.0, 0.0);
  const auto r = collective(t, CollectiveOp::all_reduce, 32, S, Algorithm::ring);
  ASSERT_TRUE(r.feasible);
  EXPECT_EQ(r.bounding_tier, 1);
  EXPECT_NEAR(r.busbw, 8 * b1, 1e-6 * b1);
  // Latency: NCCL's 2(nNodes - 1) inter-node steps and the rest on NVLink (tuning.cc).
  const Topology lat = two_tier(8, 64, b0, b1, 1e-6, 5e-6);
  const auto tiny = collective(lat, CollectiveOp::all_reduce, 32, 1e-3, Algorithm::ring);
  EXPECT_NEAR(tiny.time, 2 * 3 * 5e-6 + (2 * 31 - 2 * 3) * 1e-6, 1e-12);
}

TEST(Collective, TreeLatencyGrowsWithLog2OfTheNodes) {
  const Topology t = two_tier(8, 1024, 400e9, 50e9, 1e-6, 5e-6);
  // 2 ((ppn - 1) alpha_0 + ceil(log2 nodes) alpha_1) (NCCL tuning.cc).
  for (std::int64_t nodes : {2, 4, 16, 128}) {
    const auto r = collective(t, CollectiveOp::all_reduce, 8 * nodes, 1e-3, Algorithm::tree);
    ASSERT_TRUE(r.feasible) << r.reason;
    EXPECT_NEAR(r.time, 2 * (7 * 1e-6 + std::log2(static_cast<double>(nodes)) * 5e-6), 1e-12)
        << nodes;
  }
  // Large sizes: the NVLink chain (2S / B0) or the busiest node's NICs, over 0.9.
  const double S = 1e12;
  const Topology bw = two_tier(8, 1024, 400e9, 50e9, 0.0, 0.0);
  const auto two = collective(bw, CollectiveOp::all_reduce, 16, S, Algorithm::tree);
  EXPECT_NEAR(two.time, std::max(2 * S / 400e9, S / (8 * 50e9)) / 0.9, 1e-6 * two.time);
}

TEST(Collective, NvlsTreeNeedsInSwitchNodesAndSeveralOfThem) {
  Topology t = two_tier(8, 1024, 400e9, 50e9, 0.0, 0.0);
  EXPECT_FALSE(
      collective(t, CollectiveOp::all_reduce, 16, 1e9, Algorithm::in_switch_tree).feasible);
  t.tiers[0].in_switch = true;
  t.tiers[0].in_switch_efficiency = 0.5;
  EXPECT_FALSE(collective(t, CollectiveOp::all_reduce, 8, 1e9, Algorithm::in_switch_tree).feasible);
  const double S = 1e12;
  const auto r = collective(t, CollectiveOp::all_reduce, 16, S, Algorithm::in_switch_tree);
  ASSERT_TRUE(r.feasible);
  EXPECT_NEAR(r.time, std::max(S / 200e9, S / (8 * 50e9) / 0.9), 1e-6 * r.time);
  EXPECT_EQ(parse_algorithm("nvls-tree"), Algorithm::in_switch_tree);
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
