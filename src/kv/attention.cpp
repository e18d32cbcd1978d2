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
  for (std::size_t t = 0; t < head.tokens; ++t) {
    const float* k = head.key(t);
    double s = 0;
    for (std::size_t d = 0; d < head.head_dim; ++d) s += static_cast<double>(q[d]) * k[d];
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
