// Analytic limits of the prefill step-time model (docs/prefill.md).
#include <gtest/gtest.h>

#include "../../unit/prefill/prefill_support.h"
#include "lightsim/fabric/collective.h"
#include "lightsim/fabric/kernels.h"
#include "lightsim/model/params.h"
#include "lightsim/prefill/evaluate.h"

namespace lightsim::prefill {
namespace {

// One tier of n GPUs with the given per-GPU bandwidth and no latency; default GPU spec.
fabric::Topology flat(std::int64_t n, double bandwidth) {
  fabric::Topology t;
  t.name = "flat";
  fabric::Tier tier;
  tier.name = "t0";
  tier.domain_size = n;
  tier.bandwidth = tier.line_bandwidth = bandwidth;
  tier.alpha = 0;
  t.tiers.push_back(tier);
  return t;
}

// Ring pass-KV on a dense GQA model: per layer, CP - 1 steps each moving one rank's K/V block,
// each overlapped with 1/CP of the attention products. Closed form (docs/prefill.md):
// exposed = L (CP - 1) max(0, t_step - t_core / CP), t_step = block bytes / bandwidth.
void check_ring(double bandwidth, std::int64_t tokens, bool expect_hidden) {
  const std::int64_t cp = 8;
  const auto m = testing::model("llama3_8b");
  const ScenarioSpec s = testing::scenario("llama3_8b", tokens, 1, "bf16");
  const fabric::Topology t = flat(cp, bandwidth);
  const Evaluator ev(s, m, t, cp);
  const Result r = ev.evaluate(parse_plan("TP=1,CP=8,CPA=ring_kv", cp));
  ASSERT_TRUE(r.feasible) << r.reason;
  const double L = static_cast<double>(m.layers.size());
  const double block = static_cast<double>(tokens) / cp *
                       static_cast<double>(model::kv_values_per_token_per_layer(m)) * 2.0;
  const double step = fabric::collective(t, fabric::CollectiveOp::send_recv, cp, block).time;
  const double core = r.compute[static_cast<std::size_t>(ComputeClass::attention_core)] / L;
  const double expected = L * (cp - 1) * std::max(0.0, step - core / cp);
  const double exposed = r.exposed[static_cast<std::size_t>(CommKind::cp_ring)];
  EXPECT_NEAR(exposed, expected, 1e-9 * (expected + r.latency_s));
  EXPECT_DOUBLE_EQ(r.comm[static_cast<std::size_t>(CommKind::cp_ring)], L * (cp - 1) * step);
  EXPECT_EQ(exposed == 0.0, expect_hidden) << "step " << step << " core/CP " << core / cp;
  EXPECT_EQ(step <= core / cp, expect_hidden);
}

TEST(RingAttention, HidesCommunicationExactlyWhenTheClosedFormSaysSo) {
  check_ring(900e9, 131072, true);  // long blocks: quadratic compute outgrows the KV transfer
  check_ring(1e9, 8192, false);     // slow link: the transfer is exposed by the closed form
}

TEST(RingAttention, EveryRingStepMergesItsPartialOutput) {
  // Pass-KV ring of CP ranks: CP - 1 log-sum-exp merges per layer of the rank's S / CP queries
  // x H heads x d values, 3 x 2 B each, memory-bound. Ulysses over the same ranks has none;
  // every other elementwise operator is the same in both, so the difference is the merges.
  const std::int64_t cp = 8, tokens = 32768;
  const auto m = testing::model("llama3_8b");
  const ScenarioSpec s = testing::scenario("llama3_8b", tokens, 1, "bf16");
  const fabric::Topology t = flat(cp, 900e9);
  const Evaluator ev(s, m, t, cp);
  const Result ring = ev.evaluate(parse_plan("TP=1,CP=8,CPA=ring_kv", cp));
  const Result uly = ev.evaluate(parse_plan("TP=1,CP=8,CPA=ulysses", cp));
  ASSERT_TRUE(ring.feasible && uly.feasible) << ring.reason << uly.reason;
  const double bytes = static_cast<double>(tokens) / cp *
                       static_cast<double>(m.attention.heads * m.attention.head_dim) * 6.0;
  const fabric::KernelEfficiency k(t.gpu);
  const double merge = bytes / (t.gpu.hbm_bandwidth.si() * k.memory(bytes));
  const double L = static_cast<double>(m.layers.size());
  const std::size_t ew = static_cast<std::size_t>(ComputeClass::elementwise);
  EXPECT_NEAR(ring.compute[ew] - uly.compute[ew], L * (cp - 1) * merge, 1e-9 * ring.latency_s);
}

TEST(RingAttention, WithoutOverlapEverythingIsExposed) {
  ScenarioSpec s = testing::scenario("llama3_8b", 131072, 1, "bf16");
  s.ring_overlap = false;
  const Evaluator ev(s, testing::model("llama3_8b"), flat(8, 900e9), 8);
  const Result r = ev.evaluate(parse_plan("TP=1,CP=8", 8));
  ASSERT_TRUE(r.feasible) << r.reason;
  const auto k = static_cast<std::size_t>(CommKind::cp_ring);
  EXPECT_GT(r.comm[k], 0.0);
  EXPECT_DOUBLE_EQ(r.exposed[k], r.comm[k]);
}

TEST(Pipeline, FillFollowsGPipe) {
  // Dense model, PP stages of equal layers: latency = sum(stages) + (MB - 1) max(stage).
  const ScenarioSpec s = testing::scenario("llama3_8b", 8192, 8, "bf16");
  const Evaluator ev(s, testing::model("llama3_8b"), flat(8, 1e15), 8);
  const Result one = ev.evaluate(parse_plan("TP=1,PP=1,MB=8,DP=1", 1));
  const Result pipe = ev.evaluate(parse_plan("TP=1,PP=4,MB=8,DP=1", 4));
  ASSERT_TRUE(one.feasible && pipe.feasible) << one.reason << pipe.reason;
  // 32 layers + embedding/head: four stages of 8 layers; bubble (PP-1)/(MB+PP-1) of the
  // balanced pipeline up to the edge layers' imbalance.
  EXPECT_NEAR(pipe.bubble_fraction, 3.0 / 11.0, 0.02);
  EXPECT_NEAR(pipe.latency_s, one.latency_s / 4 * 11.0 / 8.0, 0.03 * pipe.latency_s);
}

TEST(Scaling, DataParallelWeakScalingIsExact) {
  // Independent replicas: twice the GPUs for twice the requests, same latency and tokens/s
  // per GPU; for a fixed batch, twice the replicas take at most half the time plus the
  // per-launch (weight) terms that one request per replica no longer amortizes.
  const auto m = testing::model("llama3_8b");
  const fabric::Topology t = flat(16, 900e9);
  const Result a = Evaluator(testing::scenario("llama3_8b", 8192, 8, "bf16"), m, t, 16)
                       .evaluate(parse_plan("TP=1,DP=8", 8));
  const Result b = Evaluator(testing::scenario("llama3_8b", 8192, 16, "bf16"), m, t, 16)
                       .evaluate(parse_plan("TP=1,DP=16", 16));
  ASSERT_TRUE(a.feasible && b.feasible);
  EXPECT_NEAR(b.latency_s, a.latency_s, 1e-12 * a.latency_s);
  EXPECT_NEAR(b.tokens_per_s_per_gpu, a.tokens_per_s_per_gpu, 1e-9 * a.tokens_per_s_per_gpu);
  const Evaluator ev(testing::scenario("llama3_8b", 8192, 16, "bf16"), m, t, 16);
  const Result c = ev.evaluate(parse_plan("TP=1,DP=8", 8));
  EXPECT_GE(b.latency_s, c.latency_s / 2);
  EXPECT_LT(b.latency_s, c.latency_s / 2 * 1.05);
}

}  // namespace
}  // namespace lightsim::prefill
