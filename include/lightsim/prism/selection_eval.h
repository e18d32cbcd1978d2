// Selection quality of the Prism scorer for one KV head with a given projection: the pieces the
// compensation studies and the QAT tests share (docs/prism.md "Compensation").
//
// Two truths (../shared/SPEC.md section 3): the hardware-only truth is the exact projected
// score (P q) . (P mean_key(b)) (what the bank computes when nothing is impaired); the
// end-to-end truth is the block's softmax attention mass over full-dimension keys
// (kv::group_block_mass).
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "lightsim/kv/blocks.h"
#include "lightsim/kv/cache.h"
#include "lightsim/kv/projection.h"
#include "lightsim/kv/scorer.h"
#include "lightsim/prism/accelerator.h"

namespace lightsim::prism {

// A Prism scorer prepared for one head with the projection `p` (not fitted).
class FixedProjectionPrism {
 public:
  FixedProjectionPrism(const AcceleratorSpec& a, const kv::ProjectionMatrix& p,
                       const kv::HeadView& head, const kv::BlockLayout& layout,
                       const kv::HeadIndex& index);
  FixedProjectionPrism(const FixedProjectionPrism&) = delete;
  FixedProjectionPrism& operator=(const FixedProjectionPrism&) = delete;
  // Scores of every block at decode step `step` (voting if a.selection.votes > 1).
  void score(std::size_t step, std::span<float> out) const { scorer_->score(step, out); }

 private:
  std::unique_ptr<kv::Scorer> scorer_;
};

// Exact projected scores (P q) . (P mean_key(b)) of every block, q the group's summed query.
std::vector<float> projected_scores(const kv::ProjectionMatrix& p, const kv::HeadView& head,
                                    const std::vector<float>& block_means, std::size_t step);

struct SelectionSample {
  double recall = 0;       // |top_k(scores) & top_k(reference)| / k
  double mass_recall = 0;  // mass(top_k(scores)) / mass(top_k(mass))
};
// One query's figures; top-k over the layout's candidates, ties by lower index.
SelectionSample selection_sample(std::span<const float> scores, std::span<const float> reference,
                                 std::span<const double> mass, const kv::BlockLayout& layout,
                                 std::size_t k);

}  // namespace lightsim::prism
