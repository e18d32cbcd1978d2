// A count (tokens, heads, bytes, parameters: int64) as a double for the cost and size formulas.
// Exact up to 2^53; every count lightsim accepts is far below (config ranges cap them).
#pragma once

#include <cstdint>

namespace lightsim {

constexpr double as_double(std::int64_t count) {
  return static_cast<double>(count);
}

}  // namespace lightsim
