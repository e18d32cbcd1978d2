// The FAISS IVF-PQ baseline scorer (scorer.h): an IvfPqIndex (ivfpq.h) over one head's token
// keys, inner product.
#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "lightsim/core/error.h"
#include "lightsim/kv/ivfpq.h"
#include "lightsim/kv/scorer_specs.h"

namespace lightsim::kv {
namespace {

class FaissIvfPqScorer final : public Scorer {
 public:
  explicit FaissIvfPqScorer(const FaissIvfPqScorerSpec& spec) : spec_(spec) {}

  void prepare(const HeadView& head, const BlockLayout& layout, const HeadIndex& index) override {
    head_ = &head;
    layout_ = &layout;
    const std::size_t auto_nlist = std::max<std::size_t>(
        1, std::min(head.tokens / 39,
                    static_cast<std::size_t>(4 * std::sqrt(static_cast<double>(head.tokens)))));
    nlist_ = spec_.nlist ? static_cast<std::size_t>(spec_.nlist) : auto_nlist;
    LIGHTSIM_CHECK_AS(InputError, nlist_ <= head.tokens,
                      "faiss_ivfpq: nlist = {} exceeds the {} tokens", nlist_, head.tokens);
    // FAISS warns below 39 training points per centroid; 8 per PQ centroid is enough for the
    // sub-quantizers here (the coarse quantizer keeps the default).
    index_.emplace(
        head.keys, head.tokens, head.head_dim,
        IvfPqParams{.nlist = nlist_,
                    .pq_m = static_cast<std::size_t>(spec_.pq_m),
                    .pq_nbits = static_cast<std::size_t>(spec_.pq_nbits),
                    .seed = static_cast<int>(
                        (index.seed * 1315423911u + index.layer * 97 + index.kv_head) & 0x7fffffff),
                    .coarse_min_points = 39,
                    .pq_min_points = 8,
                    .cancel = index.cancel});
    nprobe_ = std::min(static_cast<std::size_t>(spec_.nprobe), nlist_);
    retrieve_ = std::min(static_cast<std::size_t>(spec_.retrieve), head.tokens);
    distances_.resize(retrieve_);
    labels_.resize(retrieve_);
  }

  void score(std::size_t step, std::span<float> out) const override {
    std::fill(out.begin(), out.end(), 0.0f);
    const double inv_sqrt_d = 1.0 / std::sqrt(static_cast<double>(head_->head_dim));
    for (std::size_t g = 0; g < head_->group; ++g) {
      index_->search(head_->query(g, step), retrieve_, nprobe_, distances_.data(), labels_.data());
      const float best = distances_[0];
      for (std::size_t i = 0; i < retrieve_; ++i) {
        if (labels_[i] < 0) continue;
        const auto t = static_cast<std::size_t>(labels_[i]);
        out[t / layout_->block_tokens()] +=
            static_cast<float>(std::exp((distances_[i] - best) * inv_sqrt_d));
      }
    }
  }

  // Coarse centroids (fp32) plus the PQ codes of the probed lists (expected share nprobe/nlist
  // of the tokens), read per step; ids of the results are not counted.
  double metadata_bytes() const override {
    const double code_bytes = static_cast<double>(index_->code_size());
    return static_cast<double>(nlist_ * head_->head_dim) * 4.0 +
           static_cast<double>(head_->tokens) * code_bytes * static_cast<double>(nprobe_) /
               static_cast<double>(nlist_);
  }

 private:
  FaissIvfPqScorerSpec spec_;
  const HeadView* head_ = nullptr;
  const BlockLayout* layout_ = nullptr;
  std::size_t nlist_ = 0, nprobe_ = 0, retrieve_ = 0;
  std::optional<IvfPqIndex> index_;
  mutable std::vector<float> distances_;
  mutable std::vector<std::int64_t> labels_;
};

}  // namespace

ScorerMaker faiss_ivfpq_scorer(const FaissIvfPqScorerSpec& spec) {
  return [spec] { return std::make_unique<FaissIvfPqScorer>(spec); };
}

void FaissIvfPqScorerSpec::describe(config::Schema<FaissIvfPqScorerSpec>& s) {
  s.help(
      "Options of the `faiss_ivfpq` scorer: a FAISS IndexIVFPQ (inner product) over the head's "
      "token keys; a block scores the estimated softmax mass of its retrieved tokens.");
  s.field("nlist", &FaissIvfPqScorerSpec::nlist,
          "inverted lists (0 = about 4 sqrt(tokens), at most tokens / 39; at most the tokens)")
      .range(0, 1 << 24);
  s.field("pq_m", &FaissIvfPqScorerSpec::pq_m, "PQ sub-quantizers; must divide head_dim")
      .range(1, 4096);
  s.field("pq_nbits", &FaissIvfPqScorerSpec::pq_nbits,
          "bits per sub-quantizer code (2^pq_nbits <= tokens)")
      .range(1, 16);
  s.field("nprobe", &FaissIvfPqScorerSpec::nprobe, "lists scanned per query (at most nlist)")
      .range(1, 1 << 24);
  s.field("retrieve", &FaissIvfPqScorerSpec::retrieve,
          "tokens retrieved per query head (at most the tokens)")
      .range(1, 1 << 24);
}

}  // namespace lightsim::kv
