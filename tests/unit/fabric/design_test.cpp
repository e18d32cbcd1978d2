// The scale-up domain from physical inputs (design.h): analytic limits and the presets.
#include <gtest/gtest.h>

#include <limits>

#include "lightsim/core/config_files.h"
#include "lightsim/fabric/design.h"
#include "shipped_configs.h"

namespace lightsim::fabric {
namespace {

FabricDesignSpec preset(const char* name) {
  const auto& options = testing::shipped_configs();
  return config::load_spec<FabricDesignSpec>(
      config::find_named(name, "fabric_designs", options, "fabric design"), options);
}

FabricDesignSpec parse(const std::string& yaml) {
  return config::read_spec<FabricDesignSpec>(config::parse_document(yaml, "d.yaml"),
                                             testing::shipped_configs());
}

// NVIDIA's published GB200 NVL72 figures (https://www.nvidia.com/en-us/data-center/gb200-nvl72/,
// .../nvlink/): 72 GPUs, 1.8 TB/s NVLink per GPU both ways, 130 TB/s in total.
TEST(FabricDesign, CopperNvl72PresetGivesNvidiasPublishedFigures) {
  const FabricDesign d = derive_design(preset("copper_nvl72"));
  EXPECT_EQ(d.domain, 72);
  EXPECT_DOUBLE_EQ(d.bandwidth_bidirectional, 1.8e12);
  EXPECT_NEAR(d.aggregate_bandwidth, 130e12, 0.01 * 130e12);
  EXPECT_EQ(d.racks_within_reach, 1);  // copper reach holds one rack
  ASSERT_FALSE(d.binding.empty());
  EXPECT_EQ(d.binding.front(), "reach");
  EXPECT_EQ(d.switches, 18);
}

TEST(FabricDesign, SeedPhotonicPodIsBoundByItsStatedRacksNotByOptics) {
  const FabricDesign d = derive_design(preset("photonic_pod_1152"));
  EXPECT_EQ(d.domain, 1152);
  EXPECT_EQ(d.binding, std::vector<std::string>{"racks"});
  EXPECT_GT(d.domain_by_reach, 100000);  // 1 km of fiber reaches far more racks
  EXPECT_EQ(d.domain_by_radix, 2048);    // 2 (64/2)^2
  // 2 tiles x 64 fibers x 16 x 100 Gb/s x 0.5 = 12.8 TB/s per direction: 14.2x, not 4x.
  EXPECT_DOUBLE_EQ(d.bandwidth, 12.8e12);
  EXPECT_NEAR(d.bandwidth / 900e9, 14.22, 0.01);
  EXPECT_EQ(d.switch_levels_used, 2);
}

TEST(FabricDesign, BandwidthIsLanesTimesRateExactly) {
  FabricDesignSpec s;
  s.lanes_per_gpu = 13;
  s.lane_rate = Bandwidth::si(212.5e9 / 8);
  s.links_per_gpu = 1;
  s.switch_planes = 1;
  s.port_rate = Bandwidth::si(1e15);
  const FabricDesign d = derive_design(s);
  EXPECT_EQ(d.bandwidth, 13 * (212.5e9 / 8));
  EXPECT_EQ(d.bandwidth_bound, "endpoint I/O");
  s.port_rate = Bandwidth::si(1e9);  // the switch ports now bind
  EXPECT_EQ(derive_design(s).bandwidth, 1e9);
  EXPECT_EQ(derive_design(s).bandwidth_bound, "switch ports");
}

TEST(FabricDesign, FibersTimesWavelengthsTimesRate) {
  FabricDesignSpec s = preset("photonic_pod_1152");
  s.fibers_per_tile = 18;  // the seed study's 4x: 18 of 64 fibers per tile carry scale-up
  EXPECT_NEAR(derive_design(s).bandwidth / 900e9, 4.0, 1e-12);
  s.fibers_per_tile = 64;
  s.tile_shoreline = Length::si(18 * 127e-6 + 1e-7);  // shoreline admits 18 fibers
  const FabricDesign d = derive_design(s);
  EXPECT_EQ(d.fibers_used, 18);
  EXPECT_EQ(d.bandwidth_bound, "endpoint shoreline");
}

TEST(FabricDesign, MoreReachDoesNotChangeARadixBoundDomain) {
  FabricDesignSpec s = preset("photonic_pod_1152");
  s.max_racks = 0;
  const FabricDesign base = derive_design(s);
  ASSERT_EQ(base.binding, std::vector<std::string>{"radix"});
  s.reach = Length::si(2 * s.reach.si());
  const FabricDesign longer = derive_design(s);
  EXPECT_EQ(longer.domain, base.domain);
  EXPECT_GT(longer.domain_by_reach, base.domain_by_reach);
}

TEST(FabricDesign, UnboundedRadixMakesReachBind) {
  FabricDesignSpec s = preset("copper_nvl72");
  s.switch_radix = std::int64_t{1} << 30;
  s.switch_levels = 3;
  const FabricDesign d = derive_design(s);
  EXPECT_EQ(d.binding, std::vector<std::string>{"reach"});
  EXPECT_EQ(d.domain, 72);
  // Copper long enough to leave the rack: neighbours in the row come within reach.
  s.reach = Length::si(2 + 0.6 + 1e-9);  // routing overhead + one rack pitch
  EXPECT_EQ(racks_within_reach(s), 3);
  EXPECT_EQ(derive_design(s).domain, 3 * 72);
}

TEST(FabricDesign, ClosEndpointsAndSaturation) {
  EXPECT_EQ(clos_endpoints(72, 1), 72);
  EXPECT_EQ(clos_endpoints(72, 2), 2592);
  EXPECT_EQ(clos_endpoints(64, 3), 65536);
  EXPECT_EQ(clos_endpoints(std::int64_t{1} << 30, 3), std::int64_t{1} << 62);
}

TEST(FabricDesign, PowerIsBandwidthTimesPathEnergy) {
  const FabricDesignSpec s = preset("copper_nvl72");
  const FabricDesign d = derive_design(s);
  // One level: two GPU SerDes ends and one switch traversal.
  const double e = (2 * s.serdes_energy.si() + s.switch_energy.si()) / 8;
  EXPECT_DOUBLE_EQ(d.energy_per_bit, e);
  EXPECT_DOUBLE_EQ(d.power_per_gpu, 8 * 900e9 * e);
  EXPECT_DOUBLE_EQ(d.power_per_domain, 72 * d.power_per_gpu);
}

TEST(FabricDesign, BadInputNamesTheKey) {
  const std::string head = "schema_version: 1\nkind: fabric_design\n";
  try {
    (void)parse(head + "lanes_per_gpu: 0\n");
    FAIL() << "zero lanes accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("lanes_per_gpu"), std::string::npos) << e.what();
  }
  try {
    (void)parse(head + "reach: -1 m\n");
    FAIL() << "negative reach accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("reach"), std::string::npos) << e.what();
  }
  FabricDesignSpec s;
  s.reach = Length::si(0.5);  // shorter than the in-rack cable
  EXPECT_THROW((void)derive_design(s), InputError);
}

TEST(FabricDesign, TheLargestFloorIsCountedWithoutOverflow) {
  FabricDesignSpec s = parse(
      "schema_version: 1\nkind: fabric_design\nreach: 100 km\nrack_pitch: 0.1 m\n"
      "row_pitch: 0.1 m\nrouting_overhead: 0 m\ngpus_per_rack: 1048576\n"
      "switch_radix: 1073741824\nswitch_levels: 3\n");
  const FabricDesign d = derive_design(s);  // ~2e12 racks in ~2e6 rows
  EXPECT_GT(d.racks_within_reach, std::int64_t{1} << 40);
  EXPECT_EQ(d.domain, d.domain_by_reach);
  EXPECT_GT(d.domain, 0);
  EXPECT_GT(d.switches, 0);
}

}  // namespace
}  // namespace lightsim::fabric
