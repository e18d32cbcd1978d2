#include "lightsim/core/float16.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "lightsim/core/error.h"

namespace lightsim {
namespace {

bool is_nan_half(std::uint16_t h) {
  return (h & 0x7C00) == 0x7C00 && (h & 0x3FF) != 0;
}
bool is_nan_bf16(std::uint16_t b) {
  return (b & 0x7F80) == 0x7F80 && (b & 0x7F) != 0;
}

// Reference: value of a half from its fields, computed in double.
double half_reference(std::uint16_t h) {
  int exponent = (h >> 10) & 0x1F;
  int mantissa = h & 0x3FF;
  double sign = (h & 0x8000) ? -1.0 : 1.0;
  if (exponent == 0x1F) return mantissa ? std::nan("") : sign * INFINITY;
  if (exponent == 0) return sign * std::ldexp(mantissa, -24);
  return sign * std::ldexp(1024 + mantissa, exponent - 25);
}

TEST(Float16, KnownHalfValues) {
  EXPECT_EQ(float_to_half(1.0f), 0x3C00);
  EXPECT_EQ(float_to_half(-2.0f), 0xC000);
  EXPECT_EQ(float_to_half(65504.0f), 0x7BFF);
  EXPECT_EQ(float_to_half(65519.99f), 0x7BFF);
  EXPECT_EQ(float_to_half(65520.0f), 0x7C00);  // tie rounds to even: Inf
  EXPECT_EQ(float_to_half(1e9f), 0x7C00);
  EXPECT_EQ(float_to_half(-INFINITY), 0xFC00);
  EXPECT_EQ(float_to_half(0.333333333f), 0x3555);
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -14)), 0x0400);  // smallest normal
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -24)), 0x0001);  // smallest subnormal
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -25)), 0x0000);  // tie to even: zero
  EXPECT_EQ(float_to_half(std::ldexp(1.5f, -25)), 0x0001);
  EXPECT_EQ(float_to_half(std::ldexp(3.0f, -25)), 0x0002);  // 1.5 ulp ties to even 2
  EXPECT_EQ(float_to_half(-0.0f), 0x8000);
  EXPECT_EQ(float_to_half(std::numeric_limits<float>::denorm_min()), 0x0000);
  EXPECT_EQ(float_to_half(1.0f + std::ldexp(1.0f, -11)), 0x3C00);      // tie to even (down)
  EXPECT_EQ(float_to_half(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02);  // tie to even (up)
  EXPECT_TRUE(is_nan_half(float_to_half(std::numeric_limits<float>::quiet_NaN())));
  EXPECT_TRUE(is_nan_half(float_to_half(std::numeric_limits<float>::signaling_NaN())));
  EXPECT_EQ(float_to_half(-std::numeric_limits<float>::quiet_NaN()) & 0x8000, 0x8000);
  EXPECT_EQ(half_to_float(0x3C00), 1.0f);
  EXPECT_EQ(half_to_float(0x7BFF), 65504.0f);
  EXPECT_EQ(half_to_float(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(half_to_float(0x03FF), std::ldexp(1023.0f, -24));
  EXPECT_EQ(half_to_float(0x7C00), INFINITY);
  EXPECT_TRUE(std::signbit(half_to_float(0x8000)));
  static_assert(float_to_half(1.0f) == 0x3C00 && half_to_float(0x4000) == 2.0f);
}

TEST(Float16, ExhaustiveHalfToFloatMatchesReferenceAndRoundTrips) {
  for (std::uint32_t i = 0; i <= 0xFFFF; ++i) {
    auto h = static_cast<std::uint16_t>(i);
    float f = half_to_float(h);
    if (is_nan_half(h)) {
      ASSERT_TRUE(std::isnan(f)) << std::hex << i;
      std::uint16_t back = float_to_half(f);
      ASSERT_TRUE(is_nan_half(back)) << std::hex << i;
      ASSERT_EQ(back, h | 0x0200) << std::hex << i;  // payload kept, made quiet
      continue;
    }
    ASSERT_EQ(static_cast<double>(f), half_reference(h)) << std::hex << i;
    ASSERT_EQ(std::signbit(f), (h & 0x8000) != 0) << std::hex << i;
    ASSERT_EQ(float_to_half(f), h) << std::hex << i;
  }
}

// Every float between two adjacent halves rounds to the nearer one, ties to the even one.
TEST(Float16, ExhaustiveRoundingAtMidpoints) {
  for (std::uint32_t i = 0; i < 0x7BFF; ++i) {  // adjacent positive finite halves
    auto lo = static_cast<std::uint16_t>(i);
    auto hi = static_cast<std::uint16_t>(i + 1);
    double mid = (half_reference(lo) + half_reference(hi)) / 2;  // exact in float too
    float mid_f = static_cast<float>(mid);
    ASSERT_EQ(static_cast<double>(mid_f), mid);
    std::uint16_t even = (lo & 1) ? hi : lo;
    ASSERT_EQ(float_to_half(mid_f), even) << std::hex << i;
    ASSERT_EQ(float_to_half(std::nextafter(mid_f, 0.0f)), lo) << std::hex << i;
    ASSERT_EQ(float_to_half(std::nextafter(mid_f, INFINITY)), hi) << std::hex << i;
    ASSERT_EQ(float_to_half(-std::nextafter(mid_f, INFINITY)), hi | 0x8000) << std::hex << i;
  }
}

TEST(BFloat16, KnownValues) {
  EXPECT_EQ(float_to_bfloat16(1.0f), 0x3F80);
  EXPECT_EQ(float_to_bfloat16(3.14159265f), 0x4049);
  EXPECT_EQ(float_to_bfloat16(-2.0f), 0xC000);
  EXPECT_EQ(float_to_bfloat16(1.0f + std::ldexp(1.0f, -8)), 0x3F80);        // tie, even down
  EXPECT_EQ(float_to_bfloat16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3F82);    // tie, even up
  EXPECT_EQ(float_to_bfloat16(std::numeric_limits<float>::max()), 0x7F80);  // rounds to Inf
  EXPECT_EQ(float_to_bfloat16(INFINITY), 0x7F80);
  EXPECT_EQ(float_to_bfloat16(std::numeric_limits<float>::denorm_min()), 0x0000);
  EXPECT_EQ(float_to_bfloat16(std::ldexp(1.0f, -133)), 0x0001);  // smallest bf16 subnormal
  EXPECT_TRUE(is_nan_bf16(float_to_bfloat16(std::numeric_limits<float>::quiet_NaN())));
  // A NaN whose payload sits only in the dropped low bits must not become Inf.
  EXPECT_TRUE(is_nan_bf16(float_to_bfloat16(std::bit_cast<float>(0x7F800001u))));
  EXPECT_EQ(bfloat16_to_float(0x3F80), 1.0f);
  EXPECT_EQ(bfloat16_to_float(0x4049), 3.140625f);
}

TEST(BFloat16, ExhaustiveRoundTrip) {
  for (std::uint32_t i = 0; i <= 0xFFFF; ++i) {
    auto b = static_cast<std::uint16_t>(i);
    float f = bfloat16_to_float(b);
    if (is_nan_bf16(b)) {
      ASSERT_TRUE(std::isnan(f));
      ASSERT_EQ(float_to_bfloat16(f), b | 0x0040) << std::hex << i;
    } else {
      ASSERT_EQ(float_to_bfloat16(f), b) << std::hex << i;
    }
  }
}

TEST(Float16, BulkConversionsMatchScalarAndCheckSizes) {
  std::vector<float> in = {0.0f, 1.5f, -65504.0f, 1e-7f, 3.0e38f};
  std::vector<std::uint16_t> half(in.size()), bf(in.size());
  std::vector<float> back(in.size());
  float_to_half(in, half);
  float_to_bfloat16(in, bf);
  for (std::size_t i = 0; i < in.size(); ++i) {
    EXPECT_EQ(half[i], float_to_half(in[i]));
    EXPECT_EQ(bf[i], float_to_bfloat16(in[i]));
  }
  half_to_float(half, back);
  for (std::size_t i = 0; i < in.size(); ++i) EXPECT_EQ(back[i], half_to_float(half[i]));
  bfloat16_to_float(bf, back);
  for (std::size_t i = 0; i < in.size(); ++i) EXPECT_EQ(back[i], bfloat16_to_float(bf[i]));
  std::vector<float> short_out(2);
  EXPECT_THROW(half_to_float(half, short_out), InternalError);
}

}  // namespace
}  // namespace lightsim
