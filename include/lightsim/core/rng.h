// Counter-based random streams on Random123 Philox4x32-10.
//
// A stream is identified by a StreamKey derived from (seed, up to 4 stream ids such as study,
// trial, ring). Its output is an infinite sequence of 32-bit words; word p is word p % 4 of the
// Philox block with counter p / 4. Every value a stream returns is a pure function of
// (key, kind of draw, word position), so results never depend on thread scheduling, on which
// SIMD code path runs, or on how a bulk fill is split into spans.
//
// Draw kinds and how many words each consumes (the position is first rounded up to a multiple
// of the kind's alignment, then advanced by `words * count`):
//   next_u32            1 word,  align 1   the word itself
//   uniform_float       1 word,  align 1   (w >> 8) * 2^-24 in [0, 1)
//   uniform (double)    2 words, align 2   53 bits of (w[p] << 32 | w[p+1]) * 2^-53 in [0, 1)
//   normal_float        1 word,  align 1   fast float Box-Muller; the words (2k, 2k+1) form one
//                                          pair giving normals k*2 (cos) and k*2+1 (sin)
//   normal (double)     2 words, align 2   accurate double Box-Muller on 53-bit uniforms; words
//                                          4k..4k+3 give normals at 4k (cos) and 4k+2 (sin)
// Hence fill_normal(span<double>) equals repeated normal(), fill_uniform(span<double>) equals
// repeated uniform(), and fill_normal(span<float>) of n values followed by m values equals one
// fill of n + m values.
//
// Accuracy (see docs/performance.md):
//   * float normals: radius uses 40 random bits (32 + 8 spare bits of the angle word), so the
//     largest |z| is sqrt(2 * 41 ln 2) = 7.54; polynomial log/sin/cos in float, relative error
//     about 1e-6. No libm call: bit-identical on every x86-64 CPU and SIMD path.
//   * double normals: std::log/std::sin/std::cos on 53-bit uniforms, largest |z| = 8.65;
//     bit-identical for a given binary and libm.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <span>

namespace lightsim {

// The 128 bits that select a stream: Philox key (2 words) and the upper 2 counter words.
struct StreamKey {
  std::array<std::uint32_t, 2> key{};
  std::array<std::uint32_t, 2> ctr_hi{};

  static constexpr std::size_t kMaxIds = 4;
  // Derives the key by CBC-MAC of (seed, number of ids, ids) under Philox with a fixed key, so
  // distinct (seed, ids) give unrelated keys (collision probability ~2^-128). Throws
  // InternalError if more than kMaxIds ids are given.
  static StreamKey derive(std::uint64_t seed, std::initializer_list<std::uint64_t> ids);

  friend bool operator==(const StreamKey&, const StreamKey&) = default;
};

// One Philox4x32-10 block: counter = (block lo, block hi, key.ctr_hi[0], key.ctr_hi[1]).
std::array<std::uint32_t, 4> philox_block(const StreamKey& key, std::uint64_t block);

class RandomStream {
 public:
  RandomStream(std::uint64_t seed, std::initializer_list<std::uint64_t> ids)
      : RandomStream(StreamKey::derive(seed, ids)) {}
  explicit RandomStream(const StreamKey& key) : key_(key) {}

  const StreamKey& key() const { return key_; }
  // Position in 32-bit words from the start of the stream.
  std::uint64_t position() const { return pos_; }
  void seek(std::uint64_t word) { pos_ = word; }
  void skip(std::uint64_t words) { pos_ += words; }

  std::uint32_t next_u32();
  float uniform_float();  // [0, 1), 24 bits
  double uniform();       // [0, 1), 53 bits
  double normal();        // standard normal, accurate double
  double normal(double mean, double sigma) { return mean + sigma * normal(); }

  // Bulk fills; each equals the corresponding sequence of scalar draws (see the table above).
  void fill_u32(std::span<std::uint32_t> out);
  void fill_uniform(std::span<float> out);
  void fill_uniform(std::span<double> out);
  void fill_normal(std::span<float> out);   // fast path, >= 200 M/s/core target
  void fill_normal(std::span<double> out);  // accurate path
  // out[i] = mean + sigma * z[i], computed in the span's precision without FMA.
  void fill_normal(std::span<float> out, float mean, float sigma);
  void fill_normal(std::span<double> out, double mean, double sigma);

 private:
  std::uint32_t word(std::uint64_t p);  // word p, through a one-block cache
  void align(std::uint64_t a) { pos_ = (pos_ + a - 1) / a * a; }

  StreamKey key_;
  std::uint64_t pos_ = 0;
  std::uint64_t cached_block_ = ~std::uint64_t{0};
  std::array<std::uint32_t, 4> cache_{};
};

namespace detail {
// SIMD code paths of the bulk float kernels. All produce bit-identical results (tests check);
// only exposed so tests and benchmarks can compare them.
enum class SimdLevel { baseline, avx2, avx512 };
SimdLevel best_simd_level();  // the level dispatch uses on this CPU
bool simd_level_supported(SimdLevel level);
// Float normals for word positions [first, first + out.size()) of the stream with `key`.
void normal_float_at(SimdLevel level, const StreamKey& key, std::uint64_t first,
                     std::span<float> out);
// Philox blocks [first, first + out.size()/4) as words, via the bulk kernel.
void philox_words_at(SimdLevel level, const StreamKey& key, std::uint64_t first_block,
                     std::span<std::uint32_t> out);
}  // namespace detail

}  // namespace lightsim
