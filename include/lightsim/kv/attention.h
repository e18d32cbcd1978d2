// Exact decode attention of one KV head (the oracle behind the metrics).
// Logits are q . k / sqrt(D) (scaled dot-product attention, Vaswani et al. 2017); softmax over
// all `tokens` context tokens, computed in double with the max subtracted.
#pragma once

#include <span>
#include <vector>

#include "lightsim/kv/blocks.h"
#include "lightsim/kv/cache.h"

namespace lightsim::kv {

// Softmax weights p_t (sum 1) of query head g (within the group) at decode step `step`.
void attention_weights(const HeadView& head, std::size_t g, std::size_t step,
                       std::vector<double>& p);

// Per block: sum over the group's query heads of the mass on the block's non-resident tokens
// (what selecting the block fetches). Divide by head.group for a per-head average.
std::vector<double> group_block_mass(const HeadView& head, const BlockLayout& layout,
                                     std::size_t step);

// group_block_mass at several layouts of the same head from one pass of the exact attention:
// masses[i] (resized to layouts.size(), each to layouts[i].blocks()) is bit-identical to
// group_block_mass(head, layouts[i], step). `p` is a workspace (resized to head.tokens), so a
// caller looping over steps allocates nothing after the first.
void group_block_mass(const HeadView& head, std::span<const BlockLayout> layouts, std::size_t step,
                      std::vector<double>& p, std::vector<std::vector<double>>& masses);

// The exact attention pass behind the metrics (metrics.cpp), at several layouts at once: the
// block masses exactly as group_block_mass (bit-identical), resident[i] = the sum over the
// group's query heads of the mass on layouts[i]'s resident tokens, and, when `weights` is not
// null, (*weights)[g] = query head g's softmax weights (resized to head.group). `p` is a
// workspace used when weights is null.
void group_attention(const HeadView& head, std::span<const BlockLayout> layouts, std::size_t step,
                     std::vector<double>& p, std::vector<std::vector<double>>& masses,
                     std::vector<double>& resident, std::vector<std::vector<double>>* weights);

// Attention output sum_t p_t v_t / sum_t p_t over the tokens where `include(t)` holds
// (all tokens: the full output). out has head_dim entries.
template <class Include>
void attention_output(const HeadView& head, std::span<const double> p, Include include,
                      std::vector<double>& out) {
  out.assign(head.head_dim, 0.0);
  double z = 0;
  for (std::size_t t = 0; t < head.tokens; ++t) {
    if (!include(t)) continue;
    z += p[t];
    const float* v = head.value(t);
    for (std::size_t d = 0; d < head.head_dim; ++d) out[d] += p[t] * v[d];
  }
  if (z > 0)
    for (auto& o : out) o /= z;
}

}  // namespace lightsim::kv
