#include "lightsim/kv/kernels.h"

#include <algorithm>
#include <functional>

namespace lightsim::kv {

// AVX2 and baseline clones; no FMA, so both paths round identically. Blocks are processed in
// tiles of kTile so the accumulators stay in registers while the d rows stream past.
[[gnu::target_clones("avx2", "default")]] void score_signatures(const float* sig_t, const float* q,
                                                                std::size_t blocks, std::size_t dim,
                                                                float* out) {
  constexpr std::size_t kTile = 32;
  std::size_t b0 = 0;
  for (; b0 + kTile <= blocks; b0 += kTile) {
    float acc[kTile] = {};
    for (std::size_t j = 0; j < dim; ++j) {
      const float qj = q[j];
      const float* row = sig_t + j * blocks + b0;
      for (std::size_t b = 0; b < kTile; ++b) acc[b] += row[b] * qj;
    }
    std::copy_n(acc, kTile, out + b0);
  }
  for (std::size_t b = b0; b < blocks; ++b) {
    float s = 0;
    for (std::size_t j = 0; j < dim; ++j) s += sig_t[j * blocks + b] * q[j];
    out[b] = s;
  }
}

namespace {

// Exact fallback: a size-k heap of indices with the worst at the front.
void top_k_heap(std::span<const float> scores, std::size_t k, std::uint32_t* out) {
  auto better = [&](std::uint32_t a, std::uint32_t b) {
    return scores[a] > scores[b] || (scores[a] == scores[b] && a < b);
  };
  const auto n = static_cast<std::uint32_t>(scores.size());
  const auto kk = static_cast<std::uint32_t>(k);
  for (std::uint32_t i = 0; i < kk; ++i) {
    out[i] = i;
    std::push_heap(out, out + i + 1, better);
  }
  float worst = scores[out[0]];
  for (std::uint32_t i = kk; i < n; ++i) {
    if (scores[i] > worst) {  // a later index only wins on a strictly larger score
      std::pop_heap(out, out + k, better);
      out[k - 1] = i;
      std::push_heap(out, out + k, better);
      worst = scores[out[0]];
    }
  }
  std::sort(out, out + k, better);
}

}  // namespace

void top_k_indices(std::span<const float> scores, std::size_t k, TopKScratch& scratch,
                   std::uint32_t* out) {
  const std::size_t n = scores.size();
  if (k == 0) return;
  // Threshold from a strided sample: its (2k/stride)-th largest value is expected to have ~2k
  // scores at or above it. Keep every score >= threshold; when that is at least k, the top k
  // are among them (exact). Otherwise fall back to the heap.
  constexpr std::size_t kStride = 8;
  if (n >= 16 * k && k >= 4) {
    auto& sample = scratch.sample;
    sample.clear();
    for (std::size_t i = 0; i < n; i += kStride) sample.push_back(scores[i]);
    const std::size_t r = std::min(sample.size() - 1, 2 * k / kStride);
    std::nth_element(sample.begin(), sample.begin() + static_cast<std::ptrdiff_t>(r), sample.end(),
                     std::greater<>());
    const float threshold = sample[r];
    auto& cand = scratch.candidates;
    cand.clear();
    for (std::size_t i = 0; i < n; ++i)
      if (scores[i] >= threshold) cand.emplace_back(scores[i], static_cast<std::uint32_t>(i));
    if (cand.size() >= k) {
      auto better = [](const auto& a, const auto& b) {
        return a.first > b.first || (a.first == b.first && a.second < b.second);
      };
      std::partial_sort(cand.begin(), cand.begin() + static_cast<std::ptrdiff_t>(k), cand.end(),
                        better);
      for (std::size_t i = 0; i < k; ++i) out[i] = cand[i].second;
      return;
    }
  }
  top_k_heap(scores, k, out);
}

}  // namespace lightsim::kv
