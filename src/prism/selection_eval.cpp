// Selection quality helpers (selection_eval.h).
#include "lightsim/prism/selection_eval.h"

#include <algorithm>

#include "lightsim/core/error.h"
#include "lightsim/prism/scorer.h"

namespace lightsim::prism {

FixedProjectionPrism::FixedProjectionPrism(const AcceleratorSpec& a, const kv::ProjectionMatrix& p,
                                           const kv::HeadView& head, const kv::BlockLayout& layout,
                                           const kv::HeadIndex& index)
    : scorer_(make_prism_scorer(a, kv::ProjectionSource{.dim = p.dim})) {
  kv::HeadIndex given = index;
  given.projection = &p;
  scorer_->prepare(head, layout, given);
}

std::vector<float> projected_scores(const kv::ProjectionMatrix& p, const kv::HeadView& head,
                                    const std::vector<float>& block_means, std::size_t step) {
  const std::size_t dh = head.head_dim, nb = block_means.size() / dh;
  std::vector<float> q(dh, 0.0f), pq(p.dim), sig(p.dim), out(nb);
  for (std::size_t g = 0; g < head.group; ++g)
    for (std::size_t j = 0; j < dh; ++j) q[j] += head.query(g, step)[j];
  p.apply(q.data(), pq.data());
  for (std::size_t b = 0; b < nb; ++b) {
    p.apply(block_means.data() + b * dh, sig.data());
    float s = 0.0f;
    for (std::size_t i = 0; i < p.dim; ++i) s += pq[i] * sig[i];
    out[b] = s;
  }
  return out;
}

SelectionSample selection_sample(std::span<const float> scores, std::span<const float> reference,
                                 std::span<const double> mass, const kv::BlockLayout& layout,
                                 std::size_t k) {
  LIGHTSIM_CHECK(scores.size() == layout.blocks() && reference.size() == layout.blocks() &&
                     mass.size() == layout.blocks(),
                 "selection_sample: arrays must have one value per block");
  const std::vector<float> mass_f(mass.begin(), mass.end());
  const auto sel = kv::top_k_blocks(scores, layout, k);
  const auto ref = kv::top_k_blocks(reference, layout, k);
  const auto oracle = kv::top_k_blocks(mass_f, layout, k);
  SelectionSample s;
  std::size_t hits = 0;
  double sel_mass = 0, oracle_mass = 0;
  for (std::size_t b : sel) {
    hits += static_cast<std::size_t>(std::find(ref.begin(), ref.end(), b) != ref.end());
    sel_mass += mass[b];
  }
  for (std::size_t b : oracle) oracle_mass += mass[b];
  s.recall = sel.empty() ? 1.0 : static_cast<double>(hits) / static_cast<double>(sel.size());
  s.mass_recall = oracle_mass > 0 ? sel_mass / oracle_mass : 1.0;
  return s;
}

}  // namespace lightsim::prism
