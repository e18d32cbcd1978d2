// Analytic limits of the two-micro-batch overlap (overlap.h, docs/prefill.md), on the schedule
// alone and through the evaluator.
#include <gtest/gtest.h>

#include "../../unit/prefill/prefill_support.h"
#include "lightsim/core/error.h"
#include "lightsim/prefill/overlap.h"

namespace lightsim::prefill {
namespace {

TwoBatchLayer layer(double attention, double shared, double experts, double dispatch,
                    double combine, double sm_share) {
  TwoBatchLayer l;
  l.attention = attention;
  l.shared = shared;
  l.experts = experts;
  l.dispatch = dispatch;
  l.combine = combine;
  l.sm_share = sm_share;
  return l;
}

double exposed(const TwoBatchTime& t) {
  return t.exposed_dispatch + t.exposed_combine;
}

TEST(TwoBatchOverlap, BalancedHalvesWithoutSmShareGiveTheIdealMax) {
  // Attention = routed experts, no shared experts, dispatch = combine: every stage pairs equal
  // compute with equal communication, so the layer takes max(C, X), C = 2 (a + e), X = 2 (d + c).
  for (const double x : {0.1, 0.5, 1.0, 2.0, 5.0}) {
    const TwoBatchTime t = two_batch_layer_time(layer(1.0, 0.0, 1.0, x, x, 0.0));
    EXPECT_NEAR(t.layer, std::max(4.0, 4.0 * x), 1e-12) << x;
  }
}

TEST(TwoBatchOverlap, ShortCommunicationExposesExactlyItsSmShare) {
  // Every transfer far shorter than the compute beside it: exposed = share x X.
  const double share = 20.0 / 132.0;
  const TwoBatchTime t = two_batch_layer_time(layer(1.0, 0.1, 1.0, 0.01, 0.02, share));
  EXPECT_NEAR(exposed(t), share * 2 * (0.01 + 0.02), 1e-15);
  EXPECT_NEAR(t.exposed_dispatch, share * 0.02, 1e-15);
  EXPECT_NEAR(t.layer, 2 * 2.1 + exposed(t), 1e-12);
  // Without communication SMs the same layer hides it completely.
  EXPECT_EQ(exposed(two_batch_layer_time(layer(1.0, 0.1, 1.0, 0.01, 0.02, 0.0))), 0.0);
}

TEST(TwoBatchOverlap, LongCommunicationExposesWhatComputeCannotCover) {
  // Every transfer longer than its stage's compute / (1 - share): exposed = X - C.
  const TwoBatchTime t = two_batch_layer_time(layer(0.1, 0.05, 0.1, 1.0, 2.0, 0.15));
  EXPECT_NEAR(exposed(t), 2 * (1.0 + 2.0) - 2 * (0.1 + 0.05 + 0.1), 1e-12);
  EXPECT_NEAR(t.layer, 2 * (1.0 + 2.0), 1e-12);
}

TEST(TwoBatchOverlap, AllSmsToCommunicationHidesNothing) {
  const TwoBatchTime t = two_batch_layer_time(layer(0.7, 0.1, 0.4, 0.3, 0.6, 1.0));
  EXPECT_NEAR(t.layer, 2 * (0.7 + 0.1 + 0.4) + 2 * (0.3 + 0.6), 1e-12);
}

TEST(TwoBatchOverlap, UnbalancedStagesHideLessThanTheIdealMax) {
  // Long attention, short experts: the dispatch beside the experts is exposed although the
  // layer's compute exceeds its communication (max(C, X) would hide it all).
  const TwoBatchTime t = two_batch_layer_time(layer(2.0, 0.0, 0.2, 0.5, 0.5, 0.0));
  const double C = 2 * 2.2, X = 2 * 1.0;
  EXPECT_GT(C, X);
  EXPECT_NEAR(exposed(t), 2 * (0.5 - 0.2), 1e-12);
  EXPECT_GT(t.layer, std::max(C, X));
}

// Through the evaluator: DeepSeek-V3 at EP8 inside one GB200 NVL72 domain, two-micro-batch
// overlap.
struct Ep8 {
  ScenarioSpec s = testing::scenario("deepseek_v3", 4096, 16, "fp8");
  fabric::Topology t = testing::topology("gb200_nvl72");
  Result run() const {
    const Evaluator ev(s, testing::model("deepseek_v3"), t, 8);
    return ev.evaluate(parse_plan("TP=1,EP=8", 8));
  }
};

std::size_t idx(CommKind k) {
  return static_cast<std::size_t>(k);
}
double ep_exposed(const Result& r) {
  return r.exposed[idx(CommKind::ep_dispatch)] + r.exposed[idx(CommKind::ep_combine)];
}
double ep_time(const Result& r) {
  return r.comm[idx(CommKind::ep_dispatch)] + r.comm[idx(CommKind::ep_combine)];
}

TEST(TwoBatchOverlap, EvaluatorChargesTheSmShareOfHiddenCommunication) {
  Ep8 base;
  base.t.gpu.sm_count = 132;
  base.s.ep_comm_sms = 0;
  const Result free = base.run();
  ASSERT_TRUE(free.feasible) << free.reason;
  Ep8 taxed = base;
  taxed.s.ep_comm_sms = 20;
  taxed.s.gemm_sm_cap = false;  // the share is taken only while a transfer runs
  const Result r = taxed.run();
  ASSERT_TRUE(r.feasible) << r.reason;
  // NVLink inside the domain: the all-to-all is far shorter than the compute beside it, so
  // with no communication SMs it hides completely and with 20 of 132 exactly 20/132 of it
  // is exposed.
  EXPECT_EQ(ep_exposed(free), 0.0);
  EXPECT_GT(ep_time(r), 0.0);
  EXPECT_NEAR(ep_exposed(r), 20.0 / 132.0 * ep_time(r), 1e-9 * ep_time(r));
  EXPECT_NEAR(r.latency_s - free.latency_s, ep_exposed(r), 1e-9 * r.latency_s);
  // A GPU without an SM count: communication takes no SMs.
  Ep8 unknown = taxed;
  unknown.t.gpu.sm_count = 0;
  EXPECT_EQ(ep_exposed(unknown.run()), 0.0);
}

TEST(TwoBatchOverlap, GemmCapSlowsEveryGemmByTheSmShare) {
  // SGLang's DeepGEMM cap: GEMMs run on (1 - share) of the SMs for the whole layer. With
  // transfers far shorter than the GEMMs beside them, the layer exposes exactly
  // share / (1 - share) of its GEMM time; the non-GEMM attention part loses nothing.
  const double share = 20.0 / 132.0;
  TwoBatchLayer l = layer(1.0, 0.1, 1.0, 0.01, 0.02, share);
  l.gemm_sm_cap = true;
  l.attention_gemm = 0.4;
  const double gemm = 2 * (0.4 + 0.1 + 1.0);
  EXPECT_NEAR(exposed(two_batch_layer_time(l)), gemm * share / (1 - share), 1e-12);
  // Transfers far longer than the compute: the cap changes nothing, the wire sets the time.
  l.dispatch = l.combine = 50.0;
  TwoBatchLayer uncapped = l;
  uncapped.gemm_sm_cap = false;
  EXPECT_NEAR(two_batch_layer_time(l).layer, two_batch_layer_time(uncapped).layer, 1e-12);
  // No share, no cap effect.
  l.sm_share = 0;
  l.dispatch = 0.01;
  l.combine = 0.02;
  EXPECT_EQ(exposed(two_batch_layer_time(l)), 0.0);
}

TEST(TwoBatchOverlap, EvaluatorGemmCapCostsMoreThanTheShareBesideTransfers) {
  Ep8 base;
  base.t.gpu.sm_count = 132;
  base.s.ep_comm_sms = 20;
  base.s.gemm_sm_cap = false;
  const Result share_only = base.run();
  Ep8 capped = base;
  capped.s.gemm_sm_cap = true;
  const Result r = capped.run();
  ASSERT_TRUE(r.feasible) << r.reason;
  EXPECT_GT(r.latency_s, share_only.latency_s);
  EXPECT_NEAR(r.latency_s - share_only.latency_s, ep_exposed(r) - ep_exposed(share_only),
              1e-9 * r.latency_s);
}

TEST(TwoBatchOverlap, EvaluatorWithoutOverlapExposesEveryTransfer) {
  Ep8 off;
  off.s.two_microbatch_overlap = false;
  const Result r = off.run();
  ASSERT_TRUE(r.feasible) << r.reason;
  EXPECT_GT(ep_time(r), 0.0);
  EXPECT_DOUBLE_EQ(ep_exposed(r), ep_time(r));
}

TEST(TwoBatchOverlap, MoreCommunicationSmsThanTheGpuHasIsAConfigError) {
  Ep8 bad;
  bad.s.ep_comm_sms = 200;
  EXPECT_THROW(bad.run(), ConfigError);
}

}  // namespace
}  // namespace lightsim::prefill
