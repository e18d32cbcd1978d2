// Body of the bulk random kernels, included once per SIMD target by rng_kernels.cpp inside a
// target region (`#pragma GCC target`, or its clang equivalent) and its own namespace. Before
// inclusion the namespace must define `philox_group(key, block0, a, b)` (see rng_kernels.cpp). No
// include guard on purpose.
//
// Determinism: each lane performs the same sequence of correctly rounded IEEE operations
// (add, mul, div, sqrt, int->float), so every vector width gives the same bits. This file is
// compiled with -ffp-contract=off (src/CMakeLists.txt) and no target enables FMA.

// mask ? x : y per bit, for masks that are all ones or all zeros.
[[gnu::always_inline]] static inline float blend(std::uint32_t mask, float x, float y) {
  return std::bit_cast<float>((std::bit_cast<std::uint32_t>(x) & mask) |
                              (std::bit_cast<std::uint32_t>(y) & ~mask));
}

// Exactly rounded uint32 -> float from two exact signed conversions (SIMD has no unsigned one
// before AVX-512; both halves are exact, so the single rounding of the sum is the correct one).
[[gnu::always_inline]] static inline float to_float(std::uint32_t x) {
  return static_cast<float>(static_cast<std::int32_t>(x >> 16)) * 65536.0f +
         static_cast<float>(static_cast<std::int32_t>(x & 0xffffu));
}

// Float Box-Muller on the word pair (a, b) -> (r cos t, r sin t).
// Radius: u = (a * 2^8 + (b & 0xff) + 1/2) * 2^-40 in (0, 1). For u < 1/sqrt2 log(u) is taken
// from u's exponent and mantissa; above, as log1p(-t) with t = 1 - u formed exactly from ~a,
// so small radii keep full relative precision. log(1 + f) = 2 atanh(f / (2 + f)) with
// |s| <= 0.1716, series to s^9 (truncation < 3e-9 relative).
// Angle: the top 24 bits of b in turns; quadrant from the nearest quarter turn, remainder
// |y| <= pi/4 through the Cephes sinf/cosf minimax polynomials.
[[gnu::always_inline]] static inline void box_muller_f(std::uint32_t a, std::uint32_t b, float& zc,
                                                       float& zs) {
  const std::uint32_t lo8 = b & 0xffu;
  const float u = to_float(a) * 0x1p-32f + (static_cast<float>(lo8) + 0.5f) * 0x1p-40f;
  const float t = to_float(~a) * 0x1p-32f + (static_cast<float>(255u - lo8) + 0.5f) * 0x1p-40f;
  // Both branches are computed and blended with integer masks: with `?:` GCC sinks the FP work
  // into real branches (it will not speculate FP arithmetic under trapping math) and the lane
  // loop does not vectorize.
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(u);
  const std::uint32_t mant = bits & 0x007fffffu;
  const std::uint32_t big = mant > 0x003504F3u ? 1u : 0u;                    // mantissa > sqrt2
  const float m = std::bit_cast<float>(mant | (0x3f800000u - (big << 23)));  // [1/sqrt2, sqrt2)
  const std::int32_t e =
      static_cast<std::int32_t>(bits >> 23) - 127 + static_cast<std::int32_t>(big);
  const std::uint32_t near_one = a >= 0xB504F334u ? ~0u : 0u;  // u >= 1/sqrt2
  const float f_lo = m - 1.0f;
  const float f_hi = -t;
  const float f = blend(near_one, f_hi, f_lo);
  const float ef = static_cast<float>(e & static_cast<std::int32_t>(~near_one));
  const float s = f / (2.0f + f);
  const float z = s * s;
  const float poly = 2.0f + z * (0.666666667f + z * (0.4f + z * (0.285714286f + z * 0.222222222f)));
  const float log_u = ef * 0.693145752f + (ef * 1.42860677e-6f + s * poly);
  const float r = __builtin_sqrtf(-2.0f * log_u);  // log_u < 0 on both branches

  const std::uint32_t turn = b >> 8;  // units of 2^-24 turns
  const std::uint32_t quarter = (turn + (1u << 21)) >> 22;
  const std::int32_t d = static_cast<std::int32_t>(turn) - static_cast<std::int32_t>(quarter << 22);
  const float y = (static_cast<float>(d) + 0.5f) * 3.74507028e-7f;  // 2 pi / 2^24
  const float y2 = y * y;
  const float sn =
      y + y * y2 * (-1.6666654611e-1f + y2 * (8.3321608736e-3f + y2 * -1.9515295891e-4f));
  const float cs =
      1.0f - 0.5f * y2 +
      y2 * y2 *
          (4.166664568298827e-2f + y2 * (-1.388731625493765e-3f + y2 * 2.443315711809948e-5f));
  const std::uint32_t q = quarter & 3u;
  const std::uint32_t swap = 0u - (q & 1u);
  const float c1 = blend(swap, sn, cs);
  const float s1 = blend(swap, cs, sn);
  const std::uint32_t sign_c = ((q + 1u) & 2u) << 30;  // cos < 0 in quarters 1, 2
  const std::uint32_t sign_s = (q & 2u) << 30;         // sin < 0 in quarters 2, 3
  zc = r * std::bit_cast<float>(std::bit_cast<std::uint32_t>(c1) ^ sign_c);
  zs = r * std::bit_cast<float>(std::bit_cast<std::uint32_t>(s1) ^ sign_s);
}

// Normals for the 64 words of group `g` in stream order.
[[gnu::always_inline]] static inline void normal_group(const StreamKey& key, std::uint64_t g,
                                                       float* out) {
  alignas(64) std::uint32_t a[2 * kGroupBlocks], b[2 * kGroupBlocks];
  alignas(64) float zc[2 * kGroupBlocks], zs[2 * kGroupBlocks];
  philox_group(key, g * kGroupBlocks, a, b);
  for (int i = 0; i < 2 * kGroupBlocks; ++i) box_muller_f(a[i], b[i], zc[i], zs[i]);
  for (int i = 0; i < kGroupBlocks; ++i) {
    out[4 * i + 0] = zc[i];
    out[4 * i + 1] = zs[i];
    out[4 * i + 2] = zc[kGroupBlocks + i];
    out[4 * i + 3] = zs[kGroupBlocks + i];
  }
}

// Two consecutive groups: both Philox chains first, so that the out-of-order core overlaps
// their rounds (one group's 10 dependent rounds leave the multipliers idle), then their
// Box-Muller. The same words and operations per lane as two normal_group calls.
[[gnu::always_inline]] static inline void normal_group_pair(const StreamKey& key, std::uint64_t g,
                                                            float* out) {
  alignas(64) std::uint32_t a[2][2 * kGroupBlocks], b[2][2 * kGroupBlocks];
  alignas(64) float zc[2 * kGroupBlocks], zs[2 * kGroupBlocks];
  philox_group(key, g * kGroupBlocks, a[0], b[0]);
  philox_group(key, (g + 1) * kGroupBlocks, a[1], b[1]);
  for (int h = 0; h < 2; ++h) {
    for (int i = 0; i < 2 * kGroupBlocks; ++i) box_muller_f(a[h][i], b[h][i], zc[i], zs[i]);
    float* o = out + h * kGroupWords;
    for (int i = 0; i < kGroupBlocks; ++i) {
      o[4 * i + 0] = zc[i];
      o[4 * i + 1] = zs[i];
      o[4 * i + 2] = zc[kGroupBlocks + i];
      o[4 * i + 3] = zs[kGroupBlocks + i];
    }
  }
}

[[gnu::always_inline]] static inline void words_group(const StreamKey& key, std::uint64_t block0,
                                                      std::uint32_t* out) {
  alignas(64) std::uint32_t a[2 * kGroupBlocks], b[2 * kGroupBlocks];
  philox_group(key, block0, a, b);
  for (int i = 0; i < kGroupBlocks; ++i) {
    out[4 * i + 0] = a[i];
    out[4 * i + 1] = b[i];
    out[4 * i + 2] = a[kGroupBlocks + i];
    out[4 * i + 3] = b[kGroupBlocks + i];
  }
}

// Normals for words [first, first + n): whole interior groups are written in place, partial
// groups at either end go through a buffer (same kernel, so the same bits).
[[gnu::always_inline]] static inline void normal_range(const StreamKey& key, std::uint64_t first,
                                                       float* out, std::size_t n) {
  alignas(64) float buf[kGroupWords];
  while (n > 0) {
    const std::uint64_t g = first / kGroupWords;
    const std::size_t off = static_cast<std::size_t>(first % kGroupWords);
    if (off == 0 && n >= 2 * kGroupWords) {
      normal_group_pair(key, g, out);
      out += 2 * kGroupWords;
      first += 2 * kGroupWords;
      n -= 2 * kGroupWords;
      continue;
    }
    if (off == 0 && n >= kGroupWords) {
      normal_group(key, g, out);
      out += kGroupWords;
      first += kGroupWords;
      n -= kGroupWords;
      continue;
    }
    normal_group(key, g, buf);
    const std::size_t take = std::min<std::size_t>(n, kGroupWords - off);
    std::memcpy(out, buf + off, take * sizeof(float));
    out += take;
    first += take;
    n -= take;
  }
}

// Entry points of this target.
void normal_float(const StreamKey& key, std::uint64_t first, float* out, std::size_t n) {
  normal_range(key, first, out, n);
}

void philox_words(const StreamKey& key, std::uint64_t first_block, std::uint32_t* out,
                  std::size_t n_blocks) {
  std::size_t done = 0;
  for (; done + kGroupBlocks <= n_blocks; done += kGroupBlocks)
    words_group(key, first_block + done, out + 4 * done);
  if (done < n_blocks) {
    alignas(64) std::uint32_t buf[kGroupWords];
    words_group(key, first_block + done, buf);
    std::memcpy(out + 4 * done, buf, 4 * (n_blocks - done) * sizeof(std::uint32_t));
  }
}
