// The plans of a serving pool chosen by the plan searches (serve/pool_plans.h): the chosen
// decode plan meets the TPOT target and serves at least as many tokens/s per GPU as the stated
// family plan DPA=n,EP=n at its own best batch; the chosen prefill plan is at least as fast as
// the stated EP=8; a target no plan meets is a ConfigError naming the caller's key.
#include <gtest/gtest.h>

#include <string>

#include "lightsim/core/config_files.h"
#include "lightsim/core/error.h"
#include "lightsim/decode/plan.h"
#include "lightsim/decode/scale.h"
#include "lightsim/prefill/evaluate.h"
#include "lightsim/prefill/plan.h"
#include "lightsim/serve/pool_plans.h"
#include "lightsim/serve/scenario.h"
#include "shipped_configs.h"

namespace lightsim::serve {
namespace {

struct Pod {
  ScenarioSpec scenario;
  model::Transformer model;
  config::Ref<fabric::FabricSpec> fabric{};  // the decode pool's: seed_copper_1152
};

Pod pod() {
  const config::LoadOptions load = testing::shipped_configs();
  Pod p{.scenario = load_scenario("deepseek_v3_pod", load).spec, .model = {}};
  p.model = model::load_hf_config(
      config::find_named(p.scenario.model, "models", load.roots_only(), "model"));
  p.fabric = p.scenario.decode.fabric;
  return p;
}

TEST(PoolPlans, DecodeSearchBeatsTheStatedFamilyUnderTheTarget) {
  const Pod p = pod();
  const double target = p.scenario.slo.tpot.si();
  const DecodePlanChoice c = choose_decode_plan(p.scenario, p.model, p.fabric, 48, 4096, "here");
  EXPECT_GT(c.plans, 1);
  EXPECT_GE(c.evaluated, c.plans / 2);
  EXPECT_GE(c.feasible, 1);
  EXPECT_LE(c.tpot, target);
  ASSERT_GT(c.batch, 0);

  // The chosen plan re-timed at its batch gives the reported figures.
  const decode::StepEvaluator ev(scale_setup_of(p.scenario, p.model, p.fabric, 48));
  const decode::StepBreakdown again = ev.step_time(decode::parse_plan(c.plan, 48), c.batch, 4096);
  ASSERT_TRUE(again.feasible) << again.reason;
  EXPECT_DOUBLE_EQ(again.tpot, c.tpot);

  // The stated family plan at the largest batch of whole groups meeting the target.
  const decode::DecodePlan family = decode::parse_plan("DPA=48,EP=48", 48);
  double family_best = 0;
  for (std::int64_t b = 1; b <= ev.memory(family, 4096).max_batch / 48; ++b) {
    const decode::StepBreakdown s = ev.step_time(family, 48 * b, 4096);
    if (s.feasible && s.tpot <= target) family_best = std::max(family_best, s.tokens_per_s_per_gpu);
  }
  EXPECT_GT(family_best, 0);
  EXPECT_GE(c.tokens_per_s_per_gpu, family_best);

  // TPOT <= 1 us: no plan; the error names the caller and the target.
  Pod tight = p;
  tight.scenario.slo.tpot = Time::si(1e-6);
  try {
    (void)choose_decode_plan(tight.scenario, tight.model, tight.fabric, 48, 4096, "arms 'x'");
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("arms 'x'"), std::string::npos) << what;
    EXPECT_NE(what.find("TPOT"), std::string::npos) << what;
  }
}

TEST(PoolPlans, PrefillSearchIsAtLeastAsFastAsTheStatedPlan) {
  const Pod p = pod();
  const PrefillPlanChoice c = choose_prefill_plan(p.scenario, p.model, p.fabric, 8, 2048, "here");
  EXPECT_GT(c.evaluated, 1);
  EXPECT_GE(c.feasible, 1);
  EXPECT_GT(c.latency, 0);
  prefill::ScenarioSpec sc = prefill_scenario_of(p.scenario);
  sc.sequence_length = 2048;
  const prefill::Evaluator ev(sc, p.model, fabric::build_topology(p.fabric.get()), 8);
  const prefill::Result stated = ev.evaluate(prefill::parse_plan("EP=8", 8));
  ASSERT_TRUE(stated.feasible) << stated.reason;
  EXPECT_LE(c.latency, stated.latency_s);
  const prefill::Result chosen = ev.evaluate(prefill::parse_plan(c.plan, 8));
  EXPECT_DOUBLE_EQ(chosen.latency_s, c.latency);
}

}  // namespace
}  // namespace lightsim::serve
