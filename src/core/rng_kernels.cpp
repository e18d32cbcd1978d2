// Bulk Philox and float Box-Muller kernels, compiled three times (baseline x86-64, AVX2,
// AVX-512) and dispatched at run time. The Philox rounds use explicit 32x32->64 multiply
// intrinsics on AVX2/AVX-512 (GCC does not vectorize the high half of the product); the
// Box-Muller transform is the shared portable body in rng_kernel_body.h, auto-vectorized.
//
// Determinism: all paths give bit-identical output (tests compare them). The target strings
// must never enable "fma": this file is also built with -ffp-contract=off.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "lightsim/core/error.h"
#include "lightsim/core/rng.h"

namespace lightsim::detail {
namespace {

constexpr std::uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;  // Philox4x32 multipliers
constexpr std::uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;  // Philox4x32 key bumps
constexpr int kGroupBlocks = 16;                               // Philox blocks per iteration
constexpr int kGroupWords = 4 * kGroupBlocks;

namespace baseline {
// Philox4x32-10 on blocks [block0, block0 + 16). Lane i of block i: words 0..3 go to
// a[i], b[i], a[16 + i], b[16 + i] (the two Box-Muller pairs of the block).
[[gnu::always_inline]] static inline void philox_group(const StreamKey& key, std::uint64_t block0,
                                                       std::uint32_t* a, std::uint32_t* b) {
  std::uint32_t c0[kGroupBlocks], c1[kGroupBlocks], c2[kGroupBlocks], c3[kGroupBlocks];
  for (int i = 0; i < kGroupBlocks; ++i) {
    const std::uint64_t blk = block0 + static_cast<std::uint64_t>(i);
    c0[i] = static_cast<std::uint32_t>(blk);
    c1[i] = static_cast<std::uint32_t>(blk >> 32);
    c2[i] = key.ctr_hi[0];
    c3[i] = key.ctr_hi[1];
  }
  std::uint32_t k0 = key.key[0], k1 = key.key[1];
  for (int round = 0; round < 10; ++round) {
    for (int i = 0; i < kGroupBlocks; ++i) {
      const std::uint64_t p0 = std::uint64_t{kM0} * c0[i];
      const std::uint64_t p1 = std::uint64_t{kM1} * c2[i];
      const std::uint32_t n0 = static_cast<std::uint32_t>(p1 >> 32) ^ c1[i] ^ k0;
      const std::uint32_t n2 = static_cast<std::uint32_t>(p0 >> 32) ^ c3[i] ^ k1;
      c1[i] = static_cast<std::uint32_t>(p1);
      c3[i] = static_cast<std::uint32_t>(p0);
      c0[i] = n0;
      c2[i] = n2;
    }
    k0 += kW0;
    k1 += kW1;
  }
  for (int i = 0; i < kGroupBlocks; ++i) {
    a[i] = c0[i];
    b[i] = c1[i];
    a[kGroupBlocks + i] = c2[i];
    b[kGroupBlocks + i] = c3[i];
  }
}

#include "rng_kernel_body.h"
}  // namespace baseline

#if defined(__x86_64__)
// Clang has no `#pragma GCC target`; its equivalent applies the target attribute to every
// function up to the matching pop.
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2")
#endif
namespace avx2 {
// (hi, lo) of the 32x32->64 products c * m, lane by lane.
[[gnu::always_inline]] static inline void mulhilo(__m256i c, __m256i m, __m256i& hi, __m256i& lo) {
  const __m256i even = _mm256_mul_epu32(c, m);
  const __m256i odd = _mm256_mul_epu32(_mm256_srli_epi64(c, 32), m);
  hi = _mm256_blend_epi32(_mm256_srli_epi64(even, 32), odd, 0xAA);
  lo = _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA);
}

// Same contract as baseline::philox_group, two 8-lane vectors per counter word.
[[gnu::always_inline]] static inline void philox_group(const StreamKey& key, std::uint64_t block0,
                                                       std::uint32_t* a, std::uint32_t* b) {
  const __m256i m0 = _mm256_set1_epi32(static_cast<int>(kM0));
  const __m256i m1 = _mm256_set1_epi32(static_cast<int>(kM1));
  for (int half = 0; half < 2; ++half) {
    alignas(32) std::uint32_t lo[8], hi[8];
    for (int i = 0; i < 8; ++i) {
      const std::uint64_t blk = block0 + static_cast<std::uint64_t>(8 * half + i);
      lo[i] = static_cast<std::uint32_t>(blk);
      hi[i] = static_cast<std::uint32_t>(blk >> 32);
    }
    __m256i c0 = _mm256_load_si256(reinterpret_cast<const __m256i*>(lo));
    __m256i c1 = _mm256_load_si256(reinterpret_cast<const __m256i*>(hi));
    __m256i c2 = _mm256_set1_epi32(static_cast<int>(key.ctr_hi[0]));
    __m256i c3 = _mm256_set1_epi32(static_cast<int>(key.ctr_hi[1]));
    std::uint32_t k0 = key.key[0], k1 = key.key[1];
    for (int round = 0; round < 10; ++round) {
      __m256i hi0, lo0, hi1, lo1;
      mulhilo(c0, m0, hi0, lo0);
      mulhilo(c2, m1, hi1, lo1);
      c0 = _mm256_xor_si256(_mm256_xor_si256(hi1, c1), _mm256_set1_epi32(static_cast<int>(k0)));
      c2 = _mm256_xor_si256(_mm256_xor_si256(hi0, c3), _mm256_set1_epi32(static_cast<int>(k1)));
      c1 = lo1;
      c3 = lo0;
      k0 += kW0;
      k1 += kW1;
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(a + 8 * half), c0);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(b + 8 * half), c1);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(a + kGroupBlocks + 8 * half), c2);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(b + kGroupBlocks + 8 * half), c3);
  }
}
#include "rng_kernel_body.h"
}  // namespace avx2
#if defined(__clang__)
#pragma clang attribute pop
#pragma clang attribute push(__attribute__((target("avx512f,avx512vl,avx512dq,avx512bw"))), \
                             apply_to = function)
#else
#pragma GCC pop_options
#pragma GCC push_options
#pragma GCC target("avx512f,avx512vl,avx512dq,avx512bw,prefer-vector-width=512")
#endif
namespace avx512 {
[[gnu::always_inline]] static inline void mulhilo(__m512i c, __m512i m, __m512i& hi, __m512i& lo) {
  // maskz_ shifts: the unmasked ones trip a GCC 12 -Wmaybe-uninitialized false positive.
  const __m512i even = _mm512_maskz_mul_epu32(0xFF, c, m);
  const __m512i odd = _mm512_maskz_mul_epu32(0xFF, _mm512_maskz_srli_epi64(0xFF, c, 32), m);
  hi = _mm512_mask_blend_epi32(0xAAAA, _mm512_maskz_srli_epi64(0xFF, even, 32), odd);
  lo = _mm512_mask_blend_epi32(0xAAAA, even, _mm512_maskz_slli_epi64(0xFF, odd, 32));
}

// Same contract as baseline::philox_group, one 16-lane vector per counter word.
[[gnu::always_inline]] static inline void philox_group(const StreamKey& key, std::uint64_t block0,
                                                       std::uint32_t* a, std::uint32_t* b) {
  alignas(64) std::uint32_t lo[16], hi[16];
  for (int i = 0; i < 16; ++i) {
    const std::uint64_t blk = block0 + static_cast<std::uint64_t>(i);
    lo[i] = static_cast<std::uint32_t>(blk);
    hi[i] = static_cast<std::uint32_t>(blk >> 32);
  }
  const __m512i m0 = _mm512_set1_epi32(static_cast<int>(kM0));
  const __m512i m1 = _mm512_set1_epi32(static_cast<int>(kM1));
  __m512i c0 = _mm512_load_si512(lo);
  __m512i c1 = _mm512_load_si512(hi);
  __m512i c2 = _mm512_set1_epi32(static_cast<int>(key.ctr_hi[0]));
  __m512i c3 = _mm512_set1_epi32(static_cast<int>(key.ctr_hi[1]));
  std::uint32_t k0 = key.key[0], k1 = key.key[1];
  for (int round = 0; round < 10; ++round) {
    __m512i hi0, lo0, hi1, lo1;
    mulhilo(c0, m0, hi0, lo0);
    mulhilo(c2, m1, hi1, lo1);
    c0 = _mm512_ternarylogic_epi32(hi1, c1, _mm512_set1_epi32(static_cast<int>(k0)), 0x96);
    c2 = _mm512_ternarylogic_epi32(hi0, c3, _mm512_set1_epi32(static_cast<int>(k1)), 0x96);
    c1 = lo1;
    c3 = lo0;
    k0 += kW0;
    k1 += kW1;
  }
  _mm512_storeu_si512(a, c0);
  _mm512_storeu_si512(b, c1);
  _mm512_storeu_si512(a + kGroupBlocks, c2);
  _mm512_storeu_si512(b + kGroupBlocks, c3);
}
#include "rng_kernel_body.h"
}  // namespace avx512
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#endif  // __x86_64__

}  // namespace

bool simd_level_supported(SimdLevel level) {
  switch (level) {
    case SimdLevel::baseline:
      return true;
#if defined(__x86_64__)
    case SimdLevel::avx2:
      return __builtin_cpu_supports("avx2");
    case SimdLevel::avx512:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
             __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw");
#else
    default:
      return false;
#endif
  }
  return false;
}

SimdLevel best_simd_level() {
  static const SimdLevel level = simd_level_supported(SimdLevel::avx512) ? SimdLevel::avx512
                                 : simd_level_supported(SimdLevel::avx2) ? SimdLevel::avx2
                                                                         : SimdLevel::baseline;
  return level;
}

void normal_float_at(SimdLevel level, const StreamKey& key, std::uint64_t first,
                     std::span<float> out) {
  LIGHTSIM_CHECK(simd_level_supported(level), "SIMD level {} not supported by this CPU",
                 static_cast<int>(level));
#if defined(__x86_64__)
  if (level == SimdLevel::avx512) return avx512::normal_float(key, first, out.data(), out.size());
  if (level == SimdLevel::avx2) return avx2::normal_float(key, first, out.data(), out.size());
#endif
  baseline::normal_float(key, first, out.data(), out.size());
}

void philox_words_at(SimdLevel level, const StreamKey& key, std::uint64_t first_block,
                     std::span<std::uint32_t> out) {
  LIGHTSIM_CHECK(simd_level_supported(level), "SIMD level {} not supported by this CPU",
                 static_cast<int>(level));
  LIGHTSIM_CHECK(out.size() % 4 == 0, "philox_words_at needs whole blocks, got {} words",
                 out.size());
  const std::size_t n = out.size() / 4;
#if defined(__x86_64__)
  if (level == SimdLevel::avx512) return avx512::philox_words(key, first_block, out.data(), n);
  if (level == SimdLevel::avx2) return avx2::philox_words(key, first_block, out.data(), n);
#endif
  baseline::philox_words(key, first_block, out.data(), n);
}

}  // namespace lightsim::detail
