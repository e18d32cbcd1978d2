// Monte-Carlo voting ("statistical enhancement", ../shared/SPEC.md section 1.5): the same query
// is scored M times on the same programmed bank, each vote with its own detector/RIN/shot/ADC
// noise draw; a block's confidence is the fraction of votes whose top-k holds it, and the final
// ranking is by confidence, ties by mean score, then by lower block index.
//
// What voting can fix: noise drawn independently per vote (averaging M draws shrinks its
// effect on the ranking). What it cannot: every error of the bank's static state, identical in
// all M votes (weight quantization, DAC errors, calibration residual, crosstalk, drift held
// over the votes): their vote-to-vote variance is zero, so the M votes agree on the same
// wrong ranking. The prism scorer votes when selection.votes > 1 (scorer.h).
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "lightsim/prism/cost.h"

namespace lightsim::prism {

// Tally of M votes over a bank of `blocks` rows; only `candidates` can be selected.
// Allocation happens in the constructor only.
class VoteCounter {
 public:
  VoteCounter(std::size_t blocks, std::vector<std::size_t> candidates, std::size_t k);

  void reset();
  // One vote: its top-k candidates by score (ties by lower index) each gain a count; every
  // candidate's score adds to its mean.
  void add(std::span<const float> scores);
  int votes() const { return votes_; }
  // Fraction of votes whose top-k held block b.
  double confidence(std::size_t b) const;
  // Candidates in voted order: confidence descending, then mean score, then lower index.
  const std::vector<std::size_t>& ranking();
  // out[b] = (candidates - rank) for candidates in voted order, -1 elsewhere: any top-k over
  // `out` (ties by lower index) returns the voted order.
  void rank_scores(std::span<float> out);

 private:
  std::size_t blocks_, k_;
  std::vector<std::size_t> candidates_, order_, ranked_;
  std::vector<int> count_;
  std::vector<double> sum_;
  int votes_ = 0;
};

// What M votes cost per query: each vote is one more pass of the query (DAC setup, modulator,
// laser, TIA, ADC, top-k), so the dynamic energy and the latency scale by M; the TEC is charged
// over the M latencies (the seed's convention, CostReport::tec_over_latency). On a pipelined
// bank the votes can also issue back to back: latency + (M - 1) x interval.
struct VotingCost {
  int votes = 1;
  double dynamic_energy = 0;     // J per query, M x the single query's
  double latency = 0;            // s, M x the single query's
  double pipelined_latency = 0;  // s, latency + (M - 1) x the bank's query interval
  double energy_with_tec = 0;    // J, M x (dynamic + TEC power x latency)
};
VotingCost voting_cost(const CostReport& single, int votes);

}  // namespace lightsim::prism
