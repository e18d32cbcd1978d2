// Decode at scale (scale.h, plan_search.h): analytic limits (infinite bandwidth leaves the
// roofline sum, EP=1 and MOE=tp have no all-to-all, KV bytes linear in context), agreement with
// the model's own cost analysis, the HBM capacity edge, the plan search and bad plans.
#include <gtest/gtest.h>

#include "lightsim/core/error.h"
#include "lightsim/decode/plan_search.h"
#include "lightsim/decode/scale.h"
#include "lightsim/model/cost.h"
#include "shipped_configs.h"

namespace lightsim::decode {
namespace {

ScaleSetup scale_setup(const std::string& scenario) {
  const config::LoadOptions load = lightsim::testing::shipped_configs();
  return prepare(load_scale_scenario(scenario, load), load);
}

// Every tier with unbounded bandwidth and no latency, no DeepEP fixed cost.
void infinite_bandwidth(ScaleSetup& s) {
  for (auto& t : s.topology.tiers) {
    t.bandwidth = t.line_bandwidth = 1e30;
    t.alpha = 0;
  }
  s.topology.expert_low_latency_overhead = 0;
}

TEST(DecodeScale, InfiniteBandwidthLeavesTheRooflineSum) {
  ScaleSetup s = scale_setup("sglang_h100_ep72");
  infinite_bandwidth(s);
  s.scenario.two_batch_overlap = false;
  s.scenario.graph_kernel_gap = Time::si(0);
  s.scenario.graph_launch = Time::si(0);
  const StepEvaluator ev(s);
  const StepBreakdown b = ev.step_time(parse_plan("TP=1,DPA=72,EP=72"), 72 * 64, 2000);
  ASSERT_TRUE(b.feasible) << b.reason;
  double comm = 0;
  for (double c : b.comm) comm += c;
  EXPECT_LT(comm, 1e-12 * b.step_time);
  EXPECT_DOUBLE_EQ(b.launch, 0.0);
  EXPECT_NEAR(b.step_time, b.compute_total(), 1e-12 * b.step_time);
}

TEST(DecodeScale, NoAllToAllWithoutExpertParallelism) {
  const StepEvaluator dense(scale_setup("qwen2_5_7b_h100"));
  const StepBreakdown d = dense.step_time(parse_plan("TP=2,DPA=4", 8), 64, 8192);
  ASSERT_TRUE(d.feasible) << d.reason;
  EXPECT_EQ(d.plan.ep, 1);
  EXPECT_EQ(d.comm[static_cast<std::size_t>(Comm::ep_dispatch)], 0.0);
  EXPECT_EQ(d.comm[static_cast<std::size_t>(Comm::ep_combine)], 0.0);
  EXPECT_GT(d.comm[static_cast<std::size_t>(Comm::tp_all_reduce)], 0.0);

  ScaleSetup big = scale_setup("deepseek_v3_photonic_1152");
  const StepEvaluator moe(big);
  const StepBreakdown t = moe.step_time(parse_plan("TP=8,DPA=1,MOE=tp", 8), 64, 4096);
  ASSERT_TRUE(t.feasible) << t.reason;
  EXPECT_EQ(t.comm[static_cast<std::size_t>(Comm::ep_dispatch)], 0.0);
  const StepBreakdown e = moe.step_time(parse_plan("TP=1,DPA=8,EP=8", 8), 64, 4096);
  ASSERT_TRUE(e.feasible) << e.reason;
  EXPECT_GT(e.comm[static_cast<std::size_t>(Comm::ep_dispatch)], 0.0);
  // EP=1: every rank holds every expert (an HBM large enough for it), no dispatch or combine.
  big.topology.gpu.hbm_capacity = DataSize::si(4e12);
  const StepBreakdown one =
      StepEvaluator(big).step_time(parse_plan("TP=1,DPA=8,EP=1", 8), 64, 4096);
  ASSERT_TRUE(one.feasible) << one.reason;
  EXPECT_EQ(one.comm[static_cast<std::size_t>(Comm::ep_dispatch)], 0.0);
  EXPECT_EQ(one.comm[static_cast<std::size_t>(Comm::ep_combine)], 0.0);
}

TEST(DecodeScale, PipelineStagesSplitTheWeightsAndBoundTheRound) {
  const StepEvaluator ev(scale_setup("qwen2_5_7b_h100"));
  const StepBreakdown one = ev.step_time(parse_plan("TP=1,DPA=1,PP=1"), 32, 8192);
  const StepBreakdown two = ev.step_time(parse_plan("TP=1,DPA=1,PP=2"), 32, 8192);
  ASSERT_TRUE(one.feasible && two.feasible) << one.reason << two.reason;
  // 28 layers in two stages of 14; the embedding and the head sit on different stages.
  EXPECT_LT(two.memory.weights, 0.6 * one.memory.weights);
  EXPECT_GT(two.memory.max_batch, one.memory.max_batch);
  EXPECT_GT(two.comm[static_cast<std::size_t>(Comm::pp_send)], 0.0);
  EXPECT_GE(two.pipeline_wait, 0.0);
  // Two micro-batches of 16 in flight: each round serves all 32 sequences once.
  EXPECT_NEAR(two.tokens_per_s, 32.0 / two.step_time, 1e-9 * two.tokens_per_s);
}

TEST(DecodeScale, DoublingContextDoublesTheKvRead) {
  for (const char* name : {"qwen2_5_7b_h100", "sglang_h100_ep72"}) {
    const StepEvaluator ev(scale_setup(name));
    const DecodePlan p =
        parse_plan(ev.setup().scenario.plan.empty() ? "TP=1,DPA=8" : ev.setup().scenario.plan);
    const StepBreakdown a = ev.step_time(p, p.dpa * 16, 4096);
    const StepBreakdown b = ev.step_time(p, p.dpa * 16, 8192);
    ASSERT_TRUE(a.feasible && b.feasible) << a.reason << b.reason;
    EXPECT_NEAR(b.kv_bytes_read, 2.0 * a.kv_bytes_read, 1e-9 * b.kv_bytes_read) << name;
    EXPECT_NEAR(b.memory.kv_per_sequence, 2.0 * a.memory.kv_per_sequence,
                1e-9 * b.memory.kv_per_sequence);
    if (std::string(name) == "qwen2_5_7b_h100") {  // GQA decode: the core is memory bound
      const double ta = a.compute[static_cast<std::size_t>(Part::attention_core)];
      const double tb = b.compute[static_cast<std::size_t>(Part::attention_core)];
      EXPECT_NEAR(tb / ta, 2.0, 0.1);
    }
  }
}

TEST(DecodeScale, OneGpuFlopsMatchTheModelAnalysisAtAnyContext) {
  // Workload::decode(c - 1) attends to c keys, as the single-GPU decode model counts context.
  const ScaleSetup s = scale_setup("qwen2_5_7b_h100");  // analysed at its context, 8192
  const StepEvaluator ev(s);
  for (std::int64_t context : {1000, 8192, 30000}) {
    const StepBreakdown b = ev.step_time(parse_plan("TP=1,DPA=1"), 3, context);
    ASSERT_TRUE(b.feasible) << b.reason;
    const model::CostReport r =
        model::analyze(s.model, s.scenario.dtypes, model::Workload::decode(context - 1, 3));
    EXPECT_NEAR(b.flops, r.flops, 1e-9 * r.flops) << context;
  }
}

TEST(DecodeScale, KvCapacityIsTheEdgeOfFeasibility) {
  const StepEvaluator ev(scale_setup("sglang_h100_ep72"));
  const DecodePlan p = parse_plan("TP=1,DPA=72,EP=72");
  const DecodeMemory m = ev.memory(p, 32768);
  ASSERT_GT(m.max_batch, 0);
  EXPECT_TRUE(ev.step_time(p, m.max_batch, 32768).feasible);
  const StepBreakdown over = ev.step_time(p, m.max_batch + 72, 32768);
  EXPECT_FALSE(over.feasible);
  EXPECT_NE(over.reason.find("exceed"), std::string::npos) << over.reason;
  EXPECT_NEAR(m.weights + m.kv_per_sequence * static_cast<double>(m.max_batch / p.dpa), m.capacity,
              m.kv_per_sequence);
}

TEST(DecodeScale, AttentionCoreIsOneFusedKernel) {
  // FlashMLA-style fusion: the core takes max(FLOPs time, KV bytes time) over its products, so
  // it equals the larger of its compute-only (unbounded HBM) and memory-only (unbounded peak)
  // limits, and is less than their sum.
  ScaleSetup s = scale_setup("sglang_h100_ep72");
  s.scenario.two_batch_overlap = false;
  const DecodePlan p = parse_plan("TP=1,DPA=72,EP=72");
  const auto core = [&](const ScaleSetup& x) {
    const StepBreakdown b = StepEvaluator(x).step_time(p, 72 * 256, 2000);
    EXPECT_TRUE(b.feasible) << b.reason;
    return b.compute[static_cast<std::size_t>(Part::attention_core)];
  };
  ScaleSetup fast_memory = s, fast_math = s;
  fast_memory.topology.gpu.hbm_bandwidth = Bandwidth::si(1e30);
  fast_math.topology.gpu.peak_bf16 = FlopRate::si(1e30);
  const double both = core(s), compute = core(fast_memory), memory = core(fast_math);
  ASSERT_GT(compute, 0.0);
  ASSERT_GT(memory, 0.0);
  EXPECT_NEAR(both, std::max(compute, memory), 1e-9 * both);
  EXPECT_LT(both, compute + memory);
}

TEST(DecodeScale, TwoBatchOverlapHidesCommunicationUpToCompute) {
  ScaleSetup s = scale_setup("sglang_h100_ep72");
  const StepEvaluator with(s);
  s.scenario.two_batch_overlap = false;
  const StepEvaluator without(s);
  const DecodePlan p = parse_plan("TP=1,DPA=72,EP=72");
  const StepBreakdown a = with.step_time(p, 72 * 256, 2000);
  const StepBreakdown b = without.step_time(p, 72 * 256, 2000);
  ASSERT_TRUE(a.feasible && b.feasible);
  EXPECT_LT(a.exposed_total(), a.comm[1] + a.comm[2]);  // some communication is hidden
  EXPECT_DOUBLE_EQ(b.exposed_total(), b.comm[1] + b.comm[2]);
}

TEST(DecodeScale, MtpDividesTheTimePerToken) {
  const StepBreakdown b = StepEvaluator(scale_setup("deepseek_v3_h800_ep144"))
                              .step_time(parse_plan("TP=1,DPA=144,EP=144"), 144 * 64, 4096);
  ASSERT_TRUE(b.feasible) << b.reason;
  EXPECT_GT(b.mtp_draft, 0.0);
  EXPECT_NEAR(b.tpot, b.step_time / 1.875, 1e-12);
}

TEST(DecodeScale, SearchMeetsTheTargetAndRanksByThroughput) {
  const StepEvaluator ev(scale_setup("qwen2_5_7b_h100"));
  const DecodeSearchResult r = search(ev, 8, 8192, 20e-3, 0, 5);
  ASSERT_TRUE(r.best.feasible) << r.best.reason;
  ASSERT_FALSE(r.top.empty());
  for (std::size_t i = 0; i < r.top.size(); ++i) {
    EXPECT_LE(r.top[i].tpot, 20e-3);
    if (i > 0) {
      EXPECT_GE(r.top[i - 1].tokens_per_s_per_gpu, r.top[i].tokens_per_s_per_gpu);
    }
  }
  // The best batch is the largest meeting the target: one more sequence per group misses it
  // or does not fit.
  const DecodePlan p = r.best.plan;
  const StepBreakdown more = ev.step_time(p, r.best.batch + p.dpa * p.pp, 8192);
  EXPECT_TRUE(!more.feasible || more.tpot > 20e-3);
  const DecodeSearchResult again = search(ev, 8, 8192, 20e-3, 0, 5);
  EXPECT_EQ(again.best.plan, r.best.plan);
  EXPECT_EQ(again.best.step_time, r.best.step_time);
}

TEST(DecodeScale, BadPlansAreReported) {
  EXPECT_THROW(parse_plan("TP=0"), UsageError);
  EXPECT_THROW(parse_plan("XY=2"), UsageError);
  EXPECT_THROW(parse_plan("TP"), UsageError);
  EXPECT_THROW(parse_plan("TP=3", 8), UsageError);
  EXPECT_THROW(parse_plan("MOE=xx"), UsageError);
  const StepEvaluator ev(scale_setup("qwen2_5_7b_h100"));
  EXPECT_NE(ev.validate(parse_plan("TP=1,DPA=8,EP=8")).find("dense"), std::string::npos);
  EXPECT_NE(ev.validate(parse_plan("TP=16,DPA=1")).find("heads"), std::string::npos);
  const StepBreakdown b = ev.step_time(parse_plan("TP=1,DPA=4096"), 4096, 1024);
  EXPECT_FALSE(b.feasible);
  EXPECT_NE(b.reason.find("exceed"), std::string::npos);
}

}  // namespace
}  // namespace lightsim::decode
