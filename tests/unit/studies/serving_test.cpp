// The `serving` study (studies/serving.h): with infinite bandwidth and no latency on every
// tier, the copper racks and the photonic pod serve identically, so the fabric choice changes
// nothing; with their real bandwidths they differ. Several models run in one study, each
// split reported per model.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
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

const report::NamedTable& table(const report::StudyResult& r, const std::string& name) {
  for (const report::NamedTable& t : r.tables)
    if (t.name == name) return t;
  throw std::runtime_error("no table " + name);
}

// A numeric cell as a double (tables hold counts as integers, figures as doubles).
double num(const Cell& c) {
  if (const auto* i = std::get_if<std::int64_t>(&c)) return static_cast<double>(*i);
  return std::get<double>(c);
}

std::size_t column_index(const report::NamedTable& t, const std::string& name) {
  std::size_t c = 0;
  while (t.table.columns()[c].name != name) ++c;
  return c;
}

// The serving study at quick size on the shipped copper and photonic arms, each with
// `arm_body` (its splits or split search), one fixed chat traffic (1024-token prompts, 16
// output tokens) at `load` requests/s per GPU, no part b, `requests` per run, seed 3;
// `models`: the study's models list ("": the quick size's).
report::StudyResult run_shipped_arms(const std::string& arm_body, double load, int requests,
                                     const std::string& models = "") {
  Registry registry;
  register_all(registry);
  const config::LoadOptions options = testing::shipped_configs();
  StudyInput in = make_input("serving", default_config("serving", options), options, Size::quick);
  if (!models.empty()) config::apply_assignment(in.document, "models=" + models);
  config::apply_assignment(in.document,
                           "arms=[{name: copper, fabric: seed_copper_1152, kv_tier: 1, cost_model: "
                           "copper_nvl72, " +
                               arm_body +
                               "}, {name: photonic, fabric: photonic_4x_1152, kv_tier: 0, "
                               "cost_model: photonic_pod_1152, " +
                               arm_body + "}]");
  config::apply_assignment(
      in.document,
      fmt::format("traffics=[{{name: chat, prompt: {{distribution: fixed, median: "
                  "1024}}, output: {{distribution: fixed, median: 16}}, loads: [{}]}}]",
                  load));
  config::apply_assignment(in.document, "contexts=[]");
  config::apply_assignment(in.document, fmt::format("requests={}", requests));
  Context ctx(ContextOptions{.seed = 3, .threads = 1});
  return study_family(registry).get("serving")(in, ctx);
}

// With search_plans each searched split runs the plans the searches chose: the `plans` table
// lists a prefill and a decode plan per split with their candidate counts, every decode plan
// meets the scenario's 50 ms TPOT target, and the `splits` table runs those plans with the
// decode search's batch as max_batch.
TEST(ServingStudy, SearchedPlansAreReportedAndRun) {
  const report::StudyResult r = run_shipped_arms(
      "split_search: {total_gpus: 48, prefill_gpus_per_instance: 8, decode_gpus: [16, 24], "
      "search_plans: true, plan_prompt: 1024, plan_context: 2048}",
      1.0, 100);

  const report::NamedTable& plans = table(r, "plans");
  ASSERT_EQ(plans.table.rows().size(), 8u);  // 2 arms x 2 splits x (prefill, decode)
  const std::size_t pool = column_index(plans, "pool"), plan = column_index(plans, "plan"),
                    time = column_index(plans, "time"), cand = column_index(plans, "candidates"),
                    batch = column_index(plans, "batch"), split = column_index(plans, "split");
  const report::NamedTable& splits = table(r, "splits");
  const std::size_t s_split = column_index(splits, "split"),
                    s_decode = column_index(splits, "decode_plan"),
                    s_prefill = column_index(splits, "prefill_plan"),
                    s_batch = column_index(splits, "max_batch"),
                    s_arm = column_index(splits, "arm");
  const std::size_t p_arm = column_index(plans, "arm");
  std::size_t matched = 0;
  for (const auto& row : plans.table.rows()) {
    EXPECT_GT(num(row[cand]), 1);
    const std::string which = std::get<std::string>(row[pool]);
    if (which == "decode") {
      EXPECT_LE(num(row[time]), 50.0);
    }
    for (const auto& s : splits.table.rows()) {
      if (std::get<std::string>(s[s_split]) != std::get<std::string>(row[split]) ||
          std::get<std::string>(s[s_arm]) != std::get<std::string>(row[p_arm]))
        continue;
      ++matched;
      if (which == "decode") {
        EXPECT_EQ(std::get<std::string>(s[s_decode]), std::get<std::string>(row[plan]));
        EXPECT_EQ(num(s[s_batch]), num(row[batch]));
      } else {
        EXPECT_EQ(std::get<std::string>(s[s_prefill]), std::get<std::string>(row[plan]));
      }
    }
  }
  EXPECT_EQ(matched, 8u);  // one traffic: each plan row meets its split's one row
}

// Two models in one run: every table gets a `model` column with both; a stated split whose plan
// does not fit one model (decode TP=128: DeepSeek-V3 has 128 attention heads, Kimi K2 64) runs
// for the model it fits and is reported with the reason for the other, its plan as stated (not
// clamped) and no rows in `runs`.
TEST(ServingStudy, TwoModelsGetAModelColumnAndAnUnfitPlanIsReported) {
  const report::StudyResult r = run_shipped_arms(
      "splits: [{name: fits, prefill_instances: 1, prefill_gpus_per_instance: 8, prefill_plan: "
      "\"EP=8\", decode_instances: 1, decode_gpus_per_instance: 16, decode_plan: "
      "\"DPA=16,EP=16\", max_batch: 1024}, {name: tp128, prefill_instances: 1, "
      "prefill_gpus_per_instance: 8, prefill_plan: \"EP=8\", decode_instances: 1, "
      "decode_gpus_per_instance: 128, decode_plan: \"TP=128\", max_batch: 256}]",
      0.5, 60, "[deepseek_v3, kimi_k2]");

  const report::NamedTable& runs = table(r, "runs");
  const std::size_t r_model = column_index(runs, "model"), r_split = column_index(runs, "split");
  std::set<std::string> run_models;
  for (const auto& row : runs.table.rows()) {
    run_models.insert(std::get<std::string>(row[r_model]));
    EXPECT_FALSE(std::get<std::string>(row[r_model]) == "kimi_k2" &&
                 std::get<std::string>(row[r_split]) == "tp128");
  }
  EXPECT_EQ(run_models, (std::set<std::string>{"deepseek_v3", "kimi_k2"}));
  EXPECT_EQ(runs.table.rows().size(), 6u);  // 2 arms x (2 DeepSeek splits + 1 Kimi split)

  const report::NamedTable& s = table(r, "splits");
  const std::size_t s_model = column_index(s, "model"), s_split = column_index(s, "split"),
                    s_decode = column_index(s, "decode_plan"), s_skip = column_index(s, "skipped");
  ASSERT_EQ(s.table.rows().size(), 8u);  // 2 models x 2 arms x 2 splits
  std::size_t reported = 0;
  for (const auto& row : s.table.rows()) {
    const std::string model = std::get<std::string>(row[s_model]);
    const std::string skipped = std::get<std::string>(row[s_skip]);
    if (model == "kimi_k2" && std::get<std::string>(row[s_split]) == "tp128") {
      ++reported;
      EXPECT_EQ(std::get<std::string>(row[s_decode]), "TP=128");
      EXPECT_NE(skipped.find("TP=128 does not divide the 64 attention heads"), std::string::npos)
          << skipped;
    } else {
      EXPECT_EQ(skipped, "") << model;
    }
  }
  EXPECT_EQ(reported, 2u);  // one per arm
  for (const char* t : {"latency_cdf", "context_ratio", "plans"}) {
    const report::NamedTable& named = table(r, t);
    EXPECT_EQ(named.table.columns()[0].name, "model") << t;
  }
}

// A model listed twice is a ConfigError naming the second.
TEST(ServingStudy, AModelListedTwiceIsAConfigError) {
  Registry registry;
  register_all(registry);
  const config::LoadOptions load = testing::shipped_configs();
  StudyInput in = make_input("serving", default_config("serving", load), load, Size::quick);
  config::apply_assignment(in.document, "models=[kimi_k2, deepseek_v3, kimi_k2]");
  Context ctx;
  try {
    (void)study_family(registry).get("serving")(in, ctx);
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("models[2]: 'kimi_k2' is listed twice"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace lightsim::studies
