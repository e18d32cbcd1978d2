#include "lightsim/kv/kernels.h"

#include <immintrin.h>

#include <algorithm>
#include <functional>

#include "lightsim/core/error.h"

namespace lightsim::kv {

// This file is built with -ffp-contract=off (src/CMakeLists.txt): AVX-512F brings FMA, and a
// fused multiply-add in one clone only would change the last bits of that path. With plain
// multiply and add, the avx512f, avx2 and baseline clones round identically.

// The clones are selected by an ifunc resolver that the dynamic loader runs while relocating,
// before any sanitizer runtime is initialized; clang instruments that resolver under
// ThreadSanitizer, so the program crashed at load. TSan builds (which check threading, not the
// SIMD paths, which the unit tests compare with each other in every other build) keep only the
// default clone.
#if defined(__SANITIZE_THREAD__)
#define LIGHTSIM_NO_TARGET_CLONES 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define LIGHTSIM_NO_TARGET_CLONES 1
#endif
#endif
#ifdef LIGHTSIM_NO_TARGET_CLONES
#define LIGHTSIM_TARGET_CLONES(...)
#else
#define LIGHTSIM_TARGET_CLONES(...) [[gnu::target_clones(__VA_ARGS__)]]
#endif

// Blocks are processed in tiles of kTile so the accumulators stay in registers while the d rows
// stream past. No avx512f clone: with the 4 KB row stride at 1024 blocks it measured slower
// (3.5 vs 2.5 us); the blocked layout below is the fast path.
LIGHTSIM_TARGET_CLONES("avx2", "default")
void score_signatures(const float* sig_t, const float* q, std::size_t blocks, std::size_t dim,
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

void pack_signatures(const float* sig, std::size_t blocks, std::size_t dim,
                     BlockedSignatures& out) {
  constexpr std::size_t kT = kSignatureTile;
  const std::size_t tiles = (blocks + kT - 1) / kT;
  out.blocks = blocks;
  out.dim = dim;
  out.data.assign(tiles * dim * kT, 0.0f);
  for (std::size_t b = 0; b < blocks; ++b)
    for (std::size_t j = 0; j < dim; ++j)
      out.data[((b / kT) * dim + j) * kT + b % kT] = sig[b * dim + j];
}

namespace {

// One tile: acc[i] = sum_j tile[j * kT + i] * q[j], j in order. The fixed trip count lets the
// compiler keep all kT accumulators in vector registers (4 zmm / 8 ymm).
LIGHTSIM_TARGET_CLONES("avx512f", "avx2", "default")
void score_tiles(const float* __restrict data, const float* __restrict q, std::size_t tiles,
                 std::size_t dim, float* __restrict out) {
  constexpr std::size_t kT = kSignatureTile;
  for (std::size_t t = 0; t < tiles; ++t) {
    const float* tile = data + t * dim * kT;
    float acc[kT] = {};
    for (std::size_t j = 0; j < dim; ++j) {
      const float qj = q[j];
      const float* row = tile + j * kT;
      for (std::size_t i = 0; i < kT; ++i) acc[i] += row[i] * qj;
    }
    std::copy_n(acc, kT, out + t * kT);
  }
}

}  // namespace

void score_signatures_blocked(const BlockedSignatures& sig, const float* q, float* out) {
  constexpr std::size_t kT = kSignatureTile;
  const std::size_t full = sig.blocks / kT;
  score_tiles(sig.data.data(), q, full, sig.dim, out);
  if (full * kT < sig.blocks) {  // the zero-padded last tile, through a local buffer
    float last[kT];
    score_tiles(sig.data.data() + full * sig.dim * kT, q, 1, sig.dim, last);
    std::copy_n(last, sig.blocks - full * kT, out + full * kT);
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

// gm[c] = max over i = c, c + g, c + 2g, ... < n of s[i] (n >= g): whole rows of g vectorize.
LIGHTSIM_TARGET_CLONES("avx512f", "avx2", "default")
void strided_group_max(const float* s, std::size_t n, std::size_t g, float* gm) {
  std::copy_n(s, g, gm);
  std::size_t i = g;
  for (; i + g <= n; i += g)
    for (std::size_t c = 0; c < g; ++c) gm[c] = s[i + c] > gm[c] ? s[i + c] : gm[c];
  for (std::size_t c = 0; i + c < n; ++c) gm[c] = s[i + c] > gm[c] ? s[i + c] : gm[c];
}

// Writes (s[i], i) for every s[i] >= tau to out in index order; returns the count. The SIMD
// paths test a vector of scores at once and only visit the set bits of the mask (about 4% of
// the scores pass at k = 32), the baseline is a branch-free compaction.
using CollectFn = std::size_t (*)(const float*, std::size_t, float,
                                  std::pair<float, std::uint32_t>*);
std::size_t collect_default(const float* s, std::size_t n, float tau,
                            std::pair<float, std::uint32_t>* out) {
  std::size_t m = 0;
  for (std::size_t i = 0; i < n; ++i) {
    out[m] = {s[i], static_cast<std::uint32_t>(i)};
    m += s[i] >= tau ? 1 : 0;
  }
  return m;
}
[[gnu::target("avx2")]] std::size_t collect_avx2(const float* s, std::size_t n, float tau,
                                                 std::pair<float, std::uint32_t>* out) {
  std::size_t m = 0, i = 0;
  const __m256 t = _mm256_set1_ps(tau);
  for (; i + 8 <= n; i += 8) {
    auto mask = static_cast<unsigned>(
        _mm256_movemask_ps(_mm256_cmp_ps(_mm256_loadu_ps(s + i), t, _CMP_GE_OQ)));
    for (; mask != 0; mask &= mask - 1) {
      const std::size_t j = i + static_cast<std::size_t>(__builtin_ctz(mask));
      out[m++] = {s[j], static_cast<std::uint32_t>(j)};
    }
  }
  for (; i < n; ++i)
    if (s[i] >= tau) out[m++] = {s[i], static_cast<std::uint32_t>(i)};
  return m;
}
[[gnu::target("avx512f")]] std::size_t collect_avx512(const float* s, std::size_t n, float tau,
                                                      std::pair<float, std::uint32_t>* out) {
  std::size_t m = 0, i = 0;
  const __m512 t = _mm512_set1_ps(tau);
  for (; i + 16 <= n; i += 16) {
    unsigned mask = _mm512_cmp_ps_mask(_mm512_loadu_ps(s + i), t, _CMP_GE_OQ);
    for (; mask != 0; mask &= mask - 1) {
      const std::size_t j = i + static_cast<std::size_t>(__builtin_ctz(mask));
      out[m++] = {s[j], static_cast<std::uint32_t>(j)};
    }
  }
  for (; i < n; ++i)
    if (s[i] >= tau) out[m++] = {s[i], static_cast<std::uint32_t>(i)};
  return m;
}
// Chosen once per process from the CPU (like target_clones).
CollectFn collect_for_cpu() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return collect_avx512;
  if (__builtin_cpu_supports("avx2")) return collect_avx2;
  return collect_default;
}
const CollectFn collect_candidates = collect_for_cpu();

}  // namespace

// Exact threshold selection. Split the scores into g = 2k strided groups (i mod g) and let tau
// be the k-th largest group maximum: k distinct scores (those maxima) are >= tau, so the k-th
// largest score is >= tau and every top-k score is a candidate (score >= tau). Only the
// candidates (about 4% of 1024 i.i.d. scores at k = 32) are sorted. Ties keep every equal
// score, so the (score desc, index asc) order is exact.
void top_k_indices(std::span<const float> scores, std::size_t k, TopKScratch& scratch,
                   std::uint32_t* out) {
  const std::size_t n = scores.size();
  LIGHTSIM_CHECK(k <= n, "top_k_indices: k exceeds the number of scores");
  if (k == 0) return;
  const std::size_t g = 2 * k;
  if (n < 2 * g) return top_k_heap(scores, k, out);
  auto& gm = scratch.sample;
  gm.resize(g);
  strided_group_max(scores.data(), n, g, gm.data());
  std::nth_element(gm.begin(), gm.begin() + static_cast<std::ptrdiff_t>(k - 1), gm.end(),
                   std::greater<>());
  const float tau = gm[k - 1];
  auto& cand = scratch.candidates;
  if (cand.size() < n) cand.resize(n);
  const std::size_t m = collect_candidates(scores.data(), n, tau, cand.data());
  if (m < k) return top_k_heap(scores, k, out);  // only with NaN scores
  auto better = [](const auto& a, const auto& b) {
    return a.first > b.first || (a.first == b.first && a.second < b.second);
  };
  const auto first = cand.begin(), mid = first + static_cast<std::ptrdiff_t>(k),
             last = first + static_cast<std::ptrdiff_t>(m);
  std::partial_sort(first, mid, last, better);
  for (std::size_t i = 0; i < k; ++i) out[i] = cand[i].second;
}

}  // namespace lightsim::kv
