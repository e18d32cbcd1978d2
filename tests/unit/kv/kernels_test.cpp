#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <numeric>

#include "lightsim/core/error.h"
#include "lightsim/core/rng.h"
#include "lightsim/kv/kernels.h"

namespace lightsim::kv {
namespace {

TEST(KvKernels, SignatureScoresMatchPlainDotProducts) {
  const std::size_t blocks = 37, dim = 5;
  std::vector<float> sig(blocks * dim), q(dim), out(blocks);
  RandomStream rng(3, {1});
  rng.fill_normal(std::span<float>(sig));
  rng.fill_normal(std::span<float>(q));
  score_signatures(sig.data(), q.data(), blocks, dim, out.data());
  for (std::size_t b = 0; b < blocks; ++b) {
    float s = 0;
    for (std::size_t j = 0; j < dim; ++j) s += sig[j * blocks + b] * q[j];
    EXPECT_EQ(out[b], s);
  }
}

TEST(KvKernels, TopKMatchesFullSortWithTies) {
  std::vector<float> scores{1, 5, 3, 5, 2, 5, 0, 4};
  std::vector<std::uint32_t> top(4);
  TopKScratch scratch;
  top_k_indices(scores, 4, scratch, top.data());
  EXPECT_EQ(top, (std::vector<std::uint32_t>{1, 3, 5, 7}));
  top.resize(2);
  top_k_indices(scores, 2, scratch, top.data());
  EXPECT_EQ(top, (std::vector<std::uint32_t>{1, 3}));
  // Random data against a stable sort.
  std::vector<float> r(1000);
  RandomStream rng(4, {1});
  rng.fill_normal(std::span<float>(r));
  std::vector<std::uint32_t> idx(r.size());
  std::iota(idx.begin(), idx.end(), 0u);
  std::stable_sort(idx.begin(), idx.end(), [&](auto a, auto b) { return r[a] > r[b]; });
  std::vector<std::uint32_t> got(32);
  top_k_indices(r, 32, scratch, got.data());
  EXPECT_EQ(got, std::vector<std::uint32_t>(idx.begin(), idx.begin() + 32));
}

}  // namespace
}  // namespace lightsim::kv

namespace lightsim::kv {
namespace {

TEST(KvKernels, TopKSampledPathAndFallbackAreExact) {
  // Many ties (integers 0..9) exercise the >= threshold path; a sorted ramp puts every large
  // value past the sample and an all-equal array forces ties everywhere.
  TopKScratch scratch;
  for (int pattern = 0; pattern < 3; ++pattern) {
    std::vector<float> s(2048);
    for (std::size_t i = 0; i < s.size(); ++i)
      s[i] = pattern == 0   ? static_cast<float>((i * 7919) % 10)
             : pattern == 1 ? static_cast<float>(i)
                            : 1.0f;
    std::vector<std::uint32_t> idx(s.size());
    std::iota(idx.begin(), idx.end(), 0u);
    std::stable_sort(idx.begin(), idx.end(), [&](auto a, auto b) { return s[a] > s[b]; });
    for (std::size_t k : {1u, 5u, 32u, 100u}) {
      std::vector<std::uint32_t> got(k);
      top_k_indices(s, k, scratch, got.data());
      EXPECT_EQ(got, std::vector<std::uint32_t>(idx.begin(), idx.begin() + static_cast<long>(k)))
          << "pattern " << pattern << " k " << k;
    }
  }
}

}  // namespace
}  // namespace lightsim::kv

namespace lightsim::kv {
namespace {

TEST(KvKernels, BlockedLayoutGivesTheSameBitsAsTheTransposedOne) {
  // Block counts below, at and past whole tiles of kSignatureTile (the padded last tile).
  for (std::size_t blocks : {1u, 37u, 64u, 65u, 200u, 1024u}) {
    const std::size_t dim = 32;
    std::vector<float> sig(blocks * dim), sig_t(blocks * dim), q(dim), a(blocks), b(blocks);
    RandomStream rng(5, {blocks});
    rng.fill_normal(std::span<float>(sig));
    rng.fill_normal(std::span<float>(q));
    for (std::size_t i = 0; i < blocks; ++i)
      for (std::size_t j = 0; j < dim; ++j) sig_t[j * blocks + i] = sig[i * dim + j];
    BlockedSignatures packed;
    pack_signatures(sig.data(), blocks, dim, packed);
    EXPECT_EQ(packed.data.size(),
              (blocks + kSignatureTile - 1) / kSignatureTile * kSignatureTile * dim);
    score_signatures(sig_t.data(), q.data(), blocks, dim, a.data());
    score_signatures_blocked(packed, q.data(), b.data());
    for (std::size_t i = 0; i < blocks; ++i) {
      EXPECT_EQ(a[i], b[i]) << "blocks " << blocks << " block " << i;
      float s = 0;  // the plain in-order sum
      for (std::size_t j = 0; j < dim; ++j) s += sig[i * dim + j] * q[j];
      EXPECT_EQ(b[i], s);
    }
  }
}

TEST(KvKernels, TopKThresholdPathIsExactForManySizes) {
  // Sizes that are not multiples of the 2k strided groups, correlated (smooth) and i.i.d.
  // scores, and k from 1 to n / 4, against a stable sort.
  TopKScratch scratch;
  RandomStream rng(6, {1});
  for (std::size_t n : {64u, 100u, 257u, 1000u, 1024u, 4099u}) {
    std::vector<float> s(n);
    rng.fill_normal(std::span<float>(s));
    for (int smooth = 0; smooth < 2; ++smooth) {
      if (smooth == 1)
        for (std::size_t i = 1; i < n; ++i) s[i] = 0.9f * s[i - 1] + 0.1f * s[i];
      std::vector<std::uint32_t> idx(n);
      std::iota(idx.begin(), idx.end(), 0u);
      std::stable_sort(idx.begin(), idx.end(), [&](auto a, auto b) { return s[a] > s[b]; });
      for (std::size_t k : {std::size_t{1}, std::size_t{3}, std::size_t{16}, n / 4}) {
        std::vector<std::uint32_t> got(k);
        top_k_indices(s, k, scratch, got.data());
        EXPECT_EQ(got, std::vector<std::uint32_t>(idx.begin(), idx.begin() + static_cast<long>(k)))
            << "n " << n << " k " << k << " smooth " << smooth;
      }
    }
  }
  std::vector<std::uint32_t> one(1);
  EXPECT_THROW(top_k_indices(std::vector<float>{1.0f}, 2, scratch, one.data()), Error);
}

}  // namespace
}  // namespace lightsim::kv

namespace lightsim::kv {
namespace {

// The branch-free top-k kernels (every SIMD path this CPU has) against the previous
// implementation (detail::top_k_indices_partial_sort) and a stable sort: the same indices in
// the same order, ties included, for i.i.d., smooth, integer-valued (heavy ties), all-equal
// and -inf-bearing scores, sizes that are not multiples of the vector widths, k from 1 to n/4
// and candidate counts on both sides of the ranked/partial-sort switch.
TEST(KvKernels, TopKEverySimdPathEqualsThePartialSortReference) {
  using lightsim::detail::SimdLevel;
  TopKScratch scratch, ref_scratch;
  RandomStream rng(7, {1});
  for (std::size_t n : {64u, 129u, 1000u, 1024u, 1031u, 8192u}) {
    for (int pattern = 0; pattern < 5; ++pattern) {
      std::vector<float> s(n);
      rng.fill_normal(std::span<float>(s));
      for (std::size_t i = 0; i < n; ++i) {
        if (pattern == 1 && i > 0) s[i] = 0.9f * s[i - 1] + 0.1f * s[i];
        if (pattern == 2) s[i] = static_cast<float>((i * 7919) % 13);
        if (pattern == 3) s[i] = 0.5f;
        if (pattern == 4 && i % 3 == 0) s[i] = -std::numeric_limits<float>::infinity();
      }
      std::vector<std::uint32_t> idx(n);
      std::iota(idx.begin(), idx.end(), 0u);
      std::stable_sort(idx.begin(), idx.end(), [&](auto a, auto b) { return s[a] > s[b]; });
      for (std::size_t k : {std::size_t{1}, std::size_t{7}, std::size_t{32}, n / 4}) {
        const std::vector<std::uint32_t> want(idx.begin(), idx.begin() + static_cast<long>(k));
        std::vector<std::uint32_t> ref(k), got(k);
        detail::top_k_indices_partial_sort(s, k, ref_scratch, ref.data());
        EXPECT_EQ(ref, want) << "n " << n << " pattern " << pattern << " k " << k;
        for (SimdLevel level : {SimdLevel::baseline, SimdLevel::avx2, SimdLevel::avx512}) {
          if (!lightsim::detail::simd_level_supported(level)) continue;
          std::fill(got.begin(), got.end(), 0u);
          detail::top_k_indices_at(level, s, k, scratch, got.data());
          EXPECT_EQ(got, ref) << "n " << n << " pattern " << pattern << " k " << k << " level "
                              << static_cast<int>(level);
        }
      }
    }
  }
}

}  // namespace
}  // namespace lightsim::kv
