// The seed's end-to-end decode figures (configs/references/decode_seed.yaml, SPEC.md 1.7),
// printed beside computed values by the `decode` study; never a model input.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "lightsim/core/config.h"
#include "lightsim/core/units.h"

namespace lightsim::decode {

struct DecodeSeedReference {
  static constexpr std::string_view kind = "decode_seed_reference";
  std::string source;
  std::int64_t context = 131072;  // tokens
  double latency_ratio = 0;       // full / Prism decode latency
  Power power_full = Power::si(0);
  Power power_prism = Power::si(0);
  double cost_change = 0;  // (Prism - full) / full
  static void describe(config::Schema<DecodeSeedReference>& s);
};

}  // namespace lightsim::decode
