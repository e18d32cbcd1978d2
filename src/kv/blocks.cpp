#include "lightsim/kv/blocks.h"

#include <algorithm>
#include <limits>
#include <numeric>

#include "lightsim/core/error.h"

namespace lightsim::kv {

BlockLayout::BlockLayout(std::size_t tokens, const BlockOptions& o)
    : tokens_(tokens), block_(o.block_tokens) {
  LIGHTSIM_CHECK_AS(InputError, block_ > 0, "block size must be positive");
  LIGHTSIM_CHECK_AS(InputError, tokens_ > 0, "a KV head needs at least one token");
  blocks_ = (tokens_ + block_ - 1) / block_;
  sink_end_ = std::min(tokens_, o.sink_tokens);
  recent_begin_ = tokens_ - std::min(tokens_ - sink_end_, o.recent_tokens);
  for (std::size_t b = 0; b < blocks_; ++b)
    if (fetch_tokens(b) > 0) candidates_.push_back(b);
}

std::size_t BlockLayout::fetch_tokens(std::size_t b) const {
  const std::size_t lo = std::max(begin(b), sink_end_);
  const std::size_t hi = std::min(end(b), recent_begin_);
  return hi > lo ? hi - lo : 0;
}

std::vector<float> block_mean_keys(const HeadView& head, const BlockLayout& layout) {
  const std::size_t dim = head.head_dim;
  std::vector<float> out(layout.blocks() * dim, 0.0f);
  std::vector<double> acc(dim);
  for (std::size_t b = 0; b < layout.blocks(); ++b) {
    std::fill(acc.begin(), acc.end(), 0.0);
    for (std::size_t t = layout.begin(b); t < layout.end(b); ++t)
      for (std::size_t d = 0; d < dim; ++d) acc[d] += head.key(t)[d];
    const double n = static_cast<double>(layout.end(b) - layout.begin(b));
    for (std::size_t d = 0; d < dim; ++d) out[b * dim + d] = static_cast<float>(acc[d] / n);
  }
  return out;
}

void block_min_max_keys(const HeadView& head, const BlockLayout& layout, std::vector<float>& lo,
                        std::vector<float>& hi) {
  const std::size_t dim = head.head_dim;
  lo.assign(layout.blocks() * dim, std::numeric_limits<float>::infinity());
  hi.assign(layout.blocks() * dim, -std::numeric_limits<float>::infinity());
  for (std::size_t b = 0; b < layout.blocks(); ++b)
    for (std::size_t t = layout.begin(b); t < layout.end(b); ++t)
      for (std::size_t d = 0; d < dim; ++d) {
        lo[b * dim + d] = std::min(lo[b * dim + d], head.key(t)[d]);
        hi[b * dim + d] = std::max(hi[b * dim + d], head.key(t)[d]);
      }
}

std::vector<float> block_representative_keys(const HeadView& head, const BlockLayout& layout,
                                             std::size_t reps) {
  const std::size_t dim = head.head_dim;
  std::vector<double> mean(dim, 0.0);
  for (std::size_t t = 0; t < head.tokens; ++t)
    for (std::size_t d = 0; d < dim; ++d) mean[d] += head.key(t)[d];
  for (auto& m : mean) m /= static_cast<double>(head.tokens);
  std::vector<float> out(layout.blocks() * reps * dim);
  std::vector<std::pair<double, std::size_t>> dist;
  for (std::size_t b = 0; b < layout.blocks(); ++b) {
    dist.clear();
    for (std::size_t t = layout.begin(b); t < layout.end(b); ++t) {
      double s = 0;
      for (std::size_t d = 0; d < dim; ++d)
        s += (head.key(t)[d] - mean[d]) * (head.key(t)[d] - mean[d]);
      dist.emplace_back(-s, t);  // ascending = largest distance first; ties by token
    }
    std::sort(dist.begin(), dist.end());
    std::vector<std::size_t> picks;
    for (std::size_t i = 0; i < std::min(reps, dist.size()); ++i) picks.push_back(dist[i].second);
    std::sort(picks.begin(), picks.end());
    while (picks.size() < reps) picks.push_back(picks.back());
    for (std::size_t i = 0; i < reps; ++i)
      std::copy_n(head.key(picks[i]), dim,
                  out.begin() + static_cast<std::ptrdiff_t>((b * reps + i) * dim));
  }
  return out;
}

}  // namespace lightsim::kv
