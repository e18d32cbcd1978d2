// Accelerator specs: presets load with their nested device, derived sizes, bad input names the
// key path.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "lightsim/core/error.h"
#include "lightsim/prism/accelerator.h"
#include "scratch_dir.h"
#include "shipped_configs.h"

namespace lightsim::prism {
namespace {

AcceleratorSpec preset(const std::string& name) {
  return config::load_spec<AcceleratorSpec>(
      std::filesystem::path(LIGHTSIM_SOURCE_DIR) / "configs/accelerators" / (name + ".yaml"),
      testing::shipped_configs());
}

std::string load_error(const std::string& body) {
  const auto file = testing::scratch_dir() / "accelerator.yaml";
  std::ofstream(file) << "schema_version: 1\nkind: accelerator\npreset: seed\n" << body;
  try {
    (void)config::load_spec<AcceleratorSpec>(file, testing::shipped_configs());
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(AcceleratorSpec, SeedPresetStatesTheSeedConfiguration) {
  const AcceleratorSpec a = preset("seed");
  EXPECT_EQ(a.device.grid.channels, 32);
  EXPECT_EQ(physical_rows(a), 256);
  EXPECT_EQ(scored_rows(a), 256);
  EXPECT_EQ(passes(a), 1);
  EXPECT_EQ(a.programming.weight_bits, 5);
  EXPECT_EQ(a.device.dac.bits, 4);
  EXPECT_DOUBLE_EQ(a.device.dac.gain_error, 0.05);
  EXPECT_DOUBLE_EQ(a.device.tia.bandwidth.si(), 1e9);
  EXPECT_DOUBLE_EQ(a.device.tia.integration_window.si(), 10e-9);
  EXPECT_DOUBLE_EQ(a.device.tia.input_noise.si(), 5e-12);
  EXPECT_DOUBLE_EQ(a.area.dac_area.si(), 0.01e-6);
}

TEST(AcceleratorSpec, ScaledAndMultichipPresetsMultiplex) {
  const AcceleratorSpec s = preset("scaled");
  EXPECT_EQ(physical_rows(s), 1024);
  EXPECT_EQ(scored_rows(s), 8192);
  EXPECT_EQ(passes(s), 8);
  const AcceleratorSpec m = preset("multichip");
  EXPECT_EQ(m.interposer.chips, 4);
  EXPECT_EQ(passes(m), 2);
  EXPECT_DOUBLE_EQ(m.interposer.hop_loss.si(), 3.0);
  const AcceleratorSpec soi = preset("soi");
  EXPECT_EQ(soi.device.tuning.mechanism, photonics::TuningMechanism::thermo_optic);
  EXPECT_EQ(soi.device.grid.channels, 32);
  EXPECT_EQ(physical_rows(soi), 256);
}

TEST(AcceleratorSpec, BadInputNamesTheKey) {
  EXPECT_NE(load_error("selection:\n  top_k: 0\n").find("selection.top_k"), std::string::npos);
  EXPECT_NE(load_error("selection:\n  top_k: 32\n  rerank_k: 16\n").find("rerank_k"),
            std::string::npos);
  EXPECT_NE(load_error("selection:\n  top_k: 300\n").find("exceeds the logical rows"),
            std::string::npos);
  EXPECT_NE(load_error("programming:\n  banks: shared\n").find("programming.banks"),
            std::string::npos);
  EXPECT_NE(load_error("electronics:\n  tia_power: 3 V\n").find("electronics.tia_power"),
            std::string::npos);
}

}  // namespace
}  // namespace lightsim::prism
