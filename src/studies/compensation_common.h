// Shared pieces of the compensation studies (enhancement, balanced; impairments uses the QAT
// options): the cache and block layout, the per-head set-up, the held-out split, the truths of
// one head, projection training (private to src/studies).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <vector>

#include "lightsim/core/context.h"
#include "lightsim/kv/attention.h"
#include "lightsim/kv/blocks.h"
#include "lightsim/kv/generator.h"
#include "lightsim/prism/qat.h"
#include "lightsim/prism/selection_eval.h"
#include "lightsim/studies/compensation.h"

namespace lightsim::studies {

kv::BlockOptions block_options(std::int64_t block, std::int64_t sink, std::int64_t recent);

// Decode steps [0, steps / 2) train, [steps / 2, steps) are held out.
struct HeldOutSplit {
  std::vector<std::size_t> train, test;
};
HeldOutSplit split_steps(std::size_t steps);

// QAT options for `acc`'s bank; the score noise measured on `acc` when spec.train_with_noise.
prism::QatOptions qat_options(const QatStudySpec& spec, const prism::AcceleratorSpec& acc,
                              std::uint64_t seed);

// The end-to-end truth (attention mass) of one head's test steps, and the block means for the
// hardware-only truth of any projection.
class HeadTruth {
 public:
  HeadTruth(const kv::HeadView& head, const kv::BlockLayout& layout,
            const std::vector<std::size_t>& steps);
  // Scores every test step on a Prism scorer with projection `p`, calling
  // sink(hardware-only sample, end-to-end sample) per step.
  template <class Sink>
  void accumulate(const prism::AcceleratorSpec& a, const kv::ProjectionMatrix& p,
                  const kv::HeadIndex& index, std::size_t k, Sink&& sink) const {
    prism::FixedProjectionPrism prism(a, p, head_, layout_, index);
    std::vector<float> scores(layout_.blocks());
    for (std::size_t i = 0; i < steps_.size(); ++i) {
      prism.score(steps_[i], scores);
      const std::vector<float> exact = prism::projected_scores(p, head_, means_, steps_[i]);
      const std::vector<float> mass_f(mass_[i].begin(), mass_[i].end());
      sink(prism::selection_sample(scores, exact, mass_[i], layout_, k),
           prism::selection_sample(scores, mass_f, mass_[i], layout_, k));
    }
  }

 private:
  kv::HeadView head_;
  const kv::BlockLayout& layout_;
  std::vector<std::size_t> steps_;
  std::vector<float> means_;
  std::vector<std::vector<double>> mass_;
};

// The cache, its block layout and k of a compensation study: the workload generated, the layout
// of (block, sink, recent) tokens, and k checked against the candidate blocks (a ConfigError
// naming `config_file` when there are fewer). Holds the layout HeadTruth refers to, so it is
// neither copied nor moved.
class CompensationSetup {
 public:
  CompensationSetup(const kv::KvGeneratorSpec& workload, const kv::BlockOptions& blocks,
                    std::int64_t top_k, const std::filesystem::path& config_file, Context& ctx);
  CompensationSetup(const CompensationSetup&) = delete;
  CompensationSetup& operator=(const CompensationSetup&) = delete;

  const kv::KvCache cache;
  const kv::BlockLayout layout;
  const std::size_t k;
  std::size_t heads() const { return cache.geometry().layers * cache.geometry().kv_heads; }
};

// The accelerator as the compensation studies score with it: top_k = k, no exact re-rank, one
// vote (a study sets selection.votes itself where it votes).
prism::AcceleratorSpec selection_accelerator(prism::AcceleratorSpec a, std::size_t k);

// One head of a set-up (heads numbered layer-major, h = layer * kv_heads + kv_head): its view,
// index (seeded with `seed`), the truths of `steps`, and the PCA projection of its keys at
// d = `dim`.
struct HeadSetup {
  kv::HeadView head;
  kv::HeadIndex index;
  HeadTruth truth;
  kv::ProjectionMatrix pca;
};
HeadSetup head_setup(const CompensationSetup& setup, std::size_t h,
                     const std::vector<std::size_t>& steps, int dim, std::uint64_t seed);

// Random (N(0, 1/d), from ctx.stream(layer, kv_head, "RND")) and QAT (from `pca`, trained on
// split.train) projections of one head.
struct TrainedProjections {
  kv::ProjectionMatrix random, qat;
  double loss_first = 0, loss_last = 0;
};
TrainedProjections train_projections(const kv::HeadView& head, const kv::BlockLayout& layout,
                                     const HeldOutSplit& split, const kv::ProjectionMatrix& pca,
                                     const prism::QatOptions& options, const Context& ctx,
                                     const kv::HeadIndex& index);

}  // namespace lightsim::studies
