#include "lightsim/kv/attention.h"

#include <algorithm>
#include <cmath>

namespace lightsim::kv {

void attention_weights(const HeadView& head, std::size_t g, std::size_t step,
                       std::vector<double>& p) {
  p.resize(head.tokens);
  const float* q = head.query(g, step);
  const double scale = 1.0 / std::sqrt(static_cast<double>(head.head_dim));
  double mx = -INFINITY;
  // Logits kTile tokens at a time: each token keeps its own sum in the order d = 0, 1, ...
  // (the same bits as one token at a time), and the tile's independent sums hide the latency
  // of the floating-point adds (one token alone is a chain of head_dim dependent adds).
  constexpr std::size_t kTile = 8;
  const std::size_t dim = head.head_dim;
  std::size_t t = 0;
  for (; t + kTile <= head.tokens; t += kTile) {
    const float* k = head.key(t);
    double s[kTile] = {};
    for (std::size_t d = 0; d < dim; ++d) {
      const double qd = static_cast<double>(q[d]);
      for (std::size_t u = 0; u < kTile; ++u) s[u] += qd * k[u * dim + d];
    }
    for (std::size_t u = 0; u < kTile; ++u) {
      p[t + u] = s[u] * scale;
      mx = std::max(mx, p[t + u]);
    }
  }
  for (; t < head.tokens; ++t) {
    const float* k = head.key(t);
    double s = 0;
    for (std::size_t d = 0; d < dim; ++d) s += static_cast<double>(q[d]) * k[d];
    p[t] = s * scale;
    mx = std::max(mx, p[t]);
  }
  double z = 0;
  for (auto& x : p) z += (x = std::exp(x - mx));
  for (auto& x : p) x /= z;
}

std::vector<double> group_block_mass(const HeadView& head, const BlockLayout& layout,
                                     std::size_t step) {
  std::vector<double> mass(layout.blocks(), 0.0), p;
  for (std::size_t g = 0; g < head.group; ++g) {
    attention_weights(head, g, step, p);
    for (std::size_t b = 0; b < layout.blocks(); ++b)
      for (std::size_t t = layout.begin(b); t < layout.end(b); ++t)
        if (!layout.resident(t)) mass[b] += p[t];
  }
  return mass;
}

}  // namespace lightsim::kv
