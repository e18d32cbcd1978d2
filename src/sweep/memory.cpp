// Up-front memory estimate of a sweep's point lists (include/lightsim/sweep/memory.h).
#include "lightsim/sweep/memory.h"

#include <algorithm>
#include <bit>
#include <string>
#include <vector>

#include "lightsim/core/memory_budget.h"
#include "lightsim/sweep/store.h"

namespace lightsim::sweep {
namespace {

// glibc malloc's chunk for a request of n bytes: 8 bytes of header, 16-byte granules, at
// least 32 bytes (malloc/malloc.c, request2size on 64-bit).
std::uint64_t malloc_chunk(std::uint64_t n) {
  if (n == 0) return 0;
  return std::max<std::uint64_t>(32, (n + 8 + 15) / 16 * 16);
}

// The heap buffer of a std::string of `length` characters, beyond libstdc++'s 15-character
// inline capacity (the object itself lives in its vector's buffer, costed there).
std::uint64_t string_heap(std::uint64_t length) {
  return length > 15 ? malloc_chunk(length + 1) : 0;
}

// Longest text a sample key can draw (spec.cpp, draw): a choice, or a number in fmt's
// shortest form (at most 24 characters for a double, 20 for an int64) and " <unit>".
std::uint64_t longest_draw(const SampleKeySpec& k) {
  std::uint64_t n = 0;
  for (const auto& c : k.choices) n = std::max<std::uint64_t>(n, c.size());
  if (!k.choices.empty()) return n;
  const std::uint64_t unit = std::max(k.min.size(), k.max.size());  // the unit is within both
  return (k.integer ? 20 : 24) + 1 + unit;
}

// One point's keys and values (lengths, in key order) as the lists hold them.
struct PointShape {
  std::vector<std::uint64_t> keys, values;
};

std::uint64_t point_bytes(const PointShape& p, bool grown) {
  const std::uint64_t n = p.keys.size();
  // expand() resizes a grid point's vectors to size and push_backs the others (capacity the
  // next power of two); the string objects live in those buffers.
  const std::uint64_t capacity = grown ? std::bit_ceil(std::max<std::uint64_t>(n, 1)) : n;
  std::uint64_t bytes = sizeof(Point) + 2 * malloc_chunk(capacity * sizeof(std::string));
  // The store's expected record (in its vector's buffer): its id (16 hex digits) and the
  // values' JSON text, {"key":value,...} with every value possibly quoted.
  std::uint64_t json = 2;
  for (std::uint64_t k = 0; k < n; ++k) {
    bytes += string_heap(p.keys[k]) + string_heap(p.values[k]);
    json += p.keys[k] + 3 + p.values[k] + 2 + 1;
  }
  return bytes + sizeof(StoredPoint) + string_heap(16) + string_heap(json);
}

// The pending indices (run.cpp): a JSON array (16-byte values, capacity up to twice the
// size), its text (at most 8 characters an index below 10^7) held twice (the message and the
// broadcast copy), the parsed array again and the std::vector<std::size_t>.
constexpr std::uint64_t kPendingBytesPerPoint = 2 * 16 + 2 * 8 + 2 * 16 + 8;

}  // namespace

std::uint64_t estimate_sweep_bytes(const SweepSpec& spec) {
  const std::uint64_t count = point_count(spec);
  std::uint64_t total = 0;
  if (!spec.points.empty()) {
    // The explicit list is already in memory (the spec): cost each point as written, in a
    // push_back-grown outer vector.
    for (const auto& point : spec.points) {
      PointShape shape;
      for (const auto& [key, value] : point) {
        shape.keys.push_back(key.size());
        shape.values.push_back(value.size());
      }
      total = add_bytes(total, add_bytes(point_bytes(shape, true), sizeof(Point)));
    }
  } else {
    PointShape shape;  // the longest point
    for (const auto& axis : spec.grid) {
      std::uint64_t longest = 0;
      for (const auto& v : axis.values) longest = std::max<std::uint64_t>(longest, v.size());
      shape.keys.push_back(axis.key.size());
      shape.values.push_back(longest);
    }
    for (const auto& k : spec.sample.keys) {
      shape.keys.push_back(k.key.size());
      shape.values.push_back(longest_draw(k));
    }
    total = bytes_of(count, point_bytes(shape, spec.grid.empty()));
  }
  // The pending list, and one bit a point of the store's index.
  return add_bytes(total, bytes_of(count, kPendingBytesPerPoint) + count / 8 + 1);
}

}  // namespace lightsim::sweep
