#include "lightsim/kv/kernels.h"

#include <immintrin.h>

#include <algorithm>
#include <functional>
#include <limits>

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

// The reference (previous) path: writes (s[i], i) for every s[i] >= tau to out in index
// order; returns the count. The SIMD paths test a vector of scores at once and only visit the
// set bits of the mask (about 4% of the scores pass at k = 32: a branch per vector that a
// predictor cannot learn on fresh scores), the baseline is a branch-free compaction.
using RefCollectFn = std::size_t (*)(const float*, std::size_t, float,
                                     std::pair<float, std::uint32_t>*);
std::size_t ref_collect_default(const float* s, std::size_t n, float tau,
                                std::pair<float, std::uint32_t>* out) {
  std::size_t m = 0;
  for (std::size_t i = 0; i < n; ++i) {
    out[m] = {s[i], static_cast<std::uint32_t>(i)};
    m += s[i] >= tau ? 1 : 0;
  }
  return m;
}
[[gnu::target("avx2")]] std::size_t ref_collect_avx2(const float* s, std::size_t n, float tau,
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
[[gnu::target("avx512f")]] std::size_t ref_collect_avx512(const float* s, std::size_t n, float tau,
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
RefCollectFn ref_collect_for_cpu() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return ref_collect_avx512;
  if (__builtin_cpu_supports("avx2")) return ref_collect_avx2;
  return ref_collect_default;
}
const RefCollectFn ref_collect_candidates = ref_collect_for_cpu();

// ---- the branch-free top-k kernels (docs/performance.md, "Kernels on the Intel VM") ---------
// Every comparison outcome of a selection of fresh scores is a coin flip for the branch
// predictor, so the kernels below decide nothing by branches on score values: the threshold is
// the k-th largest group maximum found by counting, the candidates are compacted by mask, and
// their order comes from counting too (rank of candidate i = the number of candidates that
// precede it in (score desc, index asc) order: a permutation, so ties are exact). Padding:
// kPadScore / kPadIndex after the last element, which no real element is preceded by.
constexpr float kPadScore = -std::numeric_limits<float>::infinity();
constexpr std::uint32_t kPadIndex = 0x7fffffffu;  // above every index (scores.size() < 2^31)
constexpr std::size_t kPad = 16;                  // padding floats after g and m
// Up to this many candidates are ranked by counting (O(m^2 / lanes)); more (heavy ties) go to
// std::partial_sort. Both orders are exact, so the choice does not change the output.
constexpr std::size_t kMaxRanked = 256;

struct TopKPath {
  // The k-th largest of v[0..g) (v padded with kPadScore to a multiple of 16).
  float (*kth_largest)(const float* v, std::size_t g, std::size_t k);
  // s[i] >= tau: scores to cs, indices to ci, in index order; returns the count.
  std::size_t (*collect)(const float* s, std::size_t n, float tau, float* cs, std::uint32_t* ci);
  // ranked[rank(i)] = ci[i] for i < m (cs, ci padded to a multiple of 16).
  void (*rank)(const float* cs, const std::uint32_t* ci, std::size_t m, std::uint32_t* ranked);
};

// Baseline x86-64: scalar, the counts and selects written as arithmetic.
float kth_largest_baseline(const float* v, std::size_t g, std::size_t k) {
  float tau = kPadScore;
  for (std::size_t c = 0; c < g; ++c) {
    std::size_t ge = 0;
    for (std::size_t e = 0; e < g; ++e) ge += v[e] >= v[c] ? 1 : 0;
    tau = std::max(tau, ge >= k ? v[c] : kPadScore);
  }
  return tau;
}
std::size_t collect_baseline(const float* s, std::size_t n, float tau, float* cs,
                             std::uint32_t* ci) {
  std::size_t m = 0;
  for (std::size_t i = 0; i < n; ++i) {
    cs[m] = s[i];
    ci[m] = static_cast<std::uint32_t>(i);
    m += s[i] >= tau ? 1 : 0;
  }
  return m;
}
void rank_baseline(const float* cs, const std::uint32_t* ci, std::size_t m, std::uint32_t* ranked) {
  for (std::size_t i = 0; i < m; ++i) {
    std::size_t r = 0;
    for (std::size_t j = 0; j < m; ++j)
      r += static_cast<std::size_t>((cs[j] > cs[i]) | ((cs[j] == cs[i]) & (ci[j] < ci[i])));
    ranked[r] = ci[i];
  }
}

// AVX2: 8 lanes; the compaction through a table of lane permutations (one per 8-bit mask).
struct PackTable {
  std::uint64_t lanes[256];  // byte b of entry mask: the lane of the b-th set bit
};
constexpr PackTable make_pack_table() {
  PackTable t{};
  for (unsigned mask = 0; mask < 256; ++mask) {
    std::uint64_t e = 0;
    unsigned b = 0;
    for (unsigned lane = 0; lane < 8; ++lane)
      if ((mask >> lane) & 1u) e |= static_cast<std::uint64_t>(lane) << (8 * b++);
    t.lanes[mask] = e;
  }
  return t;
}
constexpr PackTable kPackTable = make_pack_table();

[[gnu::target("avx2,popcnt")]] float kth_largest_avx2(const float* v, std::size_t g,
                                                      std::size_t k) {
  const __m256i km1 = _mm256_set1_epi32(static_cast<int>(k) - 1);
  __m256 best = _mm256_set1_ps(kPadScore);
  for (std::size_t c = 0; c < g; c += 8) {
    const __m256 x = _mm256_loadu_ps(v + c);
    __m256i cnt = _mm256_setzero_si256();
#pragma GCC unroll 8
    for (std::size_t e = 0; e < g; ++e)  // all-ones lanes are -1: subtracting counts them
      cnt = _mm256_sub_epi32(
          cnt, _mm256_castps_si256(_mm256_cmp_ps(_mm256_set1_ps(v[e]), x, _CMP_GE_OQ)));
    const __m256 ok = _mm256_castsi256_ps(_mm256_cmpgt_epi32(cnt, km1));
    best = _mm256_max_ps(best, _mm256_blendv_ps(_mm256_set1_ps(kPadScore), x, ok));
  }
  __m128 h = _mm_max_ps(_mm256_castps256_ps128(best), _mm256_extractf128_ps(best, 1));
  h = _mm_max_ps(h, _mm_movehl_ps(h, h));
  h = _mm_max_ss(h, _mm_shuffle_ps(h, h, 1));
  return _mm_cvtss_f32(h);
}
[[gnu::target("avx2,popcnt")]] std::size_t collect_avx2(const float* s, std::size_t n, float tau,
                                                        float* cs, std::uint32_t* ci) {
  std::size_t m = 0, i = 0;
  const __m256 t = _mm256_set1_ps(tau);
  const __m256i eight = _mm256_set1_epi32(8);
  __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_loadu_ps(s + i);
    const auto mask = static_cast<unsigned>(_mm256_movemask_ps(_mm256_cmp_ps(v, t, _CMP_GE_OQ)));
    const __m256i perm =
        _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(static_cast<long long>(kPackTable.lanes[mask])));
    _mm256_storeu_ps(cs + m, _mm256_permutevar8x32_ps(v, perm));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(ci + m), _mm256_permutevar8x32_epi32(idx, perm));
    m += static_cast<std::size_t>(__builtin_popcount(mask));
    idx = _mm256_add_epi32(idx, eight);
  }
  for (; i < n; ++i) {
    cs[m] = s[i];
    ci[m] = static_cast<std::uint32_t>(i);
    m += s[i] >= tau ? 1 : 0;
  }
  return m;
}
[[gnu::target("avx2,popcnt")]] void rank_avx2(const float* cs, const std::uint32_t* ci,
                                              std::size_t m, std::uint32_t* ranked) {
  for (std::size_t i = 0; i < m; ++i) {
    const __m256 x = _mm256_set1_ps(cs[i]);
    const __m256i xi = _mm256_set1_epi32(static_cast<int>(ci[i]));
    std::size_t r = 0;
    for (std::size_t j = 0; j < m; j += 8) {
      const __m256 c = _mm256_loadu_ps(cs + j);
      const __m256i cj = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(ci + j));
      const __m256 before =
          _mm256_or_ps(_mm256_cmp_ps(c, x, _CMP_GT_OQ),
                       _mm256_and_ps(_mm256_cmp_ps(c, x, _CMP_EQ_OQ),
                                     _mm256_castsi256_ps(_mm256_cmpgt_epi32(xi, cj))));
      r += static_cast<std::size_t>(
          __builtin_popcount(static_cast<unsigned>(_mm256_movemask_ps(before))));
    }
    ranked[r] = ci[i];
  }
}

// AVX-512F: 16 lanes, mask registers, compress stores. (GCC 12's avx512fintrin.h passes
// _mm512_undefined_ps() as the pass-through of unmasked builtins, which -Wuninitialized
// reports once inlined: GCC bug 105593.)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
[[gnu::target("avx512f,popcnt")]] float kth_largest_avx512(const float* v, std::size_t g,
                                                           std::size_t k) {
  const __m512i one = _mm512_set1_epi32(1), kk = _mm512_set1_epi32(static_cast<int>(k));
  __m512 best = _mm512_set1_ps(kPadScore);
  for (std::size_t c = 0; c < g; c += 16) {
    const __m512 x = _mm512_loadu_ps(v + c);
    __m512i cnt = _mm512_setzero_si512();
#pragma GCC unroll 8
    for (std::size_t e = 0; e < g; ++e)
      cnt = _mm512_mask_add_epi32(cnt, _mm512_cmp_ps_mask(_mm512_set1_ps(v[e]), x, _CMP_GE_OQ), cnt,
                                  one);
    best = _mm512_mask_max_ps(best, _mm512_cmpge_epi32_mask(cnt, kk), best, x);
  }
  return _mm512_reduce_max_ps(best);
}
[[gnu::target("avx512f,popcnt")]] std::size_t collect_avx512(const float* s, std::size_t n,
                                                             float tau, float* cs,
                                                             std::uint32_t* ci) {
  std::size_t m = 0, i = 0;
  const __m512 t = _mm512_set1_ps(tau);
  const __m512i sixteen = _mm512_set1_epi32(16);
  __m512i idx = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  for (; i < n; i += 16) {
    const auto live = static_cast<__mmask16>(n - i >= 16 ? 0xffffu : (1u << (n - i)) - 1u);
    const __m512 v = _mm512_maskz_loadu_ps(live, s + i);
    const __mmask16 mask = _mm512_mask_cmp_ps_mask(live, v, t, _CMP_GE_OQ);
    _mm512_mask_compressstoreu_ps(cs + m, mask, v);
    _mm512_mask_compressstoreu_epi32(ci + m, mask, idx);
    m += static_cast<std::size_t>(__builtin_popcount(mask));
    idx = _mm512_add_epi32(idx, sixteen);
  }
  return m;
}
[[gnu::target("avx512f,popcnt")]] void rank_avx512(const float* cs, const std::uint32_t* ci,
                                                   std::size_t m, std::uint32_t* ranked) {
  for (std::size_t i = 0; i < m; ++i) {
    const __m512 x = _mm512_set1_ps(cs[i]);
    const __m512i xi = _mm512_set1_epi32(static_cast<int>(ci[i]));
    std::size_t r = 0;
    for (std::size_t j = 0; j < m; j += 16) {
      const __m512 c = _mm512_loadu_ps(cs + j);
      const __m512i cj = _mm512_loadu_si512(ci + j);
      const __mmask16 eq_before =
          _mm512_mask_cmplt_epu32_mask(_mm512_cmp_ps_mask(c, x, _CMP_EQ_OQ), cj, xi);
      const __mmask16 before = _mm512_cmp_ps_mask(c, x, _CMP_GT_OQ) | eq_before;
      r += static_cast<std::size_t>(__builtin_popcount(before));
    }
    ranked[r] = ci[i];
  }
}

#pragma GCC diagnostic pop

constexpr TopKPath kTopKBaseline{kth_largest_baseline, collect_baseline, rank_baseline};
constexpr TopKPath kTopKAvx2{kth_largest_avx2, collect_avx2, rank_avx2};
constexpr TopKPath kTopKAvx512{kth_largest_avx512, collect_avx512, rank_avx512};

const TopKPath& top_k_path(lightsim::detail::SimdLevel level) {
  LIGHTSIM_CHECK(lightsim::detail::simd_level_supported(level),
                 "SIMD level {} not supported by this CPU", static_cast<int>(level));
  switch (level) {
    case lightsim::detail::SimdLevel::avx512:
      return kTopKAvx512;
    case lightsim::detail::SimdLevel::avx2:
      return kTopKAvx2;
    case lightsim::detail::SimdLevel::baseline:
      break;
  }
  return kTopKBaseline;
}

// The exact order of m >= k candidates by std::partial_sort (heavy ties; the reference).
void partial_sort_candidates(const float* cs, const std::uint32_t* ci, std::size_t m, std::size_t k,
                             TopKScratch& scratch, std::uint32_t* out) {
  auto& cand = scratch.candidates;
  cand.resize(m);
  for (std::size_t i = 0; i < m; ++i) cand[i] = {cs[i], ci[i]};
  auto better = [](const auto& a, const auto& b) {
    return a.first > b.first || (a.first == b.first && a.second < b.second);
  };
  const auto first = cand.begin(), mid = first + static_cast<std::ptrdiff_t>(k),
             last = first + static_cast<std::ptrdiff_t>(m);
  std::partial_sort(first, mid, last, better);
  for (std::size_t i = 0; i < k; ++i) out[i] = cand[i].second;
}

void top_k_with(const TopKPath& path, std::span<const float> scores, std::size_t k,
                TopKScratch& scratch, std::uint32_t* out) {
  const std::size_t n = scores.size();
  LIGHTSIM_CHECK(k <= n, "top_k_indices: k exceeds the number of scores");
  LIGHTSIM_CHECK(n < kPadIndex, "top_k_indices: {} scores (at most 2^31 - 1)", n);
  if (k == 0) return;
  const std::size_t g = 2 * k;
  if (n < 2 * g) return top_k_heap(scores, k, out);
  auto& gm = scratch.sample;
  gm.assign(g + kPad, kPadScore);
  strided_group_max(scores.data(), n, g, gm.data());
  const float tau = path.kth_largest(gm.data(), g, k);
  auto& cs = scratch.cand_scores;
  auto& ci = scratch.cand_index;
  if (cs.size() < n + kPad) {
    cs.resize(n + kPad);
    ci.resize(n + kPad);
  }
  const std::size_t m = path.collect(scores.data(), n, tau, cs.data(), ci.data());
  if (m < k) return top_k_heap(scores, k, out);  // only with NaN scores
  if (m > kMaxRanked) return partial_sort_candidates(cs.data(), ci.data(), m, k, scratch, out);
  std::fill_n(cs.data() + m, kPad, kPadScore);
  std::fill_n(ci.data() + m, kPad, kPadIndex);
  auto& ranked = scratch.ranked;
  if (ranked.size() < kMaxRanked) ranked.resize(kMaxRanked);
  path.rank(cs.data(), ci.data(), m, ranked.data());
  std::copy_n(ranked.data(), k, out);
}

}  // namespace

// Exact threshold selection. Split the scores into g = 2k strided groups (i mod g) and let tau
// be the k-th largest group maximum: k distinct scores (those maxima) are >= tau, so the k-th
// largest score is >= tau and every top-k score is a candidate (score >= tau). Only the
// candidates (about 4% of 1024 i.i.d. scores at k = 32) are ranked. Ties keep every equal
// score, so the (score desc, index asc) order is exact.
void top_k_indices(std::span<const float> scores, std::size_t k, TopKScratch& scratch,
                   std::uint32_t* out) {
  static const TopKPath& path = top_k_path(lightsim::detail::best_simd_level());
  top_k_with(path, scores, k, scratch, out);
}

namespace detail {

void top_k_indices_at(lightsim::detail::SimdLevel level, std::span<const float> scores,
                      std::size_t k, TopKScratch& scratch, std::uint32_t* out) {
  top_k_with(top_k_path(level), scores, k, scratch, out);
}

// The implementation before the branch-free kernels: nth_element for the threshold, the
// candidates as pairs in index order, std::partial_sort.
void top_k_indices_partial_sort(std::span<const float> scores, std::size_t k, TopKScratch& scratch,
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
  const std::size_t m = ref_collect_candidates(scores.data(), n, tau, cand.data());
  if (m < k) return top_k_heap(scores, k, out);
  auto better = [](const auto& a, const auto& b) {
    return a.first > b.first || (a.first == b.first && a.second < b.second);
  };
  std::partial_sort(cand.begin(), cand.begin() + static_cast<std::ptrdiff_t>(k),
                    cand.begin() + static_cast<std::ptrdiff_t>(m), better);
  for (std::size_t i = 0; i < k; ++i) out[i] = cand[i].second;
}

}  // namespace detail

}  // namespace lightsim::kv
