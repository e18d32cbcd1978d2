// IEEE 754 binary16 ("half", float16) and bfloat16 conversions to and from float.
//
// Values are passed as their raw 16-bit patterns (std::uint16_t). Narrowing rounds to nearest,
// ties to even; magnitudes beyond the format's range become +-Inf; subnormals are exact both
// ways. NaN stays NaN with its sign and top payload bits, and is made quiet. Widening is exact.
// The functions do not depend on the FPU rounding mode or flush-to-zero settings.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>

namespace lightsim {

constexpr float half_to_float(std::uint16_t h) {
  std::uint32_t sign = std::uint32_t{h & 0x8000u} << 16;
  std::uint32_t exponent = (h >> 10) & 0x1Fu;
  std::uint32_t mantissa = h & 0x3FFu;
  if (exponent == 0x1F) return std::bit_cast<float>(sign | 0x7F800000u | (mantissa << 13));
  if (exponent != 0) {
    return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
  }
  if (mantissa == 0) return std::bit_cast<float>(sign);
  // Subnormal half: mantissa * 2^-24, normalized by hand (a normal float).
  int shift = std::countl_zero(mantissa) - 21;  // moves the leading 1 to bit 10
  mantissa = (mantissa << shift) & 0x3FFu;
  std::uint32_t biased = static_cast<std::uint32_t>(113 - shift);  // 2^(-14-shift)
  return std::bit_cast<float>(sign | (biased << 23) | (mantissa << 13));
}

constexpr std::uint16_t float_to_half(float value) {
  std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  std::uint32_t sign = (bits >> 16) & 0x8000u;
  std::uint32_t magnitude = bits & 0x7FFFFFFFu;
  std::uint32_t result;
  if (magnitude > 0x7F800000u) {  // NaN: keep the top payload bits, set the quiet bit
    result = 0x7E00u | ((magnitude >> 13) & 0x3FFu);
  } else if (magnitude >= 0x477FF000u) {  // >= 65520 (halfway past 65504): Inf
    result = 0x7C00u;
  } else if (magnitude >= 0x38800000u) {  // normal half (>= 2^-14)
    std::uint32_t odd = (magnitude >> 13) & 1u;
    // Rebias the exponent (127 -> 15) and round the 13 dropped bits to nearest even; a carry
    // out of the mantissa correctly bumps the exponent.
    result = (magnitude - (112u << 23) + 0xFFFu + odd) >> 13;
  } else if (magnitude >= 0x33000000u) {       // subnormal half: round(value * 2^24)
    std::uint32_t exponent = magnitude >> 23;  // 102..112
    std::uint32_t significand = (magnitude & 0x7FFFFFu) | 0x800000u;
    std::uint32_t shift = 126 - exponent;  // 14..24
    std::uint32_t kept = significand >> shift;
    std::uint32_t rest = significand & ((1u << shift) - 1);
    std::uint32_t halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (kept & 1u))) ++kept;
    result = kept;
  } else {  // below 2^-25 (or exactly: a tie to even zero)
    result = 0;
  }
  return static_cast<std::uint16_t>(sign | result);
}

constexpr float bfloat16_to_float(std::uint16_t b) {
  return std::bit_cast<float>(std::uint32_t{b} << 16);
}

constexpr std::uint16_t float_to_bfloat16(float value) {
  std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<std::uint16_t>((bits >> 16) | 0x40u);
  std::uint32_t odd = (bits >> 16) & 1u;
  return static_cast<std::uint16_t>((bits + 0x7FFFu + odd) >> 16);
}

// Bulk versions: `out.size()` must equal `in.size()` (InternalError otherwise).
void half_to_float(std::span<const std::uint16_t> in, std::span<float> out);
void float_to_half(std::span<const float> in, std::span<std::uint16_t> out);
void bfloat16_to_float(std::span<const std::uint16_t> in, std::span<float> out);
void float_to_bfloat16(std::span<const float> in, std::span<std::uint16_t> out);

}  // namespace lightsim
