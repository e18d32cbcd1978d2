// Published photonic-tensor-core insertion-loss paths rebuilt from device nodes
// (photonics/ptc_path.h; configs/references/lightening_transformer.yaml gives every source).
#include <gtest/gtest.h>

#include <filesystem>

#include "lightsim/core/error.h"
#include "lightsim/photonics/ptc_path.h"
#include "shipped_configs.h"

namespace lightsim::photonics {
namespace {

PtcPathReference lightening() {
  return config::load_spec<PtcPathReference>(
      std::filesystem::path(LIGHTSIM_SOURCE_DIR) / "configs/references/lightening_transformer.yaml",
      testing::shipped_configs());
}

TEST(PtcPath, LighteningTransformerDptcCriticalPathWithinATenthOfADecibel) {
  const PtcPathReference r = lightening();
  const InsertionPath p =
      dptc_path(r.devices, static_cast<int>(r.core_height), static_cast<int>(r.core_width));
  EXPECT_NEAR(p.total_db(), r.dptc_total.si(), 0.1);
  // 12 x 12: a 1:12 tree is ceil(log2 12) = 4 Y-branch stages.
  EXPECT_EQ(p.nodes[2].count, 4);
}

TEST(PtcPath, AnMziIsTwoCouplersAndAPhaseShifterAsPublished) {
  const PtcPathReference r = lightening();
  EXPECT_NEAR(mzi_loss_db(r.devices), r.mzi_node.si(), 0.1);
  const InsertionPath mesh =
      mzi_mesh_path(r.devices, static_cast<int>(r.core_height), static_cast<int>(r.core_width));
  EXPECT_NEAR(mesh.total_db(), r.mzi_mesh_total.si(), 0.1);
}

TEST(PtcPath, AnEmptyCoreIsRefused) {
  EXPECT_THROW(dptc_path(PtcDeviceSpec{}, 0, 4), InputError);
}

}  // namespace
}  // namespace lightsim::photonics
