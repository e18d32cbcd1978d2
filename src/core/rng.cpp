#include "lightsim/core/rng.h"

#include <Random123/philox.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "lightsim/core/error.h"

namespace lightsim {
namespace {

using Philox = r123::Philox4x32;

std::uint32_t lo32(std::uint64_t v) {
  return static_cast<std::uint32_t>(v);
}
std::uint32_t hi32(std::uint64_t v) {
  return static_cast<std::uint32_t>(v >> 32);
}

// Accurate double Box-Muller on the 4 words of one pair of 53-bit uniforms.
// u1 = (k1 + 1/2) 2^-53 in (0, 1], angle = 2 pi k2 2^-53.
void box_muller_d(const std::uint32_t* w, double& zc, double& zs) {
  const std::uint64_t k1 = ((std::uint64_t{w[0]} << 32) | w[1]) >> 11;
  const std::uint64_t k2 = ((std::uint64_t{w[2]} << 32) | w[3]) >> 11;
  const double u1 = (static_cast<double>(k1) + 0.5) * 0x1p-53;
  const double angle = (2.0 * std::numbers::pi) * (static_cast<double>(k2) * 0x1p-53);
  const double r = std::sqrt(-2.0 * std::log(u1));
  zc = r * std::cos(angle);
  zs = r * std::sin(angle);
}

}  // namespace

StreamKey StreamKey::derive(std::uint64_t seed, std::initializer_list<std::uint64_t> ids) {
  LIGHTSIM_CHECK(ids.size() <= kMaxIds, "a stream takes at most {} ids, got {}", kMaxIds,
                 ids.size());
  // Fixed-length (3 block) CBC-MAC, so no two inputs share a message.
  std::array<std::uint64_t, kMaxIds> id{};
  std::size_t n = 0;
  for (std::uint64_t v : ids) id[n++] = v;
  const Philox::key_type mac_key = {{0x243F6A88u, 0x85A308D3u}};  // digits of pi
  const std::array<Philox::ctr_type, 3> msg = {{
      {{lo32(seed), hi32(seed), static_cast<std::uint32_t>(n), 0x6C73696Du}},  // "lsim"
      {{lo32(id[0]), hi32(id[0]), lo32(id[1]), hi32(id[1])}},
      {{lo32(id[2]), hi32(id[2]), lo32(id[3]), hi32(id[3])}},
  }};
  Philox philox;
  Philox::ctr_type state = {{0, 0, 0, 0}};
  for (const auto& block : msg) {
    for (int i = 0; i < 4; ++i) state.v[i] ^= block.v[i];
    state = philox(state, mac_key);
  }
  StreamKey k;
  k.key = {state.v[0], state.v[1]};
  k.ctr_hi = {state.v[2], state.v[3]};
  return k;
}

std::array<std::uint32_t, 4> philox_block(const StreamKey& key, std::uint64_t block) {
  const Philox::ctr_type ctr = {{lo32(block), hi32(block), key.ctr_hi[0], key.ctr_hi[1]}};
  const Philox::key_type k = {{key.key[0], key.key[1]}};
  const Philox::ctr_type out = Philox()(ctr, k);
  return {out.v[0], out.v[1], out.v[2], out.v[3]};
}

std::uint32_t RandomStream::word(std::uint64_t p) {
  const std::uint64_t block = p / 4;
  if (block != cached_block_) {
    cache_ = philox_block(key_, block);
    cached_block_ = block;
  }
  return cache_[p % 4];
}

std::uint32_t RandomStream::next_u32() {
  return word(pos_++);
}

float RandomStream::uniform_float() {
  return static_cast<float>(next_u32() >> 8) * 0x1p-24f;
}

double RandomStream::uniform() {
  align(2);
  const std::uint64_t hi = word(pos_), lo = word(pos_ + 1);
  pos_ += 2;
  return static_cast<double>(((hi << 32) | lo) >> 11) * 0x1p-53;
}

double RandomStream::normal() {
  align(2);
  const std::uint64_t base = pos_ & ~std::uint64_t{3};
  const std::uint32_t w[4] = {word(base), word(base + 1), word(base + 2), word(base + 3)};
  double zc = 0, zs = 0;
  box_muller_d(w, zc, zs);
  const bool second = (pos_ & 2) != 0;
  pos_ += 2;
  return second ? zs : zc;
}

void RandomStream::fill_u32(std::span<std::uint32_t> out) {
  // Whole blocks through the bulk kernel, a bounded buffer at a time.
  constexpr std::size_t kBufWords = 1024;
  std::uint32_t buf[kBufWords + 4];
  std::size_t i = 0;
  while (i < out.size()) {
    const std::uint64_t first_block = pos_ / 4;
    const std::size_t skip = static_cast<std::size_t>(pos_ % 4);
    const std::size_t take = std::min(out.size() - i, kBufWords);
    const std::size_t words = (skip + take + 3) / 4 * 4;
    detail::philox_words_at(detail::best_simd_level(), key_, first_block,
                            std::span<std::uint32_t>(buf, words));
    std::copy_n(buf + skip, take, out.begin() + static_cast<std::ptrdiff_t>(i));
    i += take;
    pos_ += take;
  }
}

void RandomStream::fill_uniform(std::span<float> out) {
  static_assert(sizeof(float) == sizeof(std::uint32_t));
  constexpr std::size_t kChunk = 1024;
  std::uint32_t w[kChunk];
  for (std::size_t i = 0; i < out.size(); i += kChunk) {
    const std::size_t n = std::min(kChunk, out.size() - i);
    fill_u32(std::span<std::uint32_t>(w, n));
    for (std::size_t j = 0; j < n; ++j) out[i + j] = static_cast<float>(w[j] >> 8) * 0x1p-24f;
  }
}

void RandomStream::fill_uniform(std::span<double> out) {
  constexpr std::size_t kChunk = 512;
  std::uint32_t w[2 * kChunk];
  align(2);
  for (std::size_t i = 0; i < out.size(); i += kChunk) {
    const std::size_t n = std::min(kChunk, out.size() - i);
    fill_u32(std::span<std::uint32_t>(w, 2 * n));
    for (std::size_t j = 0; j < n; ++j) {
      const std::uint64_t bits = (std::uint64_t{w[2 * j]} << 32) | w[2 * j + 1];
      out[i + j] = static_cast<double>(bits >> 11) * 0x1p-53;
    }
  }
}

void RandomStream::fill_normal(std::span<float> out) {
  detail::normal_float_at(detail::best_simd_level(), key_, pos_, out);
  pos_ += out.size();
}

void RandomStream::fill_normal(std::span<double> out) {
  std::size_t i = 0;
  // A pending second half of a pair first, then whole pairs straight from Philox blocks.
  align(2);
  if (i < out.size() && (pos_ & 2) != 0) out[i++] = normal();
  for (; i + 2 <= out.size(); i += 2) {
    const auto w = philox_block(key_, pos_ / 4);
    box_muller_d(w.data(), out[i], out[i + 1]);
    pos_ += 4;
  }
  if (i < out.size()) out[i] = normal();
}

void RandomStream::fill_normal(std::span<float> out, float mean, float sigma) {
  fill_normal(out);
  for (auto& v : out) {
    const float scaled = sigma * v;  // separate statement: no FMA contraction
    v = mean + scaled;
  }
}

void RandomStream::fill_normal(std::span<double> out, double mean, double sigma) {
  fill_normal(out);
  for (auto& v : out) {
    const double scaled = sigma * v;
    v = mean + scaled;
  }
}

}  // namespace lightsim
