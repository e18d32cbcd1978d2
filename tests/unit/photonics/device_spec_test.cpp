// Device specs: presets load, bad input names the key path, feasibility gives reasons.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "lightsim/core/error.h"
#include "lightsim/photonics/device.h"
#include "lightsim/photonics/feasibility.h"
#include "scratch_dir.h"
#include "shipped_configs.h"
#include "shipped_device.h"

namespace lightsim::photonics {
namespace {

DeviceSpec preset(const std::string& name) {
  return testing::shipped_device(name);
}

// Loads a device file made of `body` (after the header) and returns the error message.
std::string load_error(const std::string& body) {
  const auto file = testing::scratch_dir() / "device.yaml";
  std::ofstream(file) << "schema_version: 1\nkind: device\npreset: tfln\n" << body;
  try {
    (void)config::load_spec<DeviceSpec>(file, testing::shipped_configs());
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(DeviceSpec, PresetsLoadAndComposeSubSpecs) {
  const DeviceSpec tfln = preset("tfln");
  EXPECT_EQ(tfln.tuning.mechanism, TuningMechanism::pockels);
  EXPECT_DOUBLE_EQ(*tfln.ring.q_loaded, 1e4);
  const DeviceSpec soi = preset("soi");
  EXPECT_EQ(soi.tuning.mechanism, TuningMechanism::thermo_optic);
  EXPECT_GT(soi.tuning.thermal_crosstalk, 0.0);
  // seed_tfln says `preset: tfln` and overrides the grid and the voltage only.
  const DeviceSpec seed = preset("seed_tfln");
  EXPECT_EQ(seed.grid.channels, 32);
  EXPECT_NEAR(seed.grid.spacing.si(), 1.6e-9, 1e-18);
  EXPECT_NEAR(seed.ring.radius.si(), 20e-6, 1e-15);
  EXPECT_DOUBLE_EQ(*seed.ring.q_loaded, 1e4);
}

TEST(DeviceSpec, BadInputNamesTheKeyPath) {
  std::string e = load_error("ring:\n  q_loaded: -1e4\n");
  EXPECT_NE(e.find("ring.q_loaded"), std::string::npos) << e;
  EXPECT_NE(e.find("out of range"), std::string::npos) << e;
  e = load_error("grid:\n  channels: 0\n");
  EXPECT_NE(e.find("grid.channels"), std::string::npos) << e;
  e = load_error("grid:\n  spacing: 1.6 mW\n");
  EXPECT_NE(e.find("grid.spacing"), std::string::npos) << e;
  EXPECT_NE(e.find("expected a length"), std::string::npos) << e;
  e = load_error("tuning:\n  pockels_efficiency: 2.5 pm/K\n");
  EXPECT_NE(e.find("tuning.pockels_efficiency"), std::string::npos) << e;
  e = load_error("ring:\n  coupling_in: 0.05\n");
  EXPECT_NE(e.find("ring"), std::string::npos) << e;
  EXPECT_NE(e.find("not both"), std::string::npos) << e;
  e = load_error("ring:\n  q_loaded: 1e6\n  loss: 30 dB/cm\n");
  EXPECT_NE(e.find("intrinsic Q"), std::string::npos) << e;
  e = load_error("ring:\n  q_loaded: 10\n");
  EXPECT_NE(e.find("too low"), std::string::npos) << e;
}

TEST(Feasibility, SeedConfigurationIsFlaggedWithNumbers) {
  const FeasibilityReport r = check_feasibility(preset("seed_tfln"));
  EXPECT_FALSE(r.feasible);
  const auto reasons = r.reasons();
  ASSERT_GE(reasons.size(), 2u);
  EXPECT_NE(reasons[0].find("alias"), std::string::npos) << reasons[0];
  EXPECT_NE(reasons[0].find("8.3"), std::string::npos) << reasons[0];  // the FSR in nm
  EXPECT_NE(reasons[0].find("32 channels at 1.6 nm"), std::string::npos) << reasons[0];
  bool tuning = false;
  for (const auto& c : r.checks)
    if (c.name == "tuning_range") tuning = !c.passed;
  EXPECT_TRUE(tuning);  // +-20 pm of tuning is far from the ~320 pm a full swing needs
}

TEST(Feasibility, ShippedPresetsAndTheCorrectedSeedFit) {
  for (const char* name : {"tfln", "soi", "seed_tfln_fit"}) {
    const FeasibilityReport r = check_feasibility(preset(name));
    EXPECT_TRUE(r.feasible) << name << ": " << (r.reasons().empty() ? "" : r.reasons()[0]);
    EXPECT_EQ(r.checks.size(), 6u);
  }
  const DeviceSpec fit = preset("seed_tfln_fit");
  EXPECT_EQ(fit.grid.channels, 32);
  EXPECT_NEAR(fit.ring.radius.si(), 20e-6, 1e-15);
}

TEST(Feasibility, EachCheckFailsOnItsOwn) {
  auto failed = [](const DeviceSpec& d) {
    std::vector<std::string> names;
    for (const auto& c : check_feasibility(d).checks)
      if (!c.passed) names.push_back(c.name);
    return names;
  };
  DeviceSpec d = preset("tfln");
  d.requirements.crosstalk_target = Decibel::si(-30.0);
  EXPECT_EQ(failed(d), std::vector<std::string>{"crosstalk"});
  d = preset("tfln");
  d.requirements.weight_range = 0.99;
  EXPECT_EQ(failed(d)[0], "weight_range");
  d = preset("tfln");
  d.tuning.max_voltage = Voltage::si(20.0);
  EXPECT_EQ(failed(d), std::vector<std::string>{"tuning_range"});
  d = preset("tfln");
  d.requirements.thermal_budget = Power::si(0.5);
  EXPECT_EQ(failed(d), std::vector<std::string>{"thermal_budget"});
  d = preset("soi");
  d.bank.rows = 256;  // 256 x 16 heaters holding 1.33 mW each (photonics/holding.h): 5.5 W
  EXPECT_EQ(failed(d), std::vector<std::string>{"thermal_budget"});
  d = preset("tfln");
  d.requirements.score_enob = 9.0;
  EXPECT_EQ(failed(d), std::vector<std::string>{"link_budget"});
  d = preset("tfln");
  d.tia.gain = Resistance::si(100e3);  // the full swing clips the ADC
  EXPECT_EQ(failed(d), std::vector<std::string>{"link_budget"});
}

}  // namespace
}  // namespace lightsim::photonics
