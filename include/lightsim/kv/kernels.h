// Allocation-free hot loops of block scoring (used by the signature scorer and bench/kv).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "lightsim/core/aligned.h"
#include "lightsim/core/rng.h"  // detail::SimdLevel

namespace lightsim::kv {

// out[b] = sum_j sig_t[j * blocks + b] * q[j] for b < blocks: signatures stored transposed
// ([d, blocks], "structure of arrays") so the loop vectorizes across blocks. Each out[b] sums
// over j in order, so every SIMD path gives the same bits.
void score_signatures(const float* sig_t, const float* q, std::size_t blocks, std::size_t dim,
                      float* out);

// Signatures in the blocked layout [tiles, d, kSignatureTile] (tiles = ceil(blocks / tile),
// the last tile zero-padded): tile t holds blocks [t * tile, (t + 1) * tile), and for each
// dimension j their tile values are contiguous. A query then reads memory strictly in order,
// with the tile's accumulators held in registers (the [d, blocks] layout strides by
// 4 * blocks bytes between dimensions: 4 KB at 1024 blocks, which maps every row of a tile to
// the same L1 set).
inline constexpr std::size_t kSignatureTile = 64;
struct BlockedSignatures {
  std::size_t blocks = 0, dim = 0;
  AlignedVector<float> data;  // tiles * dim * kSignatureTile floats, 64-byte aligned
};
// Packs row-major signatures sig[b * dim + j] (b < blocks, j < dim) into `out`.
void pack_signatures(const float* sig, std::size_t blocks, std::size_t dim, BlockedSignatures& out);
// out[b] = sum_j sig(b, j) * q[j] for b < sig.blocks, summed over j in order: the same bits as
// score_signatures on the same values, on every SIMD path (no FMA).
void score_signatures_blocked(const BlockedSignatures& sig, const float* q, float* out);

// The indices of the k largest scores (ties: lower index first), in descending score order,
// written to out[0..k). k <= scores.size(); scores must not be NaN. `scratch` is reused across
// calls (no allocation once its buffers have grown). scores.size() < 2^31.
struct TopKScratch {
  std::vector<float> sample;                                // the 2k strided group maxima
  std::vector<float> cand_scores;                           // candidates (score >= threshold)
  std::vector<std::uint32_t> cand_index, ranked;            // their indices; indices by rank
  std::vector<std::pair<float, std::uint32_t>> candidates;  // the partial-sort fallback
};
void top_k_indices(std::span<const float> scores, std::size_t k, TopKScratch& scratch,
                   std::uint32_t* out);

namespace detail {
// top_k_indices through one SIMD path (every path gives the same indices; tests), and the
// previous implementation (threshold, then std::partial_sort of the candidates), kept as the
// reference the branch-free kernels are tested against.
void top_k_indices_at(lightsim::detail::SimdLevel level, std::span<const float> scores,
                      std::size_t k, TopKScratch& scratch, std::uint32_t* out);
void top_k_indices_partial_sort(std::span<const float> scores, std::size_t k, TopKScratch& scratch,
                                std::uint32_t* out);
}  // namespace detail

}  // namespace lightsim::kv
