// Spec fields of the seed's decode figures (seed.h).
#include "lightsim/decode/seed.h"

namespace lightsim::decode {

void DecodeSeedReference::describe(config::Schema<DecodeSeedReference>& s) {
  s.help("The seed's end-to-end decode figures (SPEC.md 1.7), shown beside ours, never inputs.");
  s.field("source", &DecodeSeedReference::source, "where the figures come from");
  s.field("context", &DecodeSeedReference::context, "context of the claim, tokens")
      .range(std::int64_t{1}, std::int64_t{1} << 26)
      .required();
  s.field("latency_ratio", &DecodeSeedReference::latency_ratio,
          "full-attention / Prism decode latency")
      .positive()
      .required();
  s.field("power_full", &DecodeSeedReference::power_full, "power with full attention")
      .positive()
      .required();
  s.field("power_prism", &DecodeSeedReference::power_prism, "power with Prism")
      .positive()
      .required();
  s.field("cost_change", &DecodeSeedReference::cost_change,
          "relative change of inference cost with Prism, (Prism - full) / full")
      .range(-1.0, 10.0)
      .required();
}

}  // namespace lightsim::decode
