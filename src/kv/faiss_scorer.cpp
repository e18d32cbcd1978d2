// FAISS IVF-PQ baseline scorer (scorer.h): a real faiss::IndexIVFPQ, METRIC_INNER_PRODUCT, over
// one head's token keys (Jegou et al., "Product quantization for nearest neighbor search",
// TPAMI 2011; FAISS, Johnson et al. 2019).
#include <faiss/IndexFlat.h>
#include <faiss/IndexIVFPQ.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "lightsim/core/error.h"
#include "lightsim/kv/faiss_scorer.h"

namespace lightsim::kv {
namespace {

using FaissIdx = faiss::Index::idx_t;

// FAISS parallelizes internally with OpenMP; lightsim parallelizes over heads (parallel_for), so
// each index runs on the calling thread only: nested teams would oversubscribe the cores, and
// OpenMP's spinning barriers stall when the cores are shared (a 3 s unit test took 70 s at load
// 20). omp_set_num_threads changes the calling thread's ICV only; the guard restores it.
class SingleThreadedOmp {
 public:
  SingleThreadedOmp() : saved_(omp_get_max_threads()) { omp_set_num_threads(1); }
  ~SingleThreadedOmp() { omp_set_num_threads(saved_); }
  SingleThreadedOmp(const SingleThreadedOmp&) = delete;
  SingleThreadedOmp& operator=(const SingleThreadedOmp&) = delete;

 private:
  int saved_;
};

class FaissIvfPqScorer final : public Scorer {
 public:
  explicit FaissIvfPqScorer(const ScorerOptions& o) : o_(o) {}

  void prepare(const HeadView& head, const BlockLayout& layout, const HeadIndex& index) override {
    head_ = &head;
    layout_ = &layout;
    const auto dim = static_cast<FaissIdx>(head.head_dim);
    LIGHTSIM_CHECK_AS(InputError, o_.pq_m > 0 && head.head_dim % o_.pq_m == 0,
                      "faiss_ivfpq: pq_m = {} must divide head_dim = {}", o_.pq_m, head.head_dim);
    LIGHTSIM_CHECK_AS(InputError, o_.pq_nbits >= 1 && o_.pq_nbits <= 16,
                      "faiss_ivfpq: pq_nbits = {} must be in [1, 16]", o_.pq_nbits);
    const std::size_t auto_nlist = std::max<std::size_t>(
        1, std::min(head.tokens / 39,
                    static_cast<std::size_t>(4 * std::sqrt(static_cast<double>(head.tokens)))));
    nlist_ = o_.nlist ? o_.nlist : auto_nlist;
    LIGHTSIM_CHECK_AS(InputError, nlist_ <= head.tokens,
                      "faiss_ivfpq: nlist = {} exceeds the {} tokens", nlist_, head.tokens);
    LIGHTSIM_CHECK_AS(InputError, (std::size_t{1} << o_.pq_nbits) <= head.tokens,
                      "faiss_ivfpq: 2^pq_nbits = {} centroids need at least as many tokens ({})",
                      std::size_t{1} << o_.pq_nbits, head.tokens);
    quantizer_ = std::make_unique<faiss::IndexFlatIP>(dim);
    index_ = std::make_unique<faiss::IndexIVFPQ>(quantizer_.get(), dim, nlist_, o_.pq_m,
                                                 o_.pq_nbits, faiss::METRIC_INNER_PRODUCT);
    index_->cp.seed = static_cast<int>(
        (index.seed * 1315423911u + index.layer * 97 + index.kv_head) & 0x7fffffff);
    index_->pq.cp.seed = index_->cp.seed + 1;
    index_->verbose = false;
    // FAISS warns below 39 training points per centroid; 8 per PQ centroid is enough for the
    // sub-quantizers here (the coarse quantizer keeps the default).
    index_->pq.cp.min_points_per_centroid = 8;
    const auto n = static_cast<FaissIdx>(head.tokens);
    const SingleThreadedOmp one_thread;
    index_->train(n, head.keys);
    index_->add(n, head.keys);
    index_->nprobe = std::min(o_.nprobe, nlist_);
    retrieve_ = std::min(o_.retrieve, head.tokens);
    distances_.resize(retrieve_);
    labels_.resize(retrieve_);
  }

  void score(std::size_t step, std::span<float> out) const override {
    std::fill(out.begin(), out.end(), 0.0f);
    const SingleThreadedOmp one_thread;
    const double inv_sqrt_d = 1.0 / std::sqrt(static_cast<double>(head_->head_dim));
    for (std::size_t g = 0; g < head_->group; ++g) {
      index_->search(1, head_->query(g, step), static_cast<FaissIdx>(retrieve_), distances_.data(),
                     labels_.data());
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
    const double code_bytes = static_cast<double>(index_->code_size);
    return static_cast<double>(nlist_ * head_->head_dim) * 4.0 +
           static_cast<double>(head_->tokens) * code_bytes * static_cast<double>(index_->nprobe) /
               static_cast<double>(nlist_);
  }

 private:
  ScorerOptions o_;
  const HeadView* head_ = nullptr;
  const BlockLayout* layout_ = nullptr;
  std::size_t nlist_ = 0, retrieve_ = 0;
  std::unique_ptr<faiss::IndexFlatIP> quantizer_;
  std::unique_ptr<faiss::IndexIVFPQ> index_;
  mutable std::vector<float> distances_;
  mutable std::vector<FaissIdx> labels_;
};

}  // namespace

void register_faiss_scorer(ScorerFamily& family) {
  family.add("faiss_ivfpq", "FAISS IVF-PQ over token keys, inner product (baseline)",
             [](const ScorerOptions& o) { return std::make_unique<FaissIvfPqScorer>(o); });
}

}  // namespace lightsim::kv
