#include "lightsim/kv/attention.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>

namespace lightsim::kv {

namespace {

// Eight tokens' logits in the lanes of double vectors: keys [8 tokens, dim] are read eight
// dimensions at a time, transposed in registers (8 x 8 floats), widened to double, and each
// lane does s += double(q[d]) * double(k[d]) for d = 0, 1, ... in order (separate multiply and
// add: no FMA contraction in this ISO C++ build), so every token's logit has the bits of the
// one-token loop. dim % 8 trailing dimensions are finished per lane in the same order.
// (The scalar eight-token loop below is latency- and load-bound: strided keys, no SIMD.)
__attribute__((target("avx"), always_inline)) inline void transpose8(__m256 r[8]) {
  const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
  const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
  const __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
  const __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
  const __m256 u0 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
  const __m256 u1 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
  const __m256 u2 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
  const __m256 u3 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
  const __m256 u4 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(1, 0, 1, 0));
  const __m256 u5 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(3, 2, 3, 2));
  const __m256 u6 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(1, 0, 1, 0));
  const __m256 u7 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(3, 2, 3, 2));
  r[0] = _mm256_permute2f128_ps(u0, u4, 0x20);
  r[1] = _mm256_permute2f128_ps(u1, u5, 0x20);
  r[2] = _mm256_permute2f128_ps(u2, u6, 0x20);
  r[3] = _mm256_permute2f128_ps(u3, u7, 0x20);
  r[4] = _mm256_permute2f128_ps(u0, u4, 0x31);
  r[5] = _mm256_permute2f128_ps(u1, u5, 0x31);
  r[6] = _mm256_permute2f128_ps(u2, u6, 0x31);
  r[7] = _mm256_permute2f128_ps(u3, u7, 0x31);
}

inline void logits8_tail(const float* k, const float* q, std::size_t dim, std::size_t d0,
                         double* s) {
  for (std::size_t j = 0; j < 8; ++j)
    for (std::size_t d = d0; d < dim; ++d)
      s[j] += static_cast<double>(q[d]) * static_cast<double>(k[j * dim + d]);
}

__attribute__((target("avx512f"))) void logits8_avx512(const float* k, const float* q,
                                                       std::size_t dim, double* s) {
  __m512d acc = _mm512_setzero_pd();
  std::size_t d0 = 0;
  // (maskz with all lanes: the unmasked conversion trips GCC 12's -Wmaybe-uninitialized.)
  for (; d0 + 8 <= dim; d0 += 8) {
    __m256 r[8];
    for (std::size_t j = 0; j < 8; ++j) r[j] = _mm256_loadu_ps(k + j * dim + d0);
    transpose8(r);
    for (std::size_t d = 0; d < 8; ++d)
      acc = _mm512_add_pd(acc, _mm512_mul_pd(_mm512_set1_pd(static_cast<double>(q[d0 + d])),
                                             _mm512_maskz_cvtps_pd(0xFF, r[d])));
  }
  _mm512_storeu_pd(s, acc);
  logits8_tail(k, q, dim, d0, s);
}

__attribute__((target("avx2"))) void logits8_avx2(const float* k, const float* q, std::size_t dim,
                                                  double* s) {
  __m256d lo = _mm256_setzero_pd(), hi = _mm256_setzero_pd();
  std::size_t d0 = 0;
  for (; d0 + 8 <= dim; d0 += 8) {
    __m256 r[8];
    for (std::size_t j = 0; j < 8; ++j) r[j] = _mm256_loadu_ps(k + j * dim + d0);
    transpose8(r);
    for (std::size_t d = 0; d < 8; ++d) {
      const __m256d qd = _mm256_set1_pd(static_cast<double>(q[d0 + d]));
      lo = _mm256_add_pd(lo, _mm256_mul_pd(qd, _mm256_cvtps_pd(_mm256_castps256_ps128(r[d]))));
      hi = _mm256_add_pd(hi, _mm256_mul_pd(qd, _mm256_cvtps_pd(_mm256_extractf128_ps(r[d], 1))));
    }
  }
  _mm256_storeu_pd(s, lo);
  _mm256_storeu_pd(s + 4, hi);
  logits8_tail(k, q, dim, d0, s);
}

void logits8_baseline(const float* k, const float* q, std::size_t dim, double* s) {
  for (std::size_t j = 0; j < 8; ++j) s[j] = 0.0;
  for (std::size_t d = 0; d < dim; ++d) {
    const auto qd = static_cast<double>(q[d]);
    for (std::size_t j = 0; j < 8; ++j) s[j] += qd * k[j * dim + d];
  }
}

using Logits8 = void (*)(const float*, const float*, std::size_t, double*);
Logits8 pick_logits8() {
  if (__builtin_cpu_supports("avx512f")) return logits8_avx512;
  if (__builtin_cpu_supports("avx2")) return logits8_avx2;
  return logits8_baseline;
}

}  // namespace

void attention_weights(const HeadView& head, std::size_t g, std::size_t step,
                       std::vector<double>& p) {
  p.resize(head.tokens);
  const float* q = head.query(g, step);
  const std::size_t dim = head.head_dim;
  const double scale = 1.0 / std::sqrt(static_cast<double>(dim));
  // Eight tokens at a time: eight independent accumulation chains instead of one, each
  // token's dot product still summed over d in order in double, so the logits are
  // bit-identical to the one-token loop (the add latency, not the arithmetic, bounded it).
  // The eight tokens sit in SIMD lanes where the CPU has AVX2 or AVX-512 (same bits).
  constexpr std::size_t kTokens = 8;
  static const Logits8 logits8 = pick_logits8();
  std::size_t t = 0;
  for (; t + kTokens <= head.tokens; t += kTokens) {
    double s[kTokens];
    logits8(head.key(t), q, dim, s);
    for (std::size_t j = 0; j < kTokens; ++j) p[t + j] = s[j] * scale;
  }
  for (; t < head.tokens; ++t) {
    const float* k = head.key(t);
    double s = 0;
    for (std::size_t d = 0; d < dim; ++d) s += static_cast<double>(q[d]) * k[d];
    p[t] = s * scale;
  }
  double mx = -INFINITY;
  for (double x : p) mx = std::max(mx, x);
  double z = 0;
  for (auto& x : p) z += (x = std::exp(x - mx));
  for (auto& x : p) x /= z;
}

void group_attention(const HeadView& head, std::span<const BlockLayout> layouts, std::size_t step,
                     std::vector<double>& p, std::vector<std::vector<double>>& masses,
                     std::vector<double>& resident, std::vector<std::vector<double>>* weights) {
  masses.resize(layouts.size());
  for (std::size_t i = 0; i < layouts.size(); ++i) masses[i].assign(layouts[i].blocks(), 0.0);
  resident.assign(layouts.size(), 0.0);
  if (weights != nullptr) weights->resize(head.group);
  for (std::size_t g = 0; g < head.group; ++g) {
    std::vector<double>& w = weights != nullptr ? (*weights)[g] : p;
    attention_weights(head, g, step, w);
    for (std::size_t i = 0; i < layouts.size(); ++i) {
      const BlockLayout& layout = layouts[i];
      std::vector<double>& mass = masses[i];
      // The non-resident tokens of block b, ascending: [max(begin, sink), min(end, recent)).
      for (std::size_t b = 0; b < layout.blocks(); ++b) {
        const std::size_t end = std::min(layout.end(b), layout.recent_begin());
        for (std::size_t t = std::max(layout.begin(b), layout.sink_end()); t < end; ++t)
          mass[b] += w[t];
      }
      double r = 0;
      for (std::size_t t = 0; t < layout.sink_end(); ++t) r += w[t];
      for (std::size_t t = layout.recent_begin(); t < layout.tokens(); ++t) r += w[t];
      resident[i] += r;
    }
  }
}

void group_block_mass(const HeadView& head, std::span<const BlockLayout> layouts, std::size_t step,
                      std::vector<double>& p, std::vector<std::vector<double>>& masses) {
  std::vector<double> resident;
  group_attention(head, layouts, step, p, masses, resident, nullptr);
}

std::vector<double> group_block_mass(const HeadView& head, const BlockLayout& layout,
                                     std::size_t step) {
  std::vector<double> p;
  std::vector<std::vector<double>> masses;
  group_block_mass(head, std::span<const BlockLayout>(&layout, 1), step, p, masses);
  return std::move(masses[0]);
}

}  // namespace lightsim::kv
