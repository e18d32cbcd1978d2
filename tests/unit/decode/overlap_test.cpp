// Two-batch overlap of a MoE decode layer (decode/overlap.h): the five-stage schedule's
// analytic limits, a hand-computed layer, and through the evaluator.
#include <gtest/gtest.h>

#include "lightsim/decode/overlap.h"
#include "lightsim/decode/scale.h"
#include "shipped_configs.h"

namespace lightsim::decode {
namespace {

DecodeTwoBatchLayer layer(double prepare, double core, double shared, double experts, double output,
                          double dispatch, double combine) {
  DecodeTwoBatchLayer l;
  l.prepare = prepare;
  l.core = core;
  l.shared = shared;
  l.experts = experts;
  l.output = output;
  l.dispatch = dispatch;
  l.combine = combine;
  return l;
}

TEST(DecodeTwoBatchOverlap, NoCommunicationIsTwiceTheHalfCompute) {
  const DecodeTwoBatchTime t = decode_two_batch_layer_time(layer(1, 2, 3, 4, 5, 0, 0));
  EXPECT_DOUBLE_EQ(t.layer, 30.0);
  EXPECT_EQ(t.exposed_dispatch, 0.0);
  EXPECT_EQ(t.exposed_combine, 0.0);
}

TEST(DecodeTwoBatchOverlap, NoComputeSerializesBothTransfersOfBothHalves) {
  const DecodeTwoBatchTime t = decode_two_batch_layer_time(layer(0, 0, 0, 0, 0, 3, 7));
  EXPECT_DOUBLE_EQ(t.layer, 2.0 * (3 + 7));
}

TEST(DecodeTwoBatchOverlap, TransfersWithinTheirHidingStagesCostNothing) {
  // Dispatch hides behind shared + prepare (1 + 2), combine behind core (4).
  const DecodeTwoBatchTime t = decode_two_batch_layer_time(layer(2, 4, 1, 5, 1, 3, 4));
  EXPECT_DOUBLE_EQ(t.layer, 2.0 * 13);
  EXPECT_EQ(t.exposed_dispatch + t.exposed_combine, 0.0);
}

TEST(DecodeTwoBatchOverlap, EachTransferHidesOnlyBehindItsOwnStages) {
  // The DeepSeek H800 decode profile's shape per micro-batch (us): prepare 60, core 340, shared
  // 30, experts 130, output 10, dispatch 190, combine 360. The routed experts (130 us) hide
  // nothing, so dispatch waits 190 - 90 = 100 us and combine 360 - 340 = 20 us, although the
  // half's compute (570 us) exceeds its communication (550 us).
  const DecodeTwoBatchTime t = decode_two_batch_layer_time(layer(60, 340, 30, 130, 10, 190, 360));
  EXPECT_DOUBLE_EQ(t.exposed_dispatch, 200.0);
  EXPECT_DOUBLE_EQ(t.exposed_combine, 40.0);
  EXPECT_DOUBLE_EQ(t.layer, 2.0 * 570 + 240);
  // A longer dispatch costs twice its excess (both halves wait).
  const DecodeTwoBatchTime longer =
      decode_two_batch_layer_time(layer(60, 340, 30, 130, 10, 200, 360));
  EXPECT_DOUBLE_EQ(longer.layer - t.layer, 20.0);
}

ScaleSetup setup(const std::string& scenario) {
  const config::LoadOptions load = lightsim::testing::shipped_configs();
  return prepare(load_scale_scenario(scenario, load), load);
}

TEST(DecodeTwoBatchOverlap, EvaluatorExposesTheTensorParallelAllReduceInFull) {
  ScaleSetup s = setup("qwen2_5_7b_h100");
  s.scenario.two_batch_overlap = true;
  const StepEvaluator ev(s);
  const StepBreakdown b = ev.step_time(parse_plan("TP=2,DPA=4"), 64, 4096);
  ASSERT_TRUE(b.feasible) << b.reason;
  const auto ar = static_cast<std::size_t>(Comm::tp_all_reduce);
  EXPECT_GT(b.comm[ar], 0.0);
  EXPECT_DOUBLE_EQ(b.exposed[ar], b.comm[ar]);
}

TEST(DecodeTwoBatchOverlap, EvaluatorHidesPartOfTheTransfersOnSglangH100) {
  // EP72 at 128 sequences per micro-batch: the combine outlasts the core stage (measured DeepEP
  // latencies, docs/decode.md), so some communication is exposed and some hidden.
  ScaleSetup s = setup("sglang_h100_ep72");
  const StepEvaluator ev(s);
  const DecodePlan p = parse_plan("TP=1,DPA=72,EP=72");
  const StepBreakdown b = ev.step_time(p, 72 * 256, 2000);
  ASSERT_TRUE(b.feasible) << b.reason;
  const auto d = static_cast<std::size_t>(Comm::ep_dispatch);
  const auto k = static_cast<std::size_t>(Comm::ep_combine);
  EXPECT_GT(b.exposed[d] + b.exposed[k], 0.0);
  EXPECT_LT(b.exposed[d] + b.exposed[k], b.comm[d] + b.comm[k]);
}

}  // namespace
}  // namespace lightsim::decode
