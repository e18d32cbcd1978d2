// The `serving` study (studies/serving.h): with infinite bandwidth and no latency on every
// tier, the copper racks and the photonic pod serve identically, so the fabric choice changes
// nothing; with their real bandwidths they differ.
#include <gtest/gtest.h>

#include <string>
#include <variant>
#include <vector>

#include "lightsim/core/config_node.h"
#include "lightsim/core/context.h"
#include "lightsim/core/error.h"
#include "lightsim/core/registry.h"
#include "lightsim/report/result.h"
#include "lightsim/studies/register.h"
#include "lightsim/studies/study.h"
#include "shipped_configs.h"

namespace lightsim::studies {
namespace {

// A copper-like (72-GPU domains) or photonic-like (one 1152-GPU domain) fabric of the seed's
// GPU; `ideal`: every tier infinitely fast (1e30 B/s, no latency).
std::string fabric(bool photonic, bool ideal) {
  const std::string inner = photonic ? "1152" : "72", outer = photonic ? "9216" : "1152";
  const std::string bw = ideal ? "1e30 B/s" : (photonic ? "3.6 TB/s" : "900 GB/s");
  const std::string out_bw = ideal ? "1e30 B/s" : "100 GB/s";
  const std::string lat = ideal ? "0 s" : "3.5 us", hop = ideal ? "0 s" : "0.5 us";
  return "{name: " + std::string(photonic ? "photonic" : "copper") +
         ", gpu: {preset: seed_electrical}, expert_low_latency_overhead: 0 s, tiers: [{name: "
         "up, domain_size: " +
         inner + ", bandwidth: " + bw + ", latency: " + lat + ", hop_latency: " + hop +
         ", switch_radix: 72, efficiency: 0.97}, {name: out, domain_size: " + outer +
         ", bandwidth: " + out_bw + ", latency: " + lat + ", hop_latency: " + hop +
         ", switch_radix: 64, efficiency: 0.92}]}";
}

std::string arm(bool photonic, bool ideal) {
  return std::string("{name: ") + (photonic ? "photonic" : "copper") +
         ", fabric: " + fabric(photonic, ideal) + ", kv_tier: " + (photonic ? "0" : "1") +
         ", cost_model: " + (photonic ? "photonic_pod_1152" : "copper_nvl72") +
         ", splits: [{name: s, prefill_instances: 2, prefill_gpus_per_instance: 8, "
         "prefill_plan: \"EP=8\", decode_instances: 1, decode_gpus_per_instance: 96, "
         "decode_plan: \"DPA=96,EP=96\", max_batch: 4096}]}";
}

std::vector<double> column(const report::StudyResult& r, const std::string& table,
                           const std::string& name) {
  for (const report::NamedTable& t : r.tables) {
    if (t.name != table) continue;
    std::size_t c = 0;
    while (t.table.columns()[c].name != name) ++c;
    std::vector<double> out;
    for (const auto& row : t.table.rows()) out.push_back(std::get<double>(row[c]));
    return out;
  }
  ADD_FAILURE() << "no table " << table;
  return {};
}

report::StudyResult run_arms(bool ideal) {
  Registry registry;
  register_all(registry);
  const config::LoadOptions load = testing::shipped_configs();
  StudyInput in = make_input("serving", default_config("serving", load), load, Size::quick);
  config::apply_assignment(in.document,
                           "arms=[" + arm(false, ideal) + ", " + arm(true, ideal) + "]");
  config::apply_assignment(in.document,
                           "traffics=[{name: chat, prompt: {distribution: fixed, median: 2048}, "
                           "output: {distribution: fixed, median: 32}, loads: [2]}]");
  config::apply_assignment(in.document, "contexts=[]");
  config::apply_assignment(in.document, "requests=300");
  Context ctx(ContextOptions{.seed = 3, .threads = 1});
  return study_family(registry).get("serving")(in, ctx);
}

TEST(ServingStudy, InfiniteBandwidthMakesTheFabricChoiceChangeNothing) {
  const report::StudyResult ideal = run_arms(true);
  for (const char* c : {"goodput_per_gpu", "ttft_p99", "tpot_p50", "tpot_p99"}) {
    const std::vector<double> v = column(ideal, "runs", c);
    ASSERT_EQ(v.size(), 2u);
    EXPECT_EQ(v[0], v[1]) << c;  // copper row, photonic row
  }
  const report::StudyResult real = run_arms(false);
  const std::vector<double> tpot = column(real, "runs", "tpot_p50");
  ASSERT_EQ(tpot.size(), 2u);
  EXPECT_GT(tpot[0], tpot[1]);  // EP 96 across two copper racks is slower than in one domain
}

// Rows are matched by arm name: two arms of one name are a ConfigError naming the second.
TEST(ServingStudy, TwoArmsOfOneNameAreAConfigError) {
  Registry registry;
  register_all(registry);
  const config::LoadOptions load = testing::shipped_configs();
  StudyInput in = make_input("serving", default_config("serving", load), load, Size::quick);
  config::apply_assignment(in.document,
                           "arms=[" + arm(false, false) + ", " + arm(false, false) + "]");
  Context ctx;
  try {
    (void)study_family(registry).get("serving")(in, ctx);
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("arms[1]: name 'copper' is taken"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace lightsim::studies
