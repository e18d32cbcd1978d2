// Monte-Carlo voting: one vote is a single evaluation (bit for bit), voting changes nothing
// when there is no noise, and with strong detector noise it recovers more of the noiseless
// ranking than one evaluation does.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>

#include "../kv/kv_test_util.h"
#include "lightsim/kv/blocks.h"
#include "lightsim/prism/selection_eval.h"
#include "lightsim/prism/voting.h"
#include "shipped_configs.h"

namespace lightsim::prism {
namespace {

AcceleratorSpec accelerator(int votes, bool noise) {
  AcceleratorSpec a = config::load_spec<AcceleratorSpec>(
      std::filesystem::path(LIGHTSIM_SOURCE_DIR) / "configs/accelerators/seed_fit.yaml",
      testing::shipped_configs());
  a.programming.weight_bits = 4;
  a.selection.top_k = 8;
  a.selection.votes = votes;
  a.impairments.noise = noise;
  return a;
}

struct VotingFixture {
  kv::KvCache cache = kv::testing::random_cache({1, 1, 2, 64, 128 * 16, 8}, 3);
  kv::BlockLayout layout{128 * 16, kv::BlockOptions{16, 4, 64}};
  kv::ProjectionMatrix p{32, 64, std::vector<float>(32 * 64)};
  VotingFixture() { RandomStream(5, {0}).fill_normal(std::span<float>(p.rows)); }
  std::vector<std::vector<float>> run(const AcceleratorSpec& a) {
    const kv::HeadView head = cache.head(0, 0);
    FixedProjectionPrism prism(a, p, head, layout, {0, 0, 7});
    std::vector<std::vector<float>> out;
    for (std::size_t s = 0; s < head.steps; ++s) {
      out.emplace_back(layout.blocks());
      prism.score(s, out.back());
    }
    return out;
  }
};

TEST(VoteCounter, OneVoteRanksAsItsScores) {
  const kv::BlockLayout layout(64 * 8, kv::BlockOptions{8, 4, 16});
  std::vector<float> s(layout.blocks());
  RandomStream(1, {2}).fill_normal(std::span<float>(s));
  s[10] = s[11];  // a tie, broken by the lower index
  VoteCounter v(layout.blocks(), layout.candidates(), 8);
  v.add(s);
  const auto top = kv::top_k_blocks(s, layout, 8);
  const auto& ranked = v.ranking();
  ASSERT_GE(ranked.size(), 8u);
  EXPECT_EQ(std::vector<std::size_t>(ranked.begin(), ranked.begin() + 8), top);
  std::vector<float> out(layout.blocks());
  v.rank_scores(out);
  EXPECT_EQ(kv::top_k_blocks(out, layout, 8), top);
  EXPECT_DOUBLE_EQ(v.confidence(top[0]), 1.0);
}

TEST(Voting, OneVoteIsASingleEvaluationBitForBit) {
  VotingFixture f;
  const auto single = f.run(accelerator(1, true));
  // The same single evaluation fed through the counter ranks as its own top-k.
  for (const auto& s : single) {
    VoteCounter v(f.layout.blocks(), f.layout.candidates(), 8);
    v.add(s);
    std::vector<float> out(s.size());
    v.rank_scores(out);
    EXPECT_EQ(kv::top_k_blocks(out, f.layout, 8), kv::top_k_blocks(s, f.layout, 8));
  }
  EXPECT_EQ(f.run(accelerator(1, true)), single);  // deterministic
}

TEST(Voting, NoNoiseMeansVotingChangesNothing) {
  VotingFixture f;
  const auto single = f.run(accelerator(1, false));
  const auto voted = f.run(accelerator(9, false));
  for (std::size_t s = 0; s < single.size(); ++s)
    for (std::size_t k : {1, 4, 8})
      EXPECT_EQ(kv::top_k_blocks(voted[s], f.layout, k), kv::top_k_blocks(single[s], f.layout, k))
          << "step " << s << " k " << k;
}

TEST(Voting, RecoversTheNoiselessRankingUnderStrongNoise) {
  VotingFixture f;
  const auto clean = f.run(accelerator(1, false));
  const std::vector<double> mass(f.layout.blocks(), 1.0);
  const auto recall = [&](const std::vector<std::vector<float>>& s) {
    double r = 0;
    for (std::size_t i = 0; i < clean.size(); ++i)
      r += selection_sample(s[i], clean[i], mass, f.layout, 8).recall;
    return r / static_cast<double>(clean.size());
  };
  // Detector NEP alone (every other noise term and the ADC off): the first NEP at which one
  // evaluation recalls between 0.3 and 0.8 of the noiseless top-8.
  for (double nep : {3e-9, 1e-9, 5e-10, 3e-10, 2e-10, 1e-10, 5e-11, 3e-11, 2e-11, 1e-11}) {
    AcceleratorSpec a1 = accelerator(1, true), a25 = accelerator(25, true);
    for (AcceleratorSpec* a : {&a1, &a25}) {
      a->device.noise = photonics::NoiseSpec{false, false, false, true, false, false};
      a->device.detector.nep = PowerNoiseDensity::si(nep);
    }
    const double r1 = recall(f.run(a1));
    if (r1 < 0.3 || r1 > 0.8) continue;
    const double r25 = recall(f.run(a25));
    std::printf("NEP %.0e: recall@8 vs noiseless, 1 vote %.3f, 25 votes %.3f\n", nep, r1, r25);
    EXPECT_GT(r25, r1 + 0.1);
    return;
  }
  FAIL() << "no NEP in the list puts one evaluation between 0.3 and 0.8 recall";
}

TEST(VotingCost, ScalesWithVotes) {
  CostReport c;
  c.dynamic_energy = 2e-9;
  c.timeline.latency = 10e-9;
  c.timeline.interval = 4e-9;
  c.tec_over_latency = 1e-8;
  const VotingCost v = voting_cost(c, 50);
  EXPECT_DOUBLE_EQ(v.dynamic_energy, 100e-9);
  EXPECT_DOUBLE_EQ(v.latency, 500e-9);
  EXPECT_DOUBLE_EQ(v.pipelined_latency, 10e-9 + 49 * 4e-9);
  EXPECT_DOUBLE_EQ(v.energy_with_tec, 50 * (2e-9 + 1e-8));
  EXPECT_THROW(voting_cost(c, 0), InputError);
}

}  // namespace
}  // namespace lightsim::prism
