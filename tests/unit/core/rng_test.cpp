// Random streams: Philox correctness, determinism contracts, statistical quality.
// Sample sizes and seeds are fixed, so every statistical check is deterministic; the bounds are
// set at about 5 standard errors (or p ~ 1e-3 for KS), so a correct generator passes them
// with any seed with overwhelming probability.
#include "lightsim/core/rng.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numbers>
#include <vector>

#include "lightsim/core/error.h"

namespace lightsim {
namespace {

using detail::SimdLevel;

std::vector<SimdLevel> supported_levels() {
  std::vector<SimdLevel> levels;
  for (auto l : {SimdLevel::baseline, SimdLevel::avx2, SimdLevel::avx512})
    if (detail::simd_level_supported(l)) levels.push_back(l);
  return levels;
}

double normal_cdf(double x) {
  return 0.5 * std::erfc(-x / std::numbers::sqrt2);
}

// Kolmogorov-Smirnov statistic sqrt(n) * D against the standard normal.
template <typename T>
double ks_statistic(std::vector<T> v) {
  std::sort(v.begin(), v.end());
  const double n = static_cast<double>(v.size());
  double d = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const double f = normal_cdf(static_cast<double>(v[i]));
    d = std::max({d, f - static_cast<double>(i) / n, static_cast<double>(i + 1) / n - f});
  }
  return d * std::sqrt(n);
}

template <typename T>
void expect_standard_normal(const std::vector<T>& v) {
  const double n = static_cast<double>(v.size());
  double sum = 0, sum2 = 0, sum4 = 0;
  std::size_t beyond4 = 0;
  for (T x : v) {
    const double d = static_cast<double>(x);
    sum += d;
    sum2 += d * d;
    sum4 += d * d * d * d;
    if (std::abs(d) > 4.0) ++beyond4;
  }
  const double mean = sum / n, var = sum2 / n - mean * mean;
  EXPECT_LT(std::abs(mean), 5.0 / std::sqrt(n));
  EXPECT_LT(std::abs(var - 1.0), 5.0 * std::sqrt(2.0 / n));
  EXPECT_LT(std::abs(sum4 / n - 3.0), 5.0 * std::sqrt(96.0 / n));  // var of z^4 is 105 - 9
  const double p4 = 2.0 * normal_cdf(-4.0);                        // 6.33e-5
  const double expected = p4 * n;
  EXPECT_LT(std::abs(static_cast<double>(beyond4) - expected), 5.0 * std::sqrt(expected))
      << beyond4 << " beyond 4 sigma, expected " << expected;
  // P(sqrt(n) D > 1.95) ~ 0.001 under the null hypothesis.
  std::vector<T> head(v.begin(), v.begin() + std::min<std::ptrdiff_t>(v.size(), 1'000'000));
  EXPECT_LT(ks_statistic(head), 1.95);
}

double correlation(const std::vector<float>& x, const std::vector<float>& y) {
  double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
  const double n = static_cast<double>(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    sx += x[i], sy += y[i];
    sxx += double{x[i]} * x[i], syy += double{y[i]} * y[i], sxy += double{x[i]} * y[i];
  }
  return (sxy / n - sx / n * sy / n) /
         std::sqrt((sxx / n - sx / n * sx / n) * (syy / n - sy / n * sy / n));
}

TEST(Rng, PhiloxKnownAnswers) {
  // Random123 known-answer vectors for philox4x32-10 (kat_vectors).
  StreamKey zero;
  EXPECT_EQ(philox_block(zero, 0),
            (std::array<std::uint32_t, 4>{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  StreamKey ones{{0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}};
  EXPECT_EQ(philox_block(ones, ~std::uint64_t{0}),
            (std::array<std::uint32_t, 4>{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
}

TEST(Rng, BulkPhiloxMatchesScalarOnEveryPath) {
  const StreamKey key = StreamKey::derive(7, {1, 2, 3});
  for (std::uint64_t first : {std::uint64_t{0}, std::uint64_t{5}, (std::uint64_t{1} << 32) - 9}) {
    for (SimdLevel level : supported_levels()) {
      std::vector<std::uint32_t> words(4 * 37);
      detail::philox_words_at(level, key, first, words);
      for (std::size_t b = 0; b < 37; ++b) {
        const auto ref = philox_block(key, first + b);
        ASSERT_TRUE(std::equal(ref.begin(), ref.end(), words.begin() + 4 * b))
            << "level " << static_cast<int>(level) << " block " << first + b;
      }
    }
  }
}

TEST(Rng, FloatNormalsAreBitIdenticalOnEverySimdPath) {
  const StreamKey key = StreamKey::derive(11, {4});
  for (std::uint64_t first : {0, 1, 63, 1000}) {
    std::vector<float> ref(20011);
    detail::normal_float_at(SimdLevel::baseline, key, first, ref);
    for (SimdLevel level : supported_levels()) {
      std::vector<float> got(ref.size());
      detail::normal_float_at(level, key, first, got);
      EXPECT_EQ(std::memcmp(ref.data(), got.data(), ref.size() * sizeof(float)), 0)
          << "level " << static_cast<int>(level) << " first " << first;
    }
  }
}

TEST(Rng, FloatNormalFillDoesNotDependOnChunking) {
  RandomStream whole(3, {9});
  std::vector<float> ref(5000);
  whole.fill_normal(std::span<float>(ref));
  RandomStream parts(3, {9});
  std::vector<float> got(ref.size());
  std::size_t at = 0, step = 1;
  while (at < got.size()) {
    const std::size_t n = std::min(step, got.size() - at);
    parts.fill_normal(std::span<float>(got).subspan(at, n));
    at += n;
    step = step * 3 % 97 + 1;  // 1, 4, 13, 40, 24, ...: odd and even sizes, group crossings
  }
  EXPECT_EQ(std::memcmp(ref.data(), got.data(), ref.size() * sizeof(float)), 0);
  EXPECT_EQ(parts.position(), whole.position());
}

TEST(Rng, ScalarAndBulkDoubleDrawsAgree) {
  RandomStream a(5, {1}), b(5, {1});
  a.next_u32();  // odd position: both must realign the same way
  b.next_u32();
  std::vector<double> bulk(1001);
  a.fill_normal(std::span<double>(bulk).subspan(0, 1));
  a.fill_normal(std::span<double>(bulk).subspan(1));
  for (double v : bulk) ASSERT_EQ(v, b.normal());
  std::vector<double> uni(333);
  a.fill_uniform(std::span<double>(uni));
  for (double v : uni) ASSERT_EQ(v, b.uniform());
  std::vector<float> unif(77);
  a.fill_uniform(std::span<float>(unif));
  for (float v : unif) ASSERT_EQ(v, b.uniform_float());
  EXPECT_EQ(a.position(), b.position());
}

TEST(Rng, BulkWordsMatchScalarWordsAtAnyOffset) {
  RandomStream a(12, {3}), b(12, {3});
  a.skip(3);
  b.skip(3);
  std::vector<std::uint32_t> w(3001);
  a.fill_u32(std::span<std::uint32_t>(w).subspan(0, 5));
  a.fill_u32(std::span<std::uint32_t>(w).subspan(5));
  for (std::uint32_t v : w) ASSERT_EQ(v, b.next_u32());
  EXPECT_EQ(a.position(), b.position());
}

TEST(Rng, ScaledFillIsMeanPlusSigmaTimesStandard) {
  RandomStream a(8, {}), b(8, {});
  std::vector<float> z(100), x(100);
  a.fill_normal(std::span<float>(z));
  b.fill_normal(std::span<float>(x), 2.0f, 0.5f);
  for (std::size_t i = 0; i < z.size(); ++i) EXPECT_EQ(x[i], 2.0f + 0.5f * z[i]);
}

TEST(Rng, SeekSkipAndPositionAddressWords) {
  RandomStream s(1, {2});
  std::vector<std::uint32_t> w(20);
  s.fill_u32(w);
  s.seek(13);
  EXPECT_EQ(s.next_u32(), w[13]);
  s.skip(2);
  EXPECT_EQ(s.next_u32(), w[16]);
  EXPECT_EQ(s.position(), 17u);
}

TEST(Rng, ReproducibleAndKeyedBySeedAndIds) {
  auto draw = [](RandomStream s) {
    std::vector<float> v(64);
    s.fill_normal(std::span<float>(v));
    return v;
  };
  EXPECT_EQ(draw(RandomStream(42, {1, 2})), draw(RandomStream(42, {1, 2})));
  EXPECT_NE(draw(RandomStream(42, {1, 2})), draw(RandomStream(43, {1, 2})));
  EXPECT_NE(draw(RandomStream(42, {1, 2})), draw(RandomStream(42, {2, 1})));
  EXPECT_NE(StreamKey::derive(42, {}), StreamKey::derive(42, {0}));
  EXPECT_NE(StreamKey::derive(42, {0}), StreamKey::derive(42, {0, 0}));
  EXPECT_THROW(StreamKey::derive(1, {1, 2, 3, 4, 5}), InternalError);
}

TEST(Rng, UniformsAreInRangeAndUnbiased) {
  RandomStream s(6, {});
  std::vector<double> d(200000);
  s.fill_uniform(std::span<double>(d));
  std::vector<float> f(200000);
  s.fill_uniform(std::span<float>(f));
  double sd = 0, sf = 0;
  for (double v : d) {
    ASSERT_TRUE(v >= 0.0 && v < 1.0) << v;
    sd += v;
  }
  for (float v : f) {
    ASSERT_TRUE(v >= 0.0f && v < 1.0f) << v;
    sf += v;
  }
  const double tol = 5.0 * std::sqrt(1.0 / 12.0 / 200000.0);
  EXPECT_NEAR(sd / 200000.0, 0.5, tol);
  EXPECT_NEAR(sf / 200000.0, 0.5, tol);
}

TEST(Rng, FloatNormalsAreStandardNormal) {
  RandomStream s(2026, {1});
  std::vector<float> v(4'000'000);
  s.fill_normal(std::span<float>(v));
  expect_standard_normal(v);
}

TEST(Rng, DoubleNormalsAreStandardNormal) {
  RandomStream s(2026, {2});
  std::vector<double> v(1'000'000);
  s.fill_normal(std::span<double>(v));
  expect_standard_normal(v);
}

TEST(Rng, FloatTransformIsAccurateAgainstDoubleReference) {
  // Reference: the same mapping of words to (u, angle), evaluated in double precision.
  const StreamKey key = StreamKey::derive(99, {});
  const std::size_t n_blocks = 1 << 16;
  std::vector<std::uint32_t> w(4 * n_blocks);
  detail::philox_words_at(SimdLevel::baseline, key, 0, w);
  std::vector<float> z(w.size());
  detail::normal_float_at(detail::best_simd_level(), key, 0, z);
  double worst = 0;
  for (std::size_t p = 0; p < w.size(); p += 2) {
    const std::uint32_t a = w[p], b = w[p + 1];
    const double u = (std::ldexp(static_cast<double>(a), 8) + (b & 0xff) + 0.5) * 0x1p-40;
    const double angle = 2 * std::numbers::pi * ((b >> 8) + 0.5) * 0x1p-24;
    const double r = std::sqrt(-2 * std::log(u));
    worst = std::max(worst, std::abs(z[p] - r * std::cos(angle)) / r);
    worst = std::max(worst, std::abs(z[p + 1] - r * std::sin(angle)) / r);
  }
  EXPECT_LT(worst, 1e-6) << "worst error relative to the radius";
}

TEST(Rng, DifferentKeysAreUncorrelated) {
  constexpr std::size_t n = 1'000'000;
  auto draw = [](std::uint64_t seed, std::initializer_list<std::uint64_t> ids) {
    std::vector<float> v(n);
    RandomStream(seed, ids).fill_normal(std::span<float>(v));
    return v;
  };
  const auto base = draw(1, {0, 0});
  const double bound = 5.0 / std::sqrt(static_cast<double>(n));
  EXPECT_LT(std::abs(correlation(base, draw(1, {0, 1}))), bound);
  EXPECT_LT(std::abs(correlation(base, draw(1, {1, 0}))), bound);
  EXPECT_LT(std::abs(correlation(base, draw(2, {0, 0}))), bound);
  // Lag-1 within a stream (cos/sin halves of one pair are independent for Box-Muller).
  std::vector<float> x(base.begin(), base.end() - 1), y(base.begin() + 1, base.end());
  EXPECT_LT(std::abs(correlation(x, y)), bound);
}

}  // namespace
}  // namespace lightsim
