// The energy study's models: its FAISS spec mapped to kv's bytes-touched model (tested in
// tests/unit/kv/ivfpq_test.cpp; the memory reads in tests/unit/fabric/memory_test.cpp), and
// Prism beyond the largest accelerator reported as infeasible.
#include "lightsim/studies/energy.h"

#include <cmath>
#include <filesystem>

#include <gtest/gtest.h>

#include "lightsim/core/context.h"
#include "lightsim/kv/blocks.h"
#include "shipped_configs.h"

namespace lightsim::studies {
namespace {

// The FAISS baseline's spec reaches kv's bytes-touched model unchanged.
TEST(EnergyFaiss, SpecMapsToTheModelsOptions) {
  EnergyFaissSpec spec;
  spec.nlist = 32;
  spec.nprobe = 4;
  const kv::IvfPqTouchOptions o = ivfpq_options(spec);
  EXPECT_EQ(o.nlist, 32u);
  EXPECT_EQ(o.pq_m, 16u);
  EXPECT_EQ(o.pq_nbits, 8u);
  EXPECT_EQ(o.nprobe, 4u);
}

TEST(EnergyPrism, BeyondTheLargestAcceleratorIsInfeasibleNotClamped) {
  const config::LoadOptions load = testing::shipped_configs();
  std::vector<std::pair<std::string, prism::AcceleratorSpec>> accels = {
      {"seed", prism::load_accelerator("seed", load)},
      {"scaled", prism::load_accelerator("scaled", load)}};
  const PrismAtContext small = prism_at(128, accels);
  ASSERT_TRUE(small.fits);
  EXPECT_EQ(small.accelerator, "seed");
  EXPECT_EQ(small.cost.timeline.passes, 1);
  const PrismAtContext mid = prism_at(4096, accels);  // > 256 rows: the scaled preset
  ASSERT_TRUE(mid.fits);
  EXPECT_EQ(mid.accelerator, "scaled");
  EXPECT_EQ(mid.cost.timeline.passes, 4);  // 4096 / 1024 physical rows
  EXPECT_GT(mid.cost.dynamic_energy, small.cost.dynamic_energy);
  const PrismAtContext full = prism_at(8192, accels);
  ASSERT_TRUE(full.fits);
  EXPECT_EQ(full.cost.timeline.passes, 8);
  const PrismAtContext beyond = prism_at(8193, accels);
  EXPECT_FALSE(beyond.fits);
  EXPECT_NE(beyond.reason.find("8193 blocks"), std::string::npos) << beyond.reason;
  EXPECT_NE(beyond.reason.find("scaled"), std::string::npos) << beyond.reason;
}

}  // namespace
}  // namespace lightsim::studies
