// Expert loads and placement onto EP ranks (routing.h).
#include "routing.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <queue>

#include "lightsim/core/error.h"

namespace lightsim::prefill::detail {

std::vector<double> expert_loads(const RoutingSpec& routing, std::int64_t experts) {
  std::vector<double> p(static_cast<std::size_t>(experts), 1.0);
  if (routing.distribution == RoutingDistribution::zipf) {
    for (std::size_t i = 0; i < p.size(); ++i)
      p[i] = std::pow(static_cast<double>(i + 1), -routing.zipf_s);
  } else if (routing.distribution == RoutingDistribution::histogram) {
    LIGHTSIM_CHECK_AS(ConfigError, static_cast<std::int64_t>(routing.histogram.size()) == experts,
                      "routing.histogram: {} values given, the model has {} routed experts",
                      routing.histogram.size(), experts);
    p = routing.histogram;
  }
  const double sum = std::accumulate(p.begin(), p.end(), 0.0);
  LIGHTSIM_CHECK_AS(ConfigError, sum > 0, "routing.histogram: loads sum to zero");
  for (double& v : p) v /= sum;
  return p;
}

double max_rank_share(const std::vector<double>& loads, std::int64_t redundant,
                      ExpertPlacement placement, std::int64_t ep) {
  const std::size_t E = loads.size();
  if (E == 0 || ep <= 1) return 1.0;
  // Replicas: repeatedly give one more replica to the expert with the largest per-replica load.
  std::vector<std::int64_t> replicas(E, 1);
  using Item = std::pair<double, std::size_t>;
  std::priority_queue<Item> heap;
  for (std::size_t e = 0; e < E; ++e) heap.push({loads[e], e});
  for (std::int64_t r = 0; r < redundant; ++r) {
    const std::size_t e = heap.top().second;
    heap.pop();
    ++replicas[e];
    heap.push({loads[e] / static_cast<double>(replicas[e]), e});
  }
  // Slots in expert-id order, replicas of an expert adjacent.
  std::vector<double> slots;
  for (std::size_t e = 0; e < E; ++e)
    for (std::int64_t r = 0; r < replicas[e]; ++r)
      slots.push_back(loads[e] / static_cast<double>(replicas[e]));
  const std::size_t n = slots.size(), ranks = static_cast<std::size_t>(ep);
  std::vector<double> rank(ranks, 0.0);
  if (placement == ExpertPlacement::round_robin) {
    for (std::size_t i = 0; i < n; ++i) rank[i % ranks] += slots[i];
  } else if (placement == ExpertPlacement::contiguous) {
    for (std::size_t i = 0; i < n; ++i) rank[i * ranks / n] += slots[i];
  } else {
    // Longest processing time first onto the least loaded rank with a free slot.
    const std::size_t capacity = (n + ranks - 1) / ranks;
    std::vector<std::size_t> used(ranks, 0);
    std::sort(slots.begin(), slots.end(), std::greater<>());
    for (double s : slots) {
      std::size_t best = ranks;
      for (std::size_t k = 0; k < ranks; ++k)
        if (used[k] < capacity && (best == ranks || rank[k] < rank[best])) best = k;
      rank[best] += s;
      ++used[best];
    }
  }
  return *std::max_element(rank.begin(), rank.end());
}

}  // namespace lightsim::prefill::detail
