// Plan text form and validity rules.
#include <gtest/gtest.h>

#include "lightsim/core/error.h"
#include "lightsim/prefill/plan.h"
#include "prefill_support.h"

namespace lightsim::prefill {
namespace {

TEST(Plan, ParsesKeysAndFillsDefaults) {
  const Plan p = parse_plan("TP=8, cp=4 ,EP=64,CPA=ulysses", 256);
  EXPECT_EQ(p.tp, 8);
  EXPECT_EQ(p.cp, 4);
  EXPECT_EQ(p.ep, 64);
  EXPECT_EQ(p.pp, 1);
  EXPECT_EQ(p.dp, 4);  // 256 / 64
  EXPECT_EQ(p.cp_algorithm, CpAlgorithm::ulysses);
  EXPECT_EQ(p.attention_dp(), 2);
  const Plan q = parse_plan("TP=2,CP=2", 0);
  EXPECT_EQ(q.ep, 4);  // EP defaults to TP x CP
  EXPECT_EQ(q.dp, 1);
  const Plan r = parse_plan("TP=1,EP=72,EDP=2,PP=2,MB=8,DP=3");
  EXPECT_EQ(r.gpus(), 72 * 2 * 2 * 3);
  EXPECT_EQ(parse_plan(format_plan(r)), r);
}

TEST(Plan, RejectsBadText) {
  EXPECT_THROW(parse_plan("TP=0"), UsageError);
  EXPECT_THROW(parse_plan("TP=2x"), UsageError);
  EXPECT_THROW(parse_plan("XP=2"), UsageError);
  EXPECT_THROW(parse_plan("TP"), UsageError);
  EXPECT_THROW(parse_plan("CPA=spiral"), UsageError);
  EXPECT_THROW(parse_plan("MOE=dp"), UsageError);
}

TEST(Plan, TpShardedMoeParsesAndRoundTrips) {
  const Plan p = parse_plan("TP=8,moe=TP", 8);
  EXPECT_TRUE(p.moe_tp);
  EXPECT_EQ(p.ep, 8);  // EP defaults to TP under MOE=tp
  EXPECT_EQ(format_plan(p), "TP=8,CP=1,EP=8,PP=1,DP=1,MOE=tp");
  EXPECT_EQ(parse_plan(format_plan(p), 8), p);
  EXPECT_FALSE(parse_plan("TP=8,MOE=ep", 8).moe_tp);
  EXPECT_EQ(format_plan(parse_plan("TP=8,MOE=ep", 8)), "TP=8,CP=1,EP=8,PP=1,DP=1");
}

TEST(Plan, UlyssesRejectedWhenDegreeExceedsHeads) {
  // DeepSeek-V3: 128 heads. Ulysses over CP ranks needs TP x CP head groups.
  const auto m = testing::model("deepseek_v3");
  const Evaluator ev(testing::scenario("deepseek_v3", 4096, 1, "fp8"), m,
                     testing::topology("seed_copper_1152"), 1152);
  Plan p = parse_plan("TP=1,CP=256,CPA=ulysses", 256);
  EXPECT_NE(ev.validate(p).find("Ulysses"), std::string::npos) << ev.validate(p);
  EXPECT_FALSE(ev.evaluate(p).feasible);
  p = parse_plan("TP=4,CP=64,CPA=ulysses", 256);  // 256 head groups > 128
  EXPECT_NE(ev.validate(p).find("128 heads"), std::string::npos) << ev.validate(p);
  p = parse_plan("TP=1,CP=128,CPA=ulysses", 128);  // exactly one head per rank
  EXPECT_EQ(ev.validate(p), "");
  p = parse_plan("TP=1,CP=256,CPA=ring_kv", 256);  // the ring has no head limit
  EXPECT_EQ(ev.validate(p), "");
}

TEST(Plan, ValidityRules) {
  const auto m = testing::model("deepseek_v3");
  const Evaluator ev(testing::scenario("deepseek_v3", 4096, 1, "fp8"), m,
                     testing::topology("seed_copper_1152"), 1152);
  EXPECT_NE(ev.validate(parse_plan("TP=3,EP=3")).find("heads"), std::string::npos);
  EXPECT_NE(ev.validate(parse_plan("TP=2,CP=2,EP=6")).find("multiple"), std::string::npos);
  EXPECT_NE(ev.validate(parse_plan("EP=512")).find("expert slots"), std::string::npos);
  EXPECT_NE(ev.validate(parse_plan("PP=64,EP=1,MB=64")).find("layers"), std::string::npos);
  EXPECT_NE(ev.validate(parse_plan("PP=4,EP=1,MB=2")).find("idle"), std::string::npos);
  EXPECT_NE(ev.validate(parse_plan("EP=1,DP=2304")).find("exceed"), std::string::npos);
  EXPECT_NE(ev.validate(parse_plan("TP=4,EP=8,MOE=tp")).find("EP must equal TP"),
            std::string::npos);
  EXPECT_EQ(ev.validate(parse_plan("TP=8,CP=2,EP=8,EDP=2,MOE=tp")), "");
}

}  // namespace
}  // namespace lightsim::prefill
