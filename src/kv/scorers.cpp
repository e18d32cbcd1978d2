// The registered block scorers (scorer.h); the oracle's softmax is shared with metrics.cpp.
#include <algorithm>
#include <cmath>

#include "lightsim/core/error.h"
#include "lightsim/kv/attention.h"
#include "lightsim/kv/faiss_scorer.h"
#include "lightsim/kv/kernels.h"
#include "lightsim/kv/scorer.h"

namespace lightsim::kv {

std::vector<std::size_t> top_k_blocks(std::span<const float> scores, const BlockLayout& layout,
                                      std::size_t k) {
  std::vector<std::size_t> c = layout.candidates();
  k = std::min(k, c.size());
  auto better = [&](std::size_t a, std::size_t b) {
    return scores[a] > scores[b] || (scores[a] == scores[b] && a < b);
  };
  std::partial_sort(c.begin(), c.begin() + static_cast<std::ptrdiff_t>(k), c.end(), better);
  c.resize(k);
  return c;
}

namespace {

float dot(const float* a, const float* b, std::size_t n) {
  float s = 0;
  for (std::size_t i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

class BaseScorer : public Scorer {
 protected:
  void bind(const HeadView& head, const BlockLayout& layout) {
    head_ = &head;
    layout_ = &layout;
  }
  // Sum of the group's queries at `step` (for scorers linear in q).
  void summed_query(std::size_t step, std::vector<float>& q) const {
    q.assign(head_->head_dim, 0.0f);
    for (std::size_t g = 0; g < head_->group; ++g)
      for (std::size_t d = 0; d < head_->head_dim; ++d) q[d] += head_->query(g, step)[d];
  }
  const HeadView* head_ = nullptr;
  const BlockLayout* layout_ = nullptr;
};

class ExactScorer final : public BaseScorer {
 public:
  explicit ExactScorer(const ScorerOptions& o) : bytes_(o.summary_bytes) {}
  void prepare(const HeadView& head, const BlockLayout& layout, const HeadIndex&) override {
    bind(head, layout);
  }
  void score(std::size_t step, std::span<float> out) const override {
    std::vector<double> mass = group_block_mass(*head_, *layout_, step);
    for (std::size_t b = 0; b < out.size(); ++b) out[b] = static_cast<float>(mass[b]);
  }
  double metadata_bytes() const override {
    return static_cast<double>(head_->tokens * head_->head_dim) * bytes_;
  }

 private:
  double bytes_;
};

class MeanKeyScorer final : public BaseScorer {
 public:
  explicit MeanKeyScorer(const ScorerOptions& o) : bytes_(o.summary_bytes) {}
  void prepare(const HeadView& head, const BlockLayout& layout, const HeadIndex&) override {
    bind(head, layout);
    means_ = block_mean_keys(head, layout);
  }
  void score(std::size_t step, std::span<float> out) const override {
    std::vector<float> q;
    summed_query(step, q);
    for (std::size_t b = 0; b < out.size(); ++b)
      out[b] = dot(q.data(), means_.data() + b * head_->head_dim, head_->head_dim);
  }
  double metadata_bytes() const override { return static_cast<double>(means_.size()) * bytes_; }

 private:
  double bytes_;
  std::vector<float> means_;
};

class QuestScorer final : public BaseScorer {
 public:
  explicit QuestScorer(const ScorerOptions& o) : bytes_(o.summary_bytes) {}
  void prepare(const HeadView& head, const BlockLayout& layout, const HeadIndex&) override {
    bind(head, layout);
    block_min_max_keys(head, layout, lo_, hi_);
  }
  void score(std::size_t step, std::span<float> out) const override {
    const std::size_t dim = head_->head_dim;
    std::fill(out.begin(), out.end(), 0.0f);
    for (std::size_t g = 0; g < head_->group; ++g)
      for (std::size_t b = 0; b < out.size(); ++b)
        out[b] +=
            quest_bound(head_->query(g, step), lo_.data() + b * dim, hi_.data() + b * dim, dim);
  }
  double metadata_bytes() const override {
    return static_cast<double>(lo_.size() + hi_.size()) * bytes_;
  }

 private:
  double bytes_;
  std::vector<float> lo_, hi_;
};

class RepKeysScorer final : public BaseScorer {
 public:
  explicit RepKeysScorer(const ScorerOptions& o) : bytes_(o.summary_bytes), reps_(o.reps) {
    LIGHTSIM_CHECK_AS(InputError, reps_ >= 1, "rep_keys needs at least 1 representative key");
  }
  void prepare(const HeadView& head, const BlockLayout& layout, const HeadIndex&) override {
    bind(head, layout);
    reps_data_ = block_representative_keys(head, layout, reps_);
  }
  void score(std::size_t step, std::span<float> out) const override {
    const std::size_t dim = head_->head_dim;
    std::fill(out.begin(), out.end(), 0.0f);
    for (std::size_t g = 0; g < head_->group; ++g)
      for (std::size_t b = 0; b < out.size(); ++b) {
        float best = -INFINITY;
        for (std::size_t r = 0; r < reps_; ++r)
          best = std::max(
              best, dot(head_->query(g, step), reps_data_.data() + (b * reps_ + r) * dim, dim));
        out[b] += best;
      }
  }
  double metadata_bytes() const override { return static_cast<double>(reps_data_.size()) * bytes_; }

 private:
  double bytes_;
  std::size_t reps_;
  std::vector<float> reps_data_;
};

class SignatureScorer final : public BaseScorer {
 public:
  explicit SignatureScorer(const ScorerOptions& o) : options_(o) {
    LIGHTSIM_CHECK(o.projections != nullptr, "signature scorer needs the projection family");
    fitter_ = &o.projections->get(o.projection);
  }
  void prepare(const HeadView& head, const BlockLayout& layout, const HeadIndex& index) override {
    bind(head, layout);
    RandomStream rng(index.seed, {0x7369670000ull, index.layer, index.kv_head});
    ProjectionInput in{&head, options_.dim, index.layer, index.kv_head, &rng, options_.learned};
    projection_ = (*fitter_)(in);
    const std::vector<float> means = block_mean_keys(head, layout);
    // Stored in the blocked layout [tiles, d, 64] of the vectorized kernel (kernels.h).
    const std::size_t nb = layout.blocks(), d = projection_.dim;
    std::vector<float> sig(nb * d);
    for (std::size_t b = 0; b < nb; ++b)
      projection_.apply(means.data() + b * head.head_dim, sig.data() + b * d);
    pack_signatures(sig.data(), nb, d, signatures_);
  }
  void score(std::size_t step, std::span<float> out) const override {
    LIGHTSIM_CHECK(out.size() == signatures_.blocks, "signature scorer: one score per block");
    std::vector<float> q, pq(projection_.dim);
    summed_query(step, q);
    projection_.apply(q.data(), pq.data());
    score_signatures_blocked(signatures_, pq.data(), out.data());
  }
  double metadata_bytes() const override {
    return static_cast<double>(signatures_.blocks * signatures_.dim) * options_.summary_bytes;
  }

 private:
  ScorerOptions options_;
  const ProjectionFitter* fitter_ = nullptr;
  ProjectionMatrix projection_;
  BlockedSignatures signatures_;
};

template <class T>
ScorerFactory factory() {
  return [](const ScorerOptions& o) { return std::make_unique<T>(o); };
}

}  // namespace

void register_scorers(ScorerFamily& family) {
  family.add("exact", "true softmax attention mass per block (oracle)", factory<ExactScorer>());
  family.add("mean_key", "q . mean key of the block", factory<MeanKeyScorer>());
  family.add("quest", "Quest bound over the block's key bounding box", factory<QuestScorer>());
  family.add("rep_keys", "max q . k over representative keys (InfLLM)", factory<RepKeysScorer>());
  family.add("signature", "(P q) . (P mean key), d-dim projection", factory<SignatureScorer>());
  register_faiss_scorer(family);
}

}  // namespace lightsim::kv
