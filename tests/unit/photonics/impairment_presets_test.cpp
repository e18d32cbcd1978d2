// Impairment presets (configs/impairments/) load, compose with `preset:` and reject bad input.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "lightsim/core/error.h"
#include "lightsim/photonics/mvm.h"
#include "scratch_dir.h"
#include "shipped_configs.h"

namespace lightsim::photonics {
namespace {

ImpairmentSpec impairment_preset(const std::string& name) {
  return config::load_spec<ImpairmentSpec>(
      std::filesystem::path(LIGHTSIM_SOURCE_DIR) / "configs/impairments" / (name + ".yaml"),
      testing::shipped_configs());
}

ImpairmentSpec from_text(const std::string& body) {
  const auto file = testing::scratch_dir() / "impairments.yaml";
  std::ofstream(file) << "schema_version: 1\nkind: impairments\n" << body;
  return config::load_spec<ImpairmentSpec>(file, testing::shipped_configs());
}

TEST(ImpairmentPresets, ShippedPresetsLoad) {
  const ImpairmentSpec ideal = impairment_preset("ideal");
  EXPECT_FALSE(ideal.crosstalk || ideal.quantization || ideal.dac_errors || ideal.noise ||
               ideal.heater_crosstalk);
  EXPECT_EQ(ideal.drift_local_sigma.si(), 0.0);
  const ImpairmentSpec seed = impairment_preset("seed_table31");
  EXPECT_NEAR(seed.drift_local_sigma.si(), 40e-12, 1e-18);
  EXPECT_TRUE(seed.crosstalk && seed.noise);
  const ImpairmentSpec typical = impairment_preset("typical");
  EXPECT_NEAR(typical.drift_time_constant.si(), 1e-3, 1e-12);
  EXPECT_EQ(typical.correlation_rings, 4.0);
}

TEST(ImpairmentPresets, PresetKeyComposesWithOverrides) {
  const ImpairmentSpec s = from_text("preset: typical\ndrift_local_sigma: 3 pm\n");
  EXPECT_NEAR(s.drift_local_sigma.si(), 3e-12, 1e-18);
  EXPECT_NEAR(s.calibration_residual.si(), 2e-12, 1e-18);  // from the preset
}

TEST(ImpairmentPresets, BadInputNamesTheKey) {
  try {
    (void)from_text("preset: ideal\ndrift_time_constant: 2 pm\n");
    FAIL() << "a length accepted as a time";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("drift_time_constant"), std::string::npos) << e.what();
  }
  try {
    (void)from_text("query_period: -1 ns\n");
    FAIL() << "a negative period accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("query_period"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace lightsim::photonics
