// NCCL's protocol model across nodes (nccl.h, docs/fabric.md "NCCL's protocols and channels"):
// the channel search, the large-size limit of a ring, the protocol switch points NCCL's
// constants imply, and forced protocols.
#include <gtest/gtest.h>

#include <cmath>

#include "lightsim/fabric/collective.h"
#include "shipped_configs.h"

namespace lightsim::fabric {
namespace {

Topology nccl_shipped(const char* name) {
  return build_topology(load_fabric(name, testing::shipped_configs()));
}

TEST(Nccl, ChannelSearchFollowsSearchCc) {
  // H100: 450 GB/s / 25 GB/s per NVLink4 link x 20.6 (SM90_NVLINK_BW) = 370.8 GB/s of NVLink,
  // channels at 48 GB/s (the PCIe Gen5 x16 path caps the 50 GB/s NIC): ceil(7.7) = 8, one per
  // NIC; more than 4 channels below 50 GB/s are not duplicated.
  const Topology h100 = nccl_shipped("dgx_h100");
  ASSERT_TRUE(h100.nccl.has_value());
  EXPECT_EQ(h100.nccl->channels, 8);
  EXPECT_DOUBLE_EQ(h100.nccl->channel_speed, 48e9);
  // GB200 NVL72: 18 links x 40.1 = 721.8 GB/s -> 16 channels of 48 GB/s.
  const Topology nvl72 = nccl_shipped("gb200_nvl72_x20");
  EXPECT_EQ(nvl72.nccl->channels, 16);
  // NVL4 (NCCL 2.27.3): 4 NICs hold 4 channels of 47.9 GB/s, duplicated to 8 at half the
  // speed (4 is not more than 4).
  const Topology nvl4 = nccl_shipped("gb200_nvl4_ib");
  EXPECT_EQ(nvl4.nccl->channels, 8);
  EXPECT_DOUBLE_EQ(nvl4.nccl->channel_speed, 47.9e9 / 2);
  // Fabrics without `nccl` (the seed's) keep the one-protocol model.
  EXPECT_FALSE(nccl_shipped("seed_copper_1152").nccl.has_value());
}

TEST(Nccl, RingAllReduceApproachesTwoNMinusOneOverNSOverBusBandwidth) {
  // 2 nodes of 8: the bus bound is the node's 8 NICs (8 channels, one each) at 400 Gb/s x 0.92;
  // at large S the ring's busbw = 2(n-1)/n S / T tends to it (latency is O(100 us)).
  const Topology t = nccl_shipped("dgx_h100");
  const double bus = 8 * 50e9 * 0.92;
  const auto r = collective(t, CollectiveOp::all_reduce, 16, std::pow(2.0, 40), Algorithm::ring);
  ASSERT_TRUE(r.feasible) << r.reason;
  EXPECT_EQ(r.protocol, Protocol::simple);
  EXPECT_NEAR(r.busbw / bus, 1.0, 1e-3);
  EXPECT_LE(r.busbw, bus);
  // 20 NVL72 racks: a ring crosses each rack boundary once per channel, so 16 of the rack's
  // 72 NICs carry it: bus bound 16 x 46 GB/s, below NVLink's.
  const Topology x20 = nccl_shipped("gb200_nvl72_x20");
  const auto w =
      collective(x20, CollectiveOp::all_reduce, 1440, std::pow(2.0, 42), Algorithm::ring);
  ASSERT_TRUE(w.feasible) << w.reason;
  EXPECT_EQ(w.bounding_tier, 1);
  EXPECT_NEAR(w.busbw / (16 * 50e9 * 0.92), 1.0, 0.01);
  EXPECT_LE(w.busbw, 16 * 50e9 * 0.92);
}

// The ring's time per protocol from NCCL's constants alone (tuning.cc), 16 H100 in 2 nodes:
// latency base + (nsteps - nInterSteps) max(hwLat NVLink, net overhead) + nInterSteps hwLat NET
// (Simple x 1.4 plateau); algbw LL = min(llMaxBw, busBw/2) n/nsteps, LL128 = min(0.92 busBw,
// nCh x 36.7 GB/s) n/nsteps, Simple = busBw n/nsteps, busBw = 8 NICs x 46 GB/s.
struct Line {
  double latency, algbw;
};
Line ring_line(Protocol p) {
  const double n = 16, steps = 30, inter = 2, busbw = 8 * 46e9, to_alg = n / steps;
  switch (p) {
    case Protocol::ll:
      return {6.6e-6 + (steps - inter) * 1e-6 + inter * 2.7e-6,
              std::min(39e9, 0.5 * busbw) * to_alg};
    case Protocol::ll128:
      return {14e-6 + (steps - inter) * 1.9e-6 + inter * 4e-6,
              std::min(0.92 * busbw, 8 * 36.7e9) * to_alg};
    case Protocol::simple:
      return {1.4 * (8.4e-6 + (steps - inter) * 3.4e-6 + inter * 14e-6), busbw * to_alg};
  }
  return {};
}

TEST(Nccl, ForcedProtocolTimesAreNcclsLines) {
  const Topology t = nccl_shipped("dgx_h100");
  for (Protocol p : {Protocol::ll, Protocol::ll128, Protocol::simple})
    for (double s : {1e6, 1e8, 1e10}) {
      const auto r = collective(t, CollectiveOp::all_reduce, 16, s, Algorithm::ring, p);
      ASSERT_TRUE(r.feasible) << r.reason;
      const Line l = ring_line(p);
      EXPECT_NEAR(r.time / (l.latency + s / l.algbw), 1.0, 1e-9) << protocol_name(p) << " " << s;
    }
}

TEST(Nccl, ProtocolSwitchPointsAreWhereNcclsModelPutsThem) {
  const Topology t = nccl_shipped("dgx_h100");
  auto cross = [](Line a, Line b) { return (b.latency - a.latency) / (1 / a.algbw - 1 / b.algbw); };
  const double ll_to_ll128 = cross(ring_line(Protocol::ll), ring_line(Protocol::ll128));
  const double ll128_to_simple = cross(ring_line(Protocol::ll128), ring_line(Protocol::simple));
  ASSERT_LT(ll_to_ll128, ll128_to_simple);
  auto chosen = [&](double s) {
    return collective(t, CollectiveOp::all_reduce, 16, s, Algorithm::ring).protocol;
  };
  EXPECT_EQ(chosen(0.98 * ll_to_ll128), Protocol::ll);
  EXPECT_EQ(chosen(1.02 * ll_to_ll128), Protocol::ll128);
  EXPECT_EQ(chosen(0.98 * ll128_to_simple), Protocol::ll128);
  EXPECT_EQ(chosen(1.02 * ll128_to_simple), Protocol::simple);
}

TEST(Nccl, TreeAcrossManyNodesIsCappedPerChannel) {
  // Blackwell, > 2 nodes, NCCL 2.30: tree Simple reaches at most nChannels x 24 GB/s of NCCL's
  // tree busBw (= 2 algbw; perChMaxTreeBws), below the 1.5 S over 16 NICs the tree needs.
  const Topology t = nccl_shipped("gb200_nvl72");
  const double s = std::pow(2.0, 40);
  const auto r = collective(t, CollectiveOp::all_reduce, 216, s, Algorithm::tree, Protocol::simple);
  ASSERT_TRUE(r.feasible) << r.reason;
  const double lat = 8.4e-6 + 2 * (71 * 4e-6 + 1 * 14e-6);  // floor(log2 3) = 1
  EXPECT_NEAR(r.time / (lat + s / (16 * 24e9 / 2)), 1.0, 1e-9);
}

// 20 NVL72 racks (coreweave/nccl-tests PR 48: NCCL 2.26.2, NVLS and CollNet off; the fabric
// takes nccl_2_27, the same constants). NCCL 2.26.2's tuner (src/graph/tuning.cc at tag
// v2.26.2-1, ncclTopoTuneModel lines 250-261 and 290-340, ncclTopoGetAlgoTime 530-547) gives
// both algorithms the same graph bandwidth beyond two nodes, busBw = nChannels x bwInter =
// 16 x 48 GB/s (the tree graph takes the ring's channel count, init.cc 848-849; Blackwell's
// speed array tops at 48, so search.cc's pass 2 cannot raise bwIntra), and the ring pays
// 2878 steps of latency where the tree pays 2 (71 NVLink + 4 network) hops. So by NCCL's own
// lines the tree wins at every measured size, even with the 0.85 of a TREE-pattern tree
// (tuning.cc 261); auto follows it. The measured curve (intercept 4.58 ms) is a ring's: the
// model's miss on these rows is not the tuner's choice as the source states it.
TEST(Nccl, TwentyRackAllReduceFollowsNcclTunerChoiceOfTree) {
  const Topology t = nccl_shipped("gb200_nvl72_x20");
  const double bus = 16 * 48.0;                                             // GB/s, NCCL's units
  const double ring_ll128_lat = 14.0 + (2878 - 38) * 1.9 + 38 * 4.0;        // us
  const double ring_ll128_algbw = 0.92 * bus * 1440.0 / 2878.0;             // GB/s
  const double tree_ll128_lat = 14.0 + 2 * (71 * 1.25 + 4 * 8.5);           // us
  const double tree_ll128_algbw = 0.85 * (120.0 / 128.0) * 0.92 * bus / 2;  // TREE pattern
  for (double gib : {0.5, 1.0, 2.0, 4.0}) {
    const double s = gib * std::pow(2.0, 30);
    const double ring_us = ring_ll128_lat + s / (ring_ll128_algbw * 1e3);
    const double tree_us = tree_ll128_lat + s / (tree_ll128_algbw * 1e3);
    EXPECT_LT(tree_us, ring_us) << gib << " GiB";
    const auto r = collective(t, CollectiveOp::all_reduce, 1440, s);
    ASSERT_TRUE(r.feasible) << r.reason;
    EXPECT_EQ(r.algorithm, Algorithm::tree) << gib << " GiB";
    const auto ring = collective(t, CollectiveOp::all_reduce, 1440, s, Algorithm::ring);
    ASSERT_TRUE(ring.feasible) << ring.reason;
    EXPECT_GT(ring.time, r.time) << gib << " GiB";
  }
}

TEST(Nccl, LowLatencyProtocolsExistOnlyAcrossNodes) {
  const Topology t = nccl_shipped("dgx_h100");
  const auto inside =
      collective(t, CollectiveOp::all_reduce, 8, 1e6, Algorithm::ring, Protocol::ll);
  EXPECT_FALSE(inside.feasible);
  EXPECT_NE(inside.reason.find("protocol 'LL'"), std::string::npos) << inside.reason;
  const auto simple =
      collective(t, CollectiveOp::all_reduce, 8, 1e6, Algorithm::ring, Protocol::simple);
  EXPECT_TRUE(simple.feasible);
  EXPECT_FALSE(simple.protocol.has_value());
  const auto nvls_tree =
      collective(t, CollectiveOp::all_reduce, 16, 1e6, Algorithm::in_switch_tree, Protocol::ll128);
  EXPECT_FALSE(nvls_tree.feasible);
  EXPECT_EQ(parse_protocol("ll128"), Protocol::ll128);
  EXPECT_EQ(parse_protocol("Simple"), Protocol::simple);
  EXPECT_FALSE(parse_protocol("auto").has_value());
  EXPECT_THROW((void)parse_protocol("ll64"), UsageError);
}

}  // namespace
}  // namespace lightsim::fabric
