#include "lightsim/core/float16.h"

#include "lightsim/core/error.h"

namespace lightsim {
namespace {

template <typename In, typename Out, typename Convert>
void convert_all(std::span<const In> in, std::span<Out> out, Convert convert) {
  LIGHTSIM_CHECK(in.size() == out.size(), "conversion of {} values into a span of {}", in.size(),
                 out.size());
  for (std::size_t i = 0; i < in.size(); ++i) out[i] = convert(in[i]);
}

}  // namespace

void half_to_float(std::span<const std::uint16_t> in, std::span<float> out) {
  convert_all(in, out, [](std::uint16_t h) { return half_to_float(h); });
}
void float_to_half(std::span<const float> in, std::span<std::uint16_t> out) {
  convert_all(in, out, [](float f) { return float_to_half(f); });
}
void bfloat16_to_float(std::span<const std::uint16_t> in, std::span<float> out) {
  convert_all(in, out, [](std::uint16_t b) { return bfloat16_to_float(b); });
}
void float_to_bfloat16(std::span<const float> in, std::span<std::uint16_t> out) {
  convert_all(in, out, [](float f) { return float_to_bfloat16(f); });
}

}  // namespace lightsim
