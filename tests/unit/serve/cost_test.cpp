// Unit tests of the serving power and cost model (serve/cost.h; docs/serving.md "Power and
// cost"): a hand case, zero load, and a cost model missing a key.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "lightsim/core/config.h"
#include "lightsim/core/error.h"
#include "lightsim/serve/cost.h"
#include "lightsim/serve/run.h"
#include "scratch_dir.h"
#include "shipped_configs.h"

namespace lightsim::serve {
namespace {

CostModelSpec shipped_cost_model(const std::string& name) {
  const config::LoadOptions load = testing::shipped_configs();
  return config::load_spec<CostModelSpec>(
      config::find_named(name, CostModelSpec::preset_dir, load, "cost model"), load);
}

// Two GPUs (tdp 700 W, idle 70 W) busy half the time on the copper NVL72 design (2 x 4 pJ/bit
// SerDes + 9.77 pJ/bit switch = 17.77 pJ/bit) at 900 GB/s per direction, host 340 W per GPU,
// PUE 1.10, a 10 s run of 1000 output tokens:
//   GPUs   2 x (70 + 630 x 0.5)            = 770 W
//   fabric 2 x 8 x 900e9 x 17.77e-12       = 255.888 W
//   host   2 x 340                         = 680 W
//   facility (770 + 255.888 + 680) x 1.1   = 1876.4768 W
//   energy per token 1876.4768 x 10 / 1000 = 18.764768 J
TEST(CostModel, EnergyPerTokenIsPowerTimesTimeOverTokens) {
  const CostModelSpec m = shipped_cost_model("copper_nvl72");
  fabric::GpuSpec gpu;
  gpu.name = "test";
  gpu.tdp = Power::si(700);
  gpu.idle_power = Power::si(70);
  SimResult sim;
  sim.makespan = 10;
  sim.output_tokens_per_s = 100;
  sim.goodput = 4;
  const PowerCost p = power_and_cost(
      m, {{.gpu = &gpu, .gpus = 2, .utilization = 0.5, .fabric_bandwidth = 900e9}}, sim);
  EXPECT_NEAR(p.gpu_power, 770, 1e-9);
  EXPECT_NEAR(p.fabric_power, 255.888, 1e-9);
  EXPECT_NEAR(p.host_power, 680, 1e-9);
  EXPECT_NEAR(p.facility_power, 1876.4768, 1e-9);
  EXPECT_NEAR(p.energy_per_token, 18.764768, 1e-9);
  EXPECT_DOUBLE_EQ(p.energy_per_token, p.facility_power * sim.makespan / 1000);
  // Capex $41 667 per GPU over 5 years of 8766 h; energy at $0.08 per kWh.
  const double capex = 2 * 41667.0 / (5 * 8766.0);
  EXPECT_NEAR(p.capex_per_hour, capex, 1e-12);
  EXPECT_NEAR(p.energy_cost_per_hour, 1.8764768 * 0.08, 1e-12);
  EXPECT_NEAR(p.cost_per_million_tokens, (capex + 1.8764768 * 0.08) * (10.0 / 3600) / 1000 * 1e6,
              1e-9);
  EXPECT_NEAR(p.goodput_per_s_per_gpu, 2, 1e-12);
  EXPECT_NEAR(p.goodput_per_s_per_kw, 4 / 1.8764768, 1e-12);
}

// No arrivals: the GPUs draw idle power only (the fabric's always-on links and the host are
// the rest), and nothing is produced.
TEST(CostModel, ZeroLoadDrawsIdlePowerOnly) {
  config::LoadOptions load = testing::shipped_configs();
  load.assignments = config::Assignments({"arrivals.requests=0"});
  const ServeReport r = run(prepare("deepseek_v3_pod", load, 1));
  ASSERT_TRUE(r.power.has_value());
  const PowerCost& p = *r.power;
  const double idle = 140;  // configs/gpus/seed_electrical.yaml
  EXPECT_DOUBLE_EQ(p.gpu_power, 144 * idle);
  EXPECT_DOUBLE_EQ(p.host_power, 144 * 340.0);
  EXPECT_GT(p.fabric_power, 0);
  EXPECT_EQ(p.energy, 0);
  EXPECT_EQ(p.energy_per_token, 0);
  EXPECT_EQ(p.cost_per_million_tokens, 0);
  EXPECT_EQ(p.goodput_per_usd, 0);
  EXPECT_GT(p.cost_per_hour, 0);  // the capex runs on
}

// Every key of a cost model is required: a file without power_price_usd_per_kwh is a
// ConfigError (exit 2) naming it.
TEST(CostModel, MissingKeyIsAConfigErrorNamingIt) {
  const auto dir = testing::scratch_dir();
  const auto file = dir / "cost.yaml";
  std::ofstream(file) << "schema_version: 1\nkind: cost_model\nname: x\n"
                         "fabric_design: copper_nvl72\ngpu_busy_power_share: 1\n"
                         "fabric_idle_power_share: 1\nhost_power_per_gpu: 300 W\n"
                         "gpu_capex_usd: 40000\nfabric_capex_per_gpu_usd: 0\n"
                         "amortization_years: 5\npue: 1.1\n";
  const config::LoadOptions load = testing::shipped_configs();
  try {
    (void)config::load_spec<CostModelSpec>(file, load);
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("power_price_usd_per_kwh"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace lightsim::serve
