// Block scorers: rank a KV head's blocks for one decode step.
//
// GQA rule: a KV head's blocks are fetched once for its whole query group, so a scorer returns
// one score per block for the group: the sum over the group's query heads of that head's
// per-block score (for the exact oracle, the sum of the heads' softmax masses).
//
// Implementations (family "kv_scorer", registered in register.cpp):
//   exact      true softmax attention mass per block (the oracle; reads every key)
//   mean_key   q . mean key of the block
//   quest      Quest's bound sum_d max(q_d min_d, q_d max_d) over the block's bounding box
//   rep_keys   max over the block's representative keys of q . k (InfLLM-style)
//   signature  (P q) . (P mean key) with a d-dim projection P from the "kv_projection" family
//   faiss_ivfpq  FAISS IVF-PQ index over token keys (inner product): each query head retrieves
//              `retrieve` tokens; a block scores the estimated softmax mass of its retrieved
//              tokens, sum_g sum_t exp((s_t - s_max) / sqrt(D)) (RetrievalAttention-style)
//   prism      the Prism photonic accelerator (prism module, src/prism/scorer.cpp)
// Sink tokens and the recent window are resident regardless of scores (blocks.h).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "lightsim/core/npy.h"
#include "lightsim/core/registry.h"
#include "lightsim/kv/blocks.h"
#include "lightsim/kv/projection.h"

namespace lightsim::kv {

struct ScorerOptions {
  std::string projection = "pca";                 // for "signature"
  std::size_t dim = 32;                           // signature dimension d
  std::size_t reps = 4;                           // representative keys per block
  double summary_bytes = 2;                       // bytes per stored summary element (bf16)
  const ProjectionFamily* projections = nullptr;  // required by "signature"
  const NpyArray* learned = nullptr;              // for projection "learned"
  // faiss_ivfpq: IVF-PQ over the head's token keys, inner product (FAISS IndexIVFPQ).
  std::size_t nlist = 0;       // inverted lists; 0 = about 4 sqrt(tokens), at most tokens / 39
  std::size_t pq_m = 16;       // PQ sub-quantizers (must divide head_dim)
  std::size_t pq_nbits = 8;    // bits per sub-quantizer code
  std::size_t nprobe = 16;     // lists scanned per query
  std::size_t retrieve = 256;  // tokens retrieved per query head
  // prism (registered by the prism module): a `const prism::AcceleratorSpec`, type-erased so
  // that kv does not depend on prism.
  std::shared_ptr<const void> accelerator;
};

// Where a head sits, for per-head fits and streams.
struct HeadIndex {
  std::size_t layer = 0, kv_head = 0;
  std::uint64_t seed = 0;
};

class Scorer {
 public:
  virtual ~Scorer() = default;
  // Builds the head's summaries; called once before score(). `head` must outlive the scorer.
  virtual void prepare(const HeadView& head, const BlockLayout& layout, const HeadIndex& index) = 0;
  // out[b] for every block b of the layout (higher = more important) at decode step `step`.
  virtual void score(std::size_t step, std::span<float> out) const = 0;
  // Bytes of summaries/index metadata read per decode step.
  virtual double metadata_bytes() const = 0;
};

using ScorerFactory = std::function<std::unique_ptr<Scorer>(const ScorerOptions&)>;
using ScorerFamily = Family<ScorerFactory>;

void register_scorers(ScorerFamily& family);

// Indices of the k highest-scoring candidate blocks, ties broken by lower block index, in
// descending score order. k is clipped to the number of candidates.
std::vector<std::size_t> top_k_blocks(std::span<const float> scores, const BlockLayout& layout,
                                      std::size_t k);

}  // namespace lightsim::kv
