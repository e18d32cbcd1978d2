// Registers the kv module's spec kinds (kv_synthetic, kv_measurements) and families (kv_scorer,
// kv_projection).
#pragma once

#include "lightsim/core/registry.h"

namespace lightsim::kv {

inline constexpr const char* kScorerFamily = "kv_scorer";
inline constexpr const char* kProjectionFamily = "kv_projection";

void register_all(Registry& registry);

}  // namespace lightsim::kv
