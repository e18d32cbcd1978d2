// Allocation-free hot loops of block scoring (used by the signature scorer and bench/kv).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace lightsim::kv {

// out[b] = sum_j sig_t[j * blocks + b] * q[j] for b < blocks: signatures stored transposed
// ([d, blocks], "structure of arrays") so the loop vectorizes across blocks. Each out[b] sums
// over j in order, so every SIMD path gives the same bits.
void score_signatures(const float* sig_t, const float* q, std::size_t blocks, std::size_t dim,
                      float* out);

// The indices of the k largest scores (ties: lower index first), in descending score order,
// written to out[0..k). k <= scores.size(). `scratch` is reused across calls (no allocation
// once its buffers have grown).
struct TopKScratch {
  std::vector<float> sample;
  std::vector<std::pair<float, std::uint32_t>> candidates;
};
void top_k_indices(std::span<const float> scores, std::size_t k, TopKScratch& scratch,
                   std::uint32_t* out);

}  // namespace lightsim::kv
