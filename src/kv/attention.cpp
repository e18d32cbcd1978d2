#include "lightsim/kv/attention.h"

#include <algorithm>
#include <cmath>

namespace lightsim::kv {

void attention_weights(const HeadView& head, std::size_t g, std::size_t step,
                       std::vector<double>& p) {
  p.resize(head.tokens);
  const float* q = head.query(g, step);
  const std::size_t dim = head.head_dim;
  const double scale = 1.0 / std::sqrt(static_cast<double>(dim));
  // Eight tokens at a time: eight independent accumulation chains instead of one, each
  // token's dot product still summed over d in order in double, so the logits are
  // bit-identical to the one-token loop (the add latency, not the arithmetic, bounded it).
  constexpr std::size_t kTokens = 8;
  std::size_t t = 0;
  for (; t + kTokens <= head.tokens; t += kTokens) {
    const float* k = head.key(t);
    double s[kTokens] = {};
    for (std::size_t d = 0; d < dim; ++d) {
      const auto qd = static_cast<double>(q[d]);
      for (std::size_t j = 0; j < kTokens; ++j) s[j] += qd * k[j * dim + d];
    }
    for (std::size_t j = 0; j < kTokens; ++j) p[t + j] = s[j] * scale;
  }
  for (; t < head.tokens; ++t) {
    const float* k = head.key(t);
    double s = 0;
    for (std::size_t d = 0; d < dim; ++d) s += static_cast<double>(q[d]) * k[d];
    p[t] = s * scale;
  }
  double mx = -INFINITY;
  for (double x : p) mx = std::max(mx, x);
  double z = 0;
  for (auto& x : p) z += (x = std::exp(x - mx));
  for (auto& x : p) x /= z;
}

void group_attention(const HeadView& head, std::span<const BlockLayout> layouts, std::size_t step,
                     std::vector<double>& p, std::vector<std::vector<double>>& masses,
                     std::vector<double>& resident, std::vector<std::vector<double>>* weights) {
  masses.resize(layouts.size());
  for (std::size_t i = 0; i < layouts.size(); ++i) masses[i].assign(layouts[i].blocks(), 0.0);
  resident.assign(layouts.size(), 0.0);
  if (weights != nullptr) weights->resize(head.group);
  for (std::size_t g = 0; g < head.group; ++g) {
    std::vector<double>& w = weights != nullptr ? (*weights)[g] : p;
    attention_weights(head, g, step, w);
    for (std::size_t i = 0; i < layouts.size(); ++i) {
      const BlockLayout& layout = layouts[i];
      std::vector<double>& mass = masses[i];
      // The non-resident tokens of block b, ascending: [max(begin, sink), min(end, recent)).
      for (std::size_t b = 0; b < layout.blocks(); ++b) {
        const std::size_t end = std::min(layout.end(b), layout.recent_begin());
        for (std::size_t t = std::max(layout.begin(b), layout.sink_end()); t < end; ++t)
          mass[b] += w[t];
      }
      double r = 0;
      for (std::size_t t = 0; t < layout.sink_end(); ++t) r += w[t];
      for (std::size_t t = layout.recent_begin(); t < layout.tokens(); ++t) r += w[t];
      resident[i] += r;
    }
  }
}

void group_block_mass(const HeadView& head, std::span<const BlockLayout> layouts, std::size_t step,
                      std::vector<double>& p, std::vector<std::vector<double>>& masses) {
  std::vector<double> resident;
  group_attention(head, layouts, step, p, masses, resident, nullptr);
}

std::vector<double> group_block_mass(const HeadView& head, const BlockLayout& layout,
                                     std::size_t step) {
  std::vector<double> p;
  std::vector<std::vector<double>> masses;
  group_block_mass(head, std::span<const BlockLayout>(&layout, 1), step, p, masses);
  return std::move(masses[0]);
}

}  // namespace lightsim::kv
