// Monte-Carlo voting over repeated noisy evaluations (voting.h).
#include "lightsim/prism/voting.h"

#include <algorithm>

#include "lightsim/core/error.h"

namespace lightsim::prism {

VoteCounter::VoteCounter(std::size_t blocks, std::vector<std::size_t> candidates, std::size_t k)
    : blocks_(blocks),
      k_(std::min(k, candidates.size())),
      candidates_(std::move(candidates)),
      order_(candidates_),
      ranked_(candidates_),
      count_(blocks, 0),
      sum_(blocks, 0.0) {
  for (std::size_t b : candidates_)
    LIGHTSIM_CHECK(b < blocks_, "VoteCounter: candidate {} of {} blocks", b, blocks_);
}

void VoteCounter::reset() {
  std::fill(count_.begin(), count_.end(), 0);
  std::fill(sum_.begin(), sum_.end(), 0.0);
  votes_ = 0;
}

void VoteCounter::add(std::span<const float> scores) {
  LIGHTSIM_CHECK(scores.size() == blocks_, "VoteCounter: {} scores for {} blocks", scores.size(),
                 blocks_);
  std::copy(candidates_.begin(), candidates_.end(), order_.begin());
  std::partial_sort(order_.begin(), order_.begin() + static_cast<std::ptrdiff_t>(k_), order_.end(),
                    [&](std::size_t a, std::size_t b) {
                      return scores[a] > scores[b] || (scores[a] == scores[b] && a < b);
                    });
  for (std::size_t i = 0; i < k_; ++i) ++count_[order_[i]];
  for (std::size_t b : candidates_) sum_[b] += scores[b];
  ++votes_;
}

double VoteCounter::confidence(std::size_t b) const {
  return votes_ > 0 ? static_cast<double>(count_[b]) / votes_ : 0.0;
}

const std::vector<std::size_t>& VoteCounter::ranking() {
  // The mean is sum / votes for every block alike, so sums order as means do.
  std::copy(candidates_.begin(), candidates_.end(), ranked_.begin());
  std::sort(ranked_.begin(), ranked_.end(), [&](std::size_t a, std::size_t b) {
    if (count_[a] != count_[b]) return count_[a] > count_[b];
    if (sum_[a] != sum_[b]) return sum_[a] > sum_[b];
    return a < b;
  });
  return ranked_;
}

void VoteCounter::rank_scores(std::span<float> out) {
  LIGHTSIM_CHECK(out.size() == blocks_, "VoteCounter: {} outputs for {} blocks", out.size(),
                 blocks_);
  std::fill(out.begin(), out.end(), -1.0f);
  const std::vector<std::size_t>& r = ranking();
  for (std::size_t i = 0; i < r.size(); ++i) out[r[i]] = static_cast<float>(r.size() - i);
}

VotingCost voting_cost(const CostReport& single, int votes) {
  LIGHTSIM_CHECK_AS(InputError, votes >= 1, "votes must be >= 1 (got {})", votes);
  VotingCost c;
  c.votes = votes;
  c.dynamic_energy = votes * single.dynamic_energy;
  c.latency = votes * single.timeline.latency;
  c.pipelined_latency = single.timeline.latency + (votes - 1) * single.timeline.interval;
  c.energy_with_tec = votes * (single.dynamic_energy + single.tec_over_latency);
  return c;
}

}  // namespace lightsim::prism
