// Plan evaluation: the acceptance limits of issue 7 and the structure of results.
#include <gtest/gtest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "lightsim/core/error.h"
#include "lightsim/prefill/questions.h"
#include "lightsim/prefill/report.h"
#include "lightsim/prefill/search.h"
#include "lightsim/prefill/sensitivity.h"
#include "lightsim/prefill/setup.h"
#include "prefill_support.h"

namespace lightsim::prefill {
namespace {

TEST(Evaluate, OneGpuHasNoCommunication) {
  // A MoE model that fits one seed GPU at FP4 (235B x 0.5625 B = 132 GB).
  const ScenarioSpec s = testing::scenario("qwen3_235b_a22b", 4096, 2, "fp4");
  const Evaluator ev(s, testing::model("qwen3_235b_a22b"), testing::topology("seed_copper_1152"),
                     1);
  const Result r = ev.evaluate(parse_plan("TP=1,EP=1,CP=1", 1));
  ASSERT_TRUE(r.feasible) << r.reason;
  EXPECT_EQ(r.comm_total(), 0.0);
  EXPECT_EQ(r.exposed_total(), 0.0);
  EXPECT_NEAR(r.latency_s, r.compute_total(), 1e-12 * r.latency_s);
  EXPECT_GT(r.mfu, 0.0);
  EXPECT_LT(r.mfu, 1.0);
}

TEST(Evaluate, InfeasiblePlanNamesTheOverflowingTerm) {
  // DeepSeek-V3 at FP8 (~671 GB of weights) cannot sit on one 80 GB H800.
  const Evaluator big(testing::scenario("deepseek_v3", 4096, 1, "fp8"),
                      testing::model("deepseek_v3"), testing::topology("hgx_h800"), 8);
  Result r = big.evaluate(parse_plan("TP=1,EP=1", 1));
  EXPECT_FALSE(r.feasible);
  EXPECT_NE(r.reason.find("weights overflows"), std::string::npos) << r.reason;
  EXPECT_GT(r.memory.weights, r.memory.capacity);
  // Llama-3-8B weights fit; one 1M-token sequence's BF16 KV cache (128 KiB/token) does not.
  const Evaluator longctx(testing::scenario("llama3_8b", 1 << 20, 1, "bf16"),
                          testing::model("llama3_8b"), testing::topology("hgx_h800"), 8);
  r = longctx.evaluate(parse_plan("TP=1", 1));
  EXPECT_FALSE(r.feasible);
  EXPECT_NE(r.reason.find("kv_cache overflows"), std::string::npos) << r.reason;
  // Split over 8 GPUs of context parallelism it fits.
  r = longctx.evaluate(parse_plan("TP=1,CP=8", 8));
  EXPECT_TRUE(r.feasible) << r.reason;
}

TEST(Evaluate, ZipfZeroIsUniform) {
  ScenarioSpec s = testing::scenario("deepseek_v3", 4096, 64, "fp8");
  const auto m = testing::model("deepseek_v3");
  const auto t = testing::topology("hgx_h800");
  const Plan plan = parse_plan("TP=1,EP=32", 32);
  const Result uniform = Evaluator(s, m, t, 32).evaluate(plan);
  s.routing.distribution = RoutingDistribution::zipf;
  s.routing.zipf_s = 0.0;
  const Result zipf0 = Evaluator(s, m, t, 32).evaluate(plan);
  ASSERT_TRUE(uniform.feasible) << uniform.reason;
  EXPECT_EQ(zipf0.latency_s, uniform.latency_s);
  EXPECT_EQ(zipf0.expert_skew, uniform.expert_skew);
  EXPECT_DOUBLE_EQ(uniform.expert_skew, 1.0);  // 256 experts over 32 ranks
  // Skewed routing makes the most loaded rank the straggler ...
  s.routing.zipf_s = 1.0;
  const Result skewed = Evaluator(s, m, t, 32).evaluate(plan);
  EXPECT_GT(skewed.expert_skew, 2.0);
  EXPECT_GT(skewed.latency_s, uniform.latency_s);
  // ... and replicating hot experts with balanced placement wins most of it back.
  s.routing.redundant_experts = 32;
  s.routing.placement = ExpertPlacement::balanced;
  const Result balanced = Evaluator(s, m, t, 32).evaluate(plan);
  EXPECT_LT(balanced.expert_skew, 1.2);
  EXPECT_LT(balanced.latency_s, skewed.latency_s);
}

// 97 requests over 32 attention groups: the fullest groups hold 4 (as with 128 requests), so
// attention takes as long, but the experts only see 97 requests' tokens (was: timed as 128 and
// counted as 97, under-reporting throughput).
TEST(Evaluate, RequestsThatDoNotFillTheGroupsAreTimedAsCounted) {
  const auto m = testing::model("deepseek_v3");
  const auto t = testing::topology("hgx_h800");
  const Plan plan = parse_plan("TP=1,EP=32", 32);
  const Result full =
      Evaluator(testing::scenario("deepseek_v3", 4096, 128, "fp8"), m, t, 32).evaluate(plan);
  const Result part =
      Evaluator(testing::scenario("deepseek_v3", 4096, 97, "fp8"), m, t, 32).evaluate(plan);
  ASSERT_TRUE(full.feasible && part.feasible) << full.reason << part.reason;
  ASSERT_EQ(full.sequences_per_group, part.sequences_per_group);
  const auto c = [](const Result& r, ComputeClass k) {
    return r.compute[static_cast<std::size_t>(k)];
  };
  EXPECT_DOUBLE_EQ(c(part, ComputeClass::attention_core), c(full, ComputeClass::attention_core));
  // Linear in the rows above the efficiency knee (4K+ tokens per expert): within 2 %.
  EXPECT_NEAR(c(part, ComputeClass::routed_experts) / c(full, ComputeClass::routed_experts),
              97.0 / 128.0, 0.02);
  EXPECT_LT(part.latency_s, full.latency_s);
}

TEST(Evaluate, JsonCarriesTheIssueFields) {
  const ScenarioSpec s = testing::scenario("deepseek_v3", 4096, 64, "fp8");
  const auto t = testing::topology("hgx_h800");
  const Evaluator ev(s, testing::model("deepseek_v3"), t, 32);
  const Json j = result_json(ev.evaluate(parse_plan("TP=1,EP=32", 32)), t);
  for (const char* key :
       {"ttft_s", "latency_s", "tokens_per_s_per_gpu", "mfu", "plan", "breakdown"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["breakdown"]["communication"]["ep_dispatch"]["tier"], "scale_out");
  // compute + exposed communication + pipeline fill = latency
  const double sum = j["breakdown"]["compute_total_s"].get<double>() +
                     j["breakdown"]["exposed_total_s"].get<double>() +
                     j["breakdown"]["pipeline_fill_s"].get<double>();
  EXPECT_NEAR(sum, j["latency_s"].get<double>(), 1e-9 * sum);
}

TEST(Search, FindsTheBestEvaluatedPlan) {
  const ScenarioSpec s = testing::scenario("deepseek_v3", 4096, 256, "fp8");
  const Evaluator ev(s, testing::model("deepseek_v3"), testing::topology("hgx_h800"), 64);
  const SearchResult r = search(ev, 64);
  ASSERT_TRUE(r.best.feasible) << r.best.reason;
  EXPECT_GT(r.evaluated, 50);
  EXPECT_LE(r.feasible, r.evaluated);
  EXPECT_EQ(r.best.gpus, 64);
  for (const Plan& p : enumerate_plans(ev, 64)) {
    EXPECT_EQ(p.gpus(), 64);
    const Result x = ev.evaluate(p);
    if (x.feasible) {
      EXPECT_GE(x.latency_s, r.best.latency_s);
    }
  }
  std::vector<SearchResult> counts = {search(ev, 16), search(ev, 32), r};
  const auto front = pareto_front(counts);
  ASSERT_FALSE(front.empty());
  for (std::size_t i = 1; i < front.size(); ++i)
    EXPECT_LT(counts[front[i]].best.latency_s, counts[front[i - 1]].best.latency_s);
}

TEST(Search, EvaluatesEachPlanOnceAndKeepsTheTopPlans) {
  const ScenarioSpec s = testing::scenario("deepseek_v3", 4096, 256, "fp8");
  const Evaluator ev(s, testing::model("deepseek_v3"), testing::topology("hgx_h800"), 32);
  const std::size_t top = 5;
  const SearchResult r = search(ev, 32, top);
  const std::vector<Plan> plans = enumerate_plans(ev, 32);
  // Every candidate evaluated exactly once, the top list included (no second pass).
  EXPECT_EQ(ev.evaluations(), static_cast<std::int64_t>(plans.size()));
  EXPECT_EQ(r.evaluated, static_cast<std::int64_t>(plans.size()));
  // The top list is the first `top` of every feasible plan stably sorted by latency.
  std::vector<Result> all;
  for (const Plan& p : plans)
    if (Result x = ev.evaluate(p); x.feasible) all.push_back(std::move(x));
  std::stable_sort(all.begin(), all.end(),
                   [](const Result& a, const Result& b) { return a.latency_s < b.latency_s; });
  ASSERT_GT(all.size(), top);
  ASSERT_EQ(r.top.size(), top);
  for (std::size_t i = 0; i < top; ++i) {
    EXPECT_EQ(r.top[i].plan, all[i].plan) << i;
    EXPECT_EQ(r.top[i].latency_s, all[i].latency_s) << i;
  }
  EXPECT_EQ(r.best.plan, r.top.front().plan);
  EXPECT_TRUE(search(ev, 32).top.empty());
}

}  // namespace
}  // namespace lightsim::prefill

namespace lightsim::prefill {
namespace {

TEST(Mixed, StaticPartitionsAgainstDynamicSwitching) {
  const auto m = testing::model("deepseek_v3");
  const auto t = testing::topology("hgx_h800");
  const Evaluator shorts(testing::scenario("deepseek_v3", 4096, 64, "fp8"), m, t, 32);
  const Evaluator longs(testing::scenario("deepseek_v3", 65536, 4, "fp8"), m, t, 32);
  const MixedResult r = static_vs_dynamic(shorts, longs, 32, 8);
  ASSERT_TRUE(r.feasible) << r.reason;
  EXPECT_EQ(r.static_short_gpus + r.static_long_gpus, 32);
  EXPECT_EQ(r.searches, 2 + 2 * 3);
  // Dynamic runs both shapes one after the other on all GPUs: its makespan is the sum of
  // the two full-machine latencies, each no longer than the same shape on a partition.
  EXPECT_GT(r.dynamic_makespan_s, r.dynamic_long_ttft_s);
  EXPECT_LE(r.dynamic_long_ttft_s, r.static_long_ttft_s * (1 + 1e-12));
  EXPECT_THROW(static_vs_dynamic(shorts, longs, 32, 5), ConfigError);
}

TEST(Evaluate, ExpertFormatAppliesToTheRoutedExpertsOnly) {
  // NVFP4 routed experts beside FP8 attention and dense layers (scenario expert_dtype): the
  // experts run at the FP4 peak and hold FP4 weights; the other operators keep FP8.
  ScenarioSpec fp8 = testing::scenario("deepseek_v3", 2000, 64, "fp8");
  fp8.two_microbatch_overlap = false;
  ScenarioSpec mixed = fp8;
  mixed.expert_dtype = "fp4";
  const auto model = testing::model("deepseek_v3");
  const auto topo = testing::topology("gb200_nvl72");
  const Plan plan = parse_plan("TP=1,EP=8,CP=1", 8);
  const Result a = Evaluator(fp8, model, topo, 8).evaluate(plan);
  const Result b = Evaluator(mixed, model, topo, 8).evaluate(plan);
  ASSERT_TRUE(a.feasible) << a.reason;
  ASSERT_TRUE(b.feasible) << b.reason;
  const auto c = [](const Result& r, ComputeClass k) {
    return r.compute[static_cast<std::size_t>(k)];
  };
  EXPECT_LT(c(b, ComputeClass::routed_experts), 0.75 * c(a, ComputeClass::routed_experts));
  EXPECT_DOUBLE_EQ(c(b, ComputeClass::attention_projections),
                   c(a, ComputeClass::attention_projections));
  EXPECT_DOUBLE_EQ(c(b, ComputeClass::shared_experts), c(a, ComputeClass::shared_experts));
  EXPECT_LT(b.memory.weights, a.memory.weights);
  // The dispatch carries FP4 values: less time on the wire than FP8.
  EXPECT_LT(b.comm[static_cast<std::size_t>(CommKind::ep_dispatch)],
            a.comm[static_cast<std::size_t>(CommKind::ep_dispatch)]);
}

TEST(Evaluate, TpShardedMoeHasNoAllToAllAndSplitsEveryExpert) {
  // MOE=tp (SGLang/vLLM TP MoE): each of the TP ranks holds every routed expert's I / TP
  // columns and runs all of its group's rows; the FFN all-reduce sums them, no dispatch or
  // combine. Against EP over the same ranks: same routed FLOPs per GPU under uniform routing,
  // the same expert bytes per GPU, no EP communication.
  const ScenarioSpec s = testing::scenario("deepseek_v3", 4096, 4, "fp8");
  const auto model = testing::model("deepseek_v3");
  const Evaluator ev(s, model, testing::topology("gb200_nvl72"), 8);
  const Result tp = ev.evaluate(parse_plan("TP=8,EP=8,MOE=tp", 8));
  const Result ep = ev.evaluate(parse_plan("TP=8,EP=8", 8));
  ASSERT_TRUE(tp.feasible) << tp.reason;
  ASSERT_TRUE(ep.feasible) << ep.reason;
  EXPECT_EQ(tp.comm[static_cast<std::size_t>(CommKind::ep_dispatch)], 0.0);
  EXPECT_EQ(tp.comm[static_cast<std::size_t>(CommKind::ep_combine)], 0.0);
  EXPECT_GT(ep.comm[static_cast<std::size_t>(CommKind::ep_dispatch)], 0.0);
  EXPECT_GT(tp.comm[static_cast<std::size_t>(CommKind::tp_all_reduce)], 0.0);
  EXPECT_NEAR(tp.memory.weights, ep.memory.weights, 1e-9 * ep.memory.weights);
  EXPECT_DOUBLE_EQ(tp.expert_skew, 1.0);
  EXPECT_LT(tp.memory.comm_buffers, ep.memory.comm_buffers);
}

TEST(Search, TopPlansOfEqualLatencyKeepTheEnumerationOrder) {
  // Hybrid CP with no Ulysses part is the ring exactly: equal latencies, which the search's top
  // list must order as enumerate_plans lists them (std::sort's order of ties moved with other
  // plans).
  const ScenarioSpec s = testing::scenario("deepseek_v3", 4096, 64, "fp8");
  const Evaluator ev(s, testing::model("deepseek_v3"), testing::topology("gb200_nvl72"), 144);
  const std::vector<Plan> order = enumerate_plans(ev, 144);
  const std::vector<Result> top = search(ev, 144, order.size()).top;
  auto index = [&](const Result& r) {
    return std::find(order.begin(), order.end(), r.plan) - order.begin();
  };
  int ties = 0;
  for (std::size_t i = 1; i < top.size(); ++i)
    if (top[i].latency_s == top[i - 1].latency_s) {
      ++ties;
      EXPECT_LT(index(top[i - 1]), index(top[i])) << format_plan(top[i].plan);
    }
  EXPECT_GT(ties, 0);
}

TEST(Evaluate, LowPrecisionMatmulsPayForQuantizingTheirInputs) {
  // FP8 GEMMs read an FP8 copy of their BF16 input, written by a memory-bound quantization
  // kernel (3 B per value moved): elementwise time grows by at least those bytes at HBM speed.
  const auto model = testing::model("llama3_8b");
  const auto topo = testing::topology("dgx_h100");
  const Plan plan = parse_plan("TP=1,EP=1,CP=1", 1);
  const Result bf16 =
      Evaluator(testing::scenario("llama3_8b", 4096, 1, "bf16"), model, topo, 1).evaluate(plan);
  const Result fp8 =
      Evaluator(testing::scenario("llama3_8b", 4096, 1, "fp8"), model, topo, 1).evaluate(plan);
  ASSERT_TRUE(bf16.feasible && fp8.feasible);
  const std::size_t ew = static_cast<std::size_t>(ComputeClass::elementwise);
  // Inputs quantized per layer: q/k/v (one input of h), o_proj (H d = h), gate_up (h), down (I).
  const double h = 4096, inter = 14336, tokens = 4096, layers = 32;
  const double bytes = layers * tokens * (3 * h + inter) * 3.0;
  EXPECT_GT(fp8.compute[ew], bytes / topo.gpu.hbm_bandwidth.si()) << bf16.compute[ew];
}

// Issue 18 part 10: each assumption of the sensitivity table changes what it says and nothing
// else; compute_efficiency_half halves the kernel-table curves as well as the roofline ceiling.
TEST(Sensitivity, EachAssumptionChangesWhatItStates) {
  const ScenarioSpec base = testing::scenario("deepseek_v3", 4096, 64, "fp8");
  const auto m = testing::model("deepseek_v3");
  const std::vector<fabric::Topology> tops{testing::topology("hgx_h800")};
  const Plan plan = parse_plan("TP=1,EP=32", 32);
  const Result modelled = Evaluator(base, m, tops[0], 32).evaluate(plan);
  ASSERT_TRUE(modelled.feasible) << modelled.reason;
  const auto run = [&](const std::string& name) {
    ScenarioSpec s = base;
    std::vector<fabric::Topology> t = tops;
    apply_assumption(name, s, t);
    return std::make_pair(s, t);
  };
  {
    const auto [s, t] = run("as_modelled");
    EXPECT_EQ(Evaluator(s, m, t[0], 32).evaluate(plan).latency_s, modelled.latency_s);
  }
  {
    const auto [s, t] = run("compute_efficiency_half");
    const fabric::KernelEfficiency before(tops[0].gpu), after(t[0].gpu);
    const std::size_t fp8 = fabric::format_index("fp8");
    EXPECT_DOUBLE_EQ(after.compute(fabric::KernelClass::gemm, fp8, 4096, 7168, false, 1e12),
                     0.5 * before.compute(fabric::KernelClass::gemm, fp8, 4096, 7168, false, 1e12));
    EXPECT_DOUBLE_EQ(after.roofline(1e12), 0.5 * before.roofline(1e12));
    EXPECT_DOUBLE_EQ(after.memory(1e8), before.memory(1e8));  // memory-bound kernels keep theirs
    EXPECT_GT(Evaluator(s, m, t[0], 32).evaluate(plan).compute_total(),
              1.5 * modelled.compute_total());
  }
  {
    const auto [s, t] = run("free_overlap");
    EXPECT_EQ(s.ep_comm_sms, 0);
    EXPECT_FALSE(s.gemm_sm_cap);
    EXPECT_LT(Evaluator(s, m, t[0], 32).evaluate(plan).latency_s, modelled.latency_s);
  }
  EXPECT_FALSE(run("no_two_microbatch_overlap").first.two_microbatch_overlap);
  EXPECT_FALSE(run("no_ring_overlap").first.ring_overlap);
  const ScenarioSpec skew = run("skewed_routing").first, eplb = run("skewed_routing_eplb").first;
  EXPECT_EQ(skew.routing.distribution, RoutingDistribution::zipf);
  EXPECT_EQ(skew.routing.redundant_experts, 0);
  EXPECT_EQ(eplb.routing.redundant_experts, 32);
  EXPECT_GT(Evaluator(skew, m, tops[0], 32).evaluate(plan).expert_skew,
            Evaluator(eplb, m, tops[0], 32).evaluate(plan).expert_skew);
  ScenarioSpec s = base;
  std::vector<fabric::Topology> t = tops;
  try {
    apply_assumption("half_overlap", s, t);
    ADD_FAILURE() << "an unknown assumption was accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("'half_overlap'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("skewed_routing_eplb"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace lightsim::prefill
